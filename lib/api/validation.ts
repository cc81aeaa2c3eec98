import type * as z from "zod";

/** One problem with an input, located by a dotted field path (`spec.managed.instances`, `spec.databases[1].name`). */
export interface FieldProblem {
  readonly path: string;
  /** What was expected and what to write instead. */
  readonly message: string;
  /** The value received, rendered as JSON, when there was one. */
  readonly received?: string;
}

/** Input that does not match a schema; every problem at once, each with its field path. */
export class ValidationError extends Error {
  constructor(
    /** Where the input came from: a construct path, a resource name, a CLI flag… */
    readonly where: string,
    readonly problems: readonly FieldProblem[],
  ) {
    super(`${where} is invalid:\n${problems.map((p) => `  - ${formatProblem(p)}`).join("\n")}`);
    this.name = "ValidationError";
  }
}

export function formatProblem(problem: FieldProblem): string {
  const received = problem.received === undefined ? "" : ` (received ${problem.received})`;
  return `${problem.path || "<root>"}: ${problem.message}${received}`;
}

/** `["spec", "databases", 1, "name"]` → `spec.databases[1].name`. */
export function fieldPath(segments: readonly PropertyKey[], prefix = ""): string {
  let path = prefix;
  for (const segment of segments) {
    if (typeof segment === "number") path += `[${segment}]`;
    else path += path.length === 0 ? String(segment) : `.${String(segment)}`;
  }
  return path;
}

function render(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  let text: string;
  try {
    text = JSON.stringify(value);
  } catch {
    // A value that is no data (a cycle: a construct where a string belongs) is named, not dumped.
    text = String(value);
  }
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/** The nearest of `candidates` to `word` by edit distance, when it is close enough to be a likely typo. */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Math.max(2, Math.floor(word.length / 3)) + 1;
  for (const candidate of candidates) {
    const distance = editDistance(word.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0] ?? 0;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j] ?? 0;
      row[j] = Math.min(above + 1, (row[j - 1] ?? 0) + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return row[b.length] ?? 0;
}

type ZodDef = Record<string, unknown> & { type?: string };

function defOf(schema: unknown): ZodDef | undefined {
  return (schema as { _zod?: { def?: ZodDef } } | undefined)?._zod?.def;
}

/** Strips optional/default/pipe wrappers down to the object or array schema inside. */
function unwrap(schema: unknown): unknown {
  let current = schema;
  for (let def = defOf(current); def && def.type !== "object" && def.type !== "array"; def = defOf(current)) {
    const inner = def.innerType ?? def.in ?? def.schema;
    if (inner === undefined) return current;
    current = inner;
  }
  return current;
}

/** The keys an object schema accepts at `path`, for "did you mean" hints. */
function knownKeys(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  let current: unknown = unwrap(schema);
  for (const segment of path) {
    const def = defOf(current);
    if (def?.type === "array") current = unwrap(def.element);
    else if (def?.type === "object") current = unwrap((def.shape as Record<string, unknown>)[String(segment)]);
    else return [];
  }
  const def = defOf(current);
  return def?.type === "object" ? Object.keys(def.shape as object) : [];
}

type IssueOf<C extends z.core.$ZodIssue["code"]> = Extract<z.core.$ZodIssue, { code: C }>;

function boundProblem(issue: IssueOf<"too_small"> | IssueOf<"too_big">): string {
  const small = issue.code === "too_small";
  const comparison = small ? (issue.inclusive ? ">=" : ">") : issue.inclusive ? "<=" : "<";
  const measured = issue.origin === "string" ? "length " : issue.origin === "array" ? "number of items " : "";
  return `${measured}must be ${comparison} ${String(small ? issue.minimum : issue.maximum)}`;
}

function problemsOf(schema: z.ZodType, issue: z.core.$ZodIssue, prefix: string): FieldProblem[] {
  const path = fieldPath(issue.path, prefix);
  const rendered = render((issue as { input?: unknown }).input);
  const received = rendered === undefined ? {} : { received: rendered };
  switch (issue.code) {
    case "unrecognized_keys": {
      const known = knownKeys(schema, issue.path);
      return issue.keys.map((key) => {
        const suggestion = closest(key, known);
        const hint = suggestion ? `did you mean "${suggestion}"?` : `known fields: ${known.join(", ")}`;
        return { path: fieldPath([...issue.path, key], prefix), message: `unknown field; remove it (${hint})` };
      });
    }
    case "invalid_value":
      return [
        { path, message: `expected one of ${issue.values.map((v) => JSON.stringify(v)).join(", ")}`, ...received },
      ];
    case "invalid_type":
      return [
        {
          path,
          message: rendered === undefined ? `is required (expected ${issue.expected})` : `expected ${issue.expected}`,
          ...received,
        },
      ];
    case "too_small":
    case "too_big":
      return [{ path, message: boundProblem(issue), ...received }];
    case "custom":
      // Cross-field rules receive the whole object; their message names the fields and the remedy.
      return [{ path, message: issue.message }];
    default:
      return [{ path, message: issue.message, ...received }];
  }
}

/** A parse's outcome: the parsed value, or every problem with its field path. */
export type Checked<T> =
  | { readonly ok: true; readonly data: T }
  | { readonly ok: false; readonly problems: readonly FieldProblem[] };

/**
 * Parses `input` with `schema`, throwing nothing: the value, or every field at fault with what was
 * expected and received and what to write instead. `prefix` roots the paths (`spec`). For front ends
 * that report problems later, together (cdk8s synth).
 */
export function checkInput<S extends z.ZodType>(schema: S, input: unknown, prefix = ""): Checked<z.output<S>> {
  const result = schema.safeParse(input, { reportInput: true });
  if (result.success) return { ok: true, data: result.data };
  return { ok: false, problems: result.error.issues.flatMap((issue) => problemsOf(schema, issue, prefix)) };
}

/**
 * Parses `input` with `schema`; on failure throws a ValidationError naming every field at fault, what
 * was expected and received, and what to write instead. `prefix` roots the paths (`spec`).
 */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown, where: string, prefix = ""): z.output<S> {
  const checked = checkInput(schema, input, prefix);
  if (checked.ok) return checked.data;
  throw new ValidationError(where, checked.problems);
}
