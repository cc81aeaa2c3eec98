import { App, Chart } from "cdk8s";
import type { IConstruct } from "constructs";

/**
 * The lines of the one error cdk8s's App throws at synth (`Validation failed with the following
 * errors:`, then one `[path] problem` per line), for the app of `scope`; fails when synth succeeds or
 * throws anything else.
 */
export function synthProblems(scope: IConstruct): string[] {
  const app = App.of(scope) as App;
  let message: string | undefined;
  try {
    app.synthYaml();
  } catch (error) {
    message = (error as Error).message;
  }
  if (message === undefined)
    throw new Error(`synth of ${Chart.isChart(scope) ? "the chart's app" : "the app"} succeeded`);
  const [heading, ...lines] = message.split("\n  ");
  if (heading !== "Validation failed with the following errors:") throw new Error(`not a validation error: ${message}`);
  return lines;
}
