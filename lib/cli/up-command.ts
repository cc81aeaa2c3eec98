import { CoreV1Api, KubeConfig, VersionApi } from "@kubernetes/client-node";
import { nodeReadiness } from "../cluster/node-readiness.js";
import { PLAN_EXIT_CODES } from "../engine/plan-run.js";
import { stderrReporter } from "../reporter.js";
import { preparedHelm } from "./helm-binary.js";
import { runPlan } from "./plan-command.js";
import { resolveClusterTarget } from "./target.js";

/**
 * `navique up`: prepares the target cluster (the built-in local control plane when none is configured),
 * reports it and, with paths, prints the decisions their resources would get there, changing nothing. It
 * builds what it runs: the plane's binaries when it starts the plane, helm when none is installed.
 * Exits 0 — changes planned or not: preparing and showing is its job, not gating —, or 1 when no node
 * is Ready, or the plan finds a resource refused or stalled or an input it cannot judge.
 */
export async function runUp(kubeconfigFlag: string | undefined, paths: readonly string[]): Promise<number> {
  const target = await resolveClusterTarget({ kubeconfig: kubeconfigFlag, report: stderrReporter });
  const kubeconfig = new KubeConfig();
  kubeconfig.loadFromFile(target.kubeconfig);
  const version = await kubeconfig.makeApiClient(VersionApi).getCode();
  const nodes = await nodeReadiness(kubeconfig.makeApiClient(CoreV1Api));
  process.stdout.write(
    [
      `cluster: ${kubeconfig.getCurrentCluster()?.server ?? "?"} (${target.source}, kubeconfig ${target.kubeconfig})`,
      `kubernetes: ${version.gitVersion}`,
      `nodes: ${nodes.ready}/${nodes.total} Ready`,
      "",
    ].join("\n"),
  );
  if (nodes.ready === 0) return 1;
  if (paths.length === 0) return 0;
  // The plan reads releases through helm: on a machine without one, the toolchain's is built first.
  await preparedHelm(undefined);
  process.stdout.write(`\ndecisions for ${paths.join(", ")} against this cluster:\n`);
  const code = await runPlan({ paths, kubeconfig: target.kubeconfig, chartSource: process.env.NAVIQUE_CHART_SOURCE });
  return code === PLAN_EXIT_CODES.failed ? 1 : 0;
}
