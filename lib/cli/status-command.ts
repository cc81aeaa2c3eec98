import { KubeClient } from "../cluster/kube-client.js";
import { stderrReporter } from "../reporter.js";
import { statusExitCode } from "../reports/status-report.js";
import { readStatus } from "../status/read-status.js";
import { trustedKeys } from "./license-command.js";
import { type OutputFormat, writeJson } from "./output-format.js";
import { statusText } from "./status-text.js";
import { resolveClusterTarget } from "./target.js";

/** What `navique status` and `navique doctor` read the cluster with. */
export interface ClusterReadOptions {
  readonly kubeconfig: string | undefined;
  readonly trust: readonly string[];
  readonly output: OutputFormat;
}

/**
 * The client a report reads the cluster with: each thing read once (lib/cluster/read-once.ts), so that
 * every part of the report stands on one reading, and the caps' count and the listing share their lists.
 */
export async function reportClient(kubeconfig: string | undefined): Promise<KubeClient> {
  const target = await resolveClusterTarget({ kubeconfig, report: stderrReporter });
  return KubeClient.fromFile(target.kubeconfig, { readOnce: true });
}

/**
 * `navique status`: the cluster read, changing nothing (lib/status/read-status.ts), printed as text or as
 * one StatusReport; exits 0 when every resource reported is Ready, 1 otherwise.
 */
export async function runStatus(
  options: ClusterReadOptions & { readonly namespace: string | undefined },
): Promise<number> {
  const client = await reportClient(options.kubeconfig);
  const report = await readStatus(client, {
    now: new Date(),
    trustedKeys: await trustedKeys(options.trust),
    ...(options.namespace ? { namespace: options.namespace } : {}),
  });
  if (options.output === "json") writeJson(report);
  else process.stdout.write(`${statusText(report)}\n`);
  return statusExitCode(report);
}
