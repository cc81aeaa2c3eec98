import { existsSync } from "node:fs";
import { NaviqueOperator } from "../../providers/operator/operator.js";
import { parseChartSource } from "../catalog/chart-source.js";
import { HelmCli } from "../cluster/helm-cli.js";
import { KubeClient } from "../cluster/kube-client.js";
import { resolveClusterTarget } from "../cluster/target.js";
import { stderrReporter } from "../local-plane/progress.js";
import { toolchainPaths } from "../local-plane/toolchain-paths.js";

/** `navique operator`: runs until SIGINT/SIGTERM, then stops its watches and exits. */
export async function runOperator(options: {
  readonly kubeconfig: string | undefined;
  readonly chartSource: string | undefined;
  readonly resyncSeconds: number | undefined;
  readonly helm: string | undefined;
}): Promise<number> {
  const source = parseChartSource(options.chartSource);
  const target = await resolveClusterTarget({ kubeconfig: options.kubeconfig, report: stderrReporter });
  const helmBinary = options.helm ?? (await toolchainPaths()).helm;
  if (!existsSync(helmBinary)) {
    throw new Error(
      `helm not found at ${helmBinary}: pass --helm PATH, or build the toolchain with npm run toolchain -- build`,
    );
  }
  const operator = new NaviqueOperator({
    client: KubeClient.fromFile(target.kubeconfig),
    helm: new HelmCli({ binary: helmBinary, kubeconfig: target.kubeconfig }),
    source,
    ...(options.resyncSeconds ? { resyncMs: options.resyncSeconds * 1000 } : {}),
  });
  await operator.start();
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
  await operator.stop();
  stderrReporter("[operator] stopped");
  return 0;
}
