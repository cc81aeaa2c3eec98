import { type Checked, type FieldProblem, formatProblem } from "../lib/api/validation.js";

/**
 * The problems of a construct's props, gathered in its constructor and reported at synth, where cdk8s's
 * App throws one error listing every construct's, each under its construct path (`node.addValidation`).
 */
export class PropsProblems {
  private readonly found: FieldProblem[] = [];

  /** The parsed value; or undefined, its problems kept. */
  take<T>(checked: Checked<T>): T | undefined {
    if (checked.ok) return checked.data;
    this.found.push(...checked.problems);
    return undefined;
  }

  add(...problems: readonly FieldProblem[]): void {
    this.found.push(...problems);
  }

  get problems(): readonly FieldProblem[] {
    return this.found;
  }

  /** One line per problem: the kind, the field, what was expected and received, what to do. */
  lines(kind: string): string[] {
    return this.found.map((problem) => `${kind} ${formatProblem(problem)}`);
  }
}
