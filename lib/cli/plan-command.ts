import { parseChartSource } from "../catalog/chart-source.js";
import { HelmCli } from "../cluster/helm-cli.js";
import { readPlanInputs } from "../engine/plan-inputs.js";
import {
  type PlanExitCode,
  type PlanRun,
  planClient,
  planExitCode,
  planInputs,
  type ResourcePlan,
} from "../engine/plan-run.js";
import { REGISTRY } from "../kinds/registry.js";
import { createReconcileContext } from "../reconcile/context.js";
import { stderrReporter } from "../reporter.js";
import { PLAN_REPORT_VERSION, type PlannedResource, type PlanReport } from "../reports/plan-report.js";
import { cliHelm } from "./helm-binary.js";
import { trustedKeys } from "./license-command.js";
import { type OutputFormat, writeJson } from "./output-format.js";
import { resolveClusterTarget } from "./target.js";

/** One line for the end of a run, on stderr: what was found, and the exit code it makes. */
function summary(run: PlanRun, problems: number, code: PlanExitCode): string {
  const all = [...(run.licence ? [run.licence] : []), ...run.resources];
  const count = (outcome: string) => all.filter((r) => r.outcome === outcome).length;
  return `plan: ${all.length} judged: ${count("changes")} to change, ${count("in-place")} in place, ${count("waiting")} waiting, ${count("refused")} refused, ${count("stalled")} stalled; ${problems} input(s) not judged; exit ${code} (docs/plan.md)`;
}

/** A resource's plan as the JSON report holds it. */
function planned(plan: ResourcePlan): PlannedResource {
  return { subject: plan.subject, where: plan.where, outcome: plan.outcome, lines: [...plan.lines] };
}

/**
 * `navique plan PATH...`: for every resource of a registered kind in the files and directories given
 * (e.g. cdk8s synth output), the decisions a reconcile would make against the cluster — the same lines
 * `pulumi preview` prints, none for what is in place —, and an exit code a CI job can gate on. The
 * grants and the licence declared with them count as applied. Changes nothing. With `output: "json"`,
 * stdout is one PlanReport instead of the lines; stderr says the same either way.
 */
export async function runPlan(options: {
  readonly paths: readonly string[];
  readonly kubeconfig: string | undefined;
  readonly chartSource: string | undefined;
  readonly trust?: readonly string[];
  /** @default "text" */
  readonly output?: OutputFormat;
}): Promise<PlanExitCode> {
  if (options.paths.length === 0) {
    const kinds = REGISTRY.kinds.map((m) => m.definition.kind);
    throw new Error(
      `plan needs at least one path (-f FILE, or files and directories after plan): YAML holding ${kinds.join(", ")} resources (e.g. cdk8s synth output)`,
    );
  }
  // Judged before the cluster is touched; every problem is said, and the rest is planned all the same.
  const inputs = await readPlanInputs(options.paths, REGISTRY);
  for (const line of [...inputs.notes, ...inputs.problems]) process.stderr.write(`${line}\n`);
  let run: PlanRun = { resources: [], notes: [] };
  if (inputs.resources.length > 0 || inputs.licence) {
    const target = await resolveClusterTarget({ kubeconfig: options.kubeconfig, report: stderrReporter });
    const client = planClient(target.kubeconfig);
    const context = createReconcileContext({
      client,
      helm: new HelmCli({ binary: await cliHelm(undefined), kubeconfig: target.kubeconfig }),
      source: parseChartSource(options.chartSource),
      trustedKeys: await trustedKeys(options.trust),
    });
    run = await planInputs(context, REGISTRY, inputs);
  }
  const code = planExitCode(run, inputs);
  if (options.output === "json") {
    const report: PlanReport = {
      version: PLAN_REPORT_VERSION,
      exitCode: code,
      ...(run.licence ? { licence: planned(run.licence) } : {}),
      resources: run.resources.map(planned),
      problems: [...inputs.problems],
      notes: [...inputs.notes, ...run.notes],
    };
    writeJson(report);
  } else {
    for (const plan of [...(run.licence ? [run.licence] : []), ...run.resources])
      for (const line of plan.lines) process.stdout.write(`${line}\n`);
  }
  for (const note of run.notes) process.stderr.write(`${note}\n`);
  process.stderr.write(`${summary(run, inputs.problems.length, code)}\n`);
  return code;
}
