import { NaviqueOperator } from "../../providers/operator/operator.js";
import { namespaceName } from "../api/refs.js";
import { parseInput } from "../api/validation.js";
import { parseChartSource } from "../catalog/chart-source.js";
import { HelmCli } from "../cluster/helm-cli.js";
import { KubeClient } from "../cluster/kube-client.js";
import { stderrReporter } from "../engine/reporter.js";
import { cliHelm } from "./helm-binary.js";
import { resolveClusterTarget } from "./target.js";

/** `--watch-namespaces a,b`: each a namespace name; empty (the chart's default) means every namespace. */
export function parseWatchNamespaces(flag: string | undefined): string[] | undefined {
  const names = (flag ?? "")
    .split(",")
    .map((n) => n.trim())
    .filter((n) => n.length > 0);
  if (names.length === 0) return undefined;
  return names.map((name, index) => parseInput(namespaceName, name, "--watch-namespaces", `[${index}]`));
}

/**
 * `navique operator`: runs until SIGINT/SIGTERM, then stops its watches, lets the reconcile under way
 * finish and returns. A second signal while it stops exits at once, as a second Ctrl-C is meant to.
 */
export async function runOperator(options: {
  readonly kubeconfig: string | undefined;
  readonly chartSource: string | undefined;
  readonly resyncSeconds: number | undefined;
  readonly helm: string | undefined;
  readonly watchNamespaces: readonly string[] | undefined;
}): Promise<number> {
  const source = parseChartSource(options.chartSource);
  const target = await resolveClusterTarget({ kubeconfig: options.kubeconfig, report: stderrReporter });
  const helmBinary = await cliHelm(options.helm);
  const operator = new NaviqueOperator({
    client: KubeClient.fromFile(target.kubeconfig),
    helm: new HelmCli({ binary: helmBinary, kubeconfig: target.kubeconfig }),
    source,
    ...(options.resyncSeconds ? { resyncMs: options.resyncSeconds * 1000 } : {}),
    ...(options.watchNamespaces ? { watchNamespaces: options.watchNamespaces } : {}),
  });
  await operator.start();
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
  const again = () => {
    stderrReporter("[operator] stopped by a second signal before its reconcile finished");
    process.exit(1);
  };
  process.once("SIGINT", again);
  process.once("SIGTERM", again);
  await operator.stop();
  stderrReporter("[operator] stopped");
  return 0;
}
