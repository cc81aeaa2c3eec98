import * as pulumi from "@pulumi/pulumi";
import { parseChartSource } from "../../lib/catalog/chart-source.js";
import { resolveHelm } from "../../lib/cluster/helm-binary.js";
import { HelmCli } from "../../lib/cluster/helm-cli.js";
import { clusterAccess } from "../../lib/cluster/kubeconfig-source.js";
import { createReconcileContext, type ReconcileContext } from "../../lib/reconcile/context.js";

/**
 * During `pulumi preview`: observes the cluster and plans exactly as `up` and the operator would,
 * changing nothing, and prints each decision on the component — as warnings when `up` would stop on a
 * cause waiting cannot clear (a licence refusal, a missing grant, a name taken …). A
 * cluster that cannot be reached is said so; the preview itself goes on.
 */
export async function logPreview(
  component: pulumi.Resource,
  cluster: {
    readonly kubeconfig?: string | undefined;
    readonly helm?: string | undefined;
    readonly chartSource?: string | undefined;
  },
  decide: (context: ReconcileContext) => Promise<{ readonly lines: readonly string[]; readonly stalled?: unknown }>,
): Promise<void> {
  try {
    const { client, kubeconfigFile } = clusterAccess(cluster.kubeconfig);
    const context = createReconcileContext({
      client,
      helm: new HelmCli({ binary: () => resolveHelm(cluster.helm), kubeconfig: kubeconfigFile }),
      source: parseChartSource(cluster.chartSource),
    });
    const decisions = await decide(context);
    const log = decisions.stalled ? pulumi.log.warn : pulumi.log.info;
    for (const line of decisions.lines) await log(line, component);
  } catch (error) {
    await pulumi.log.warn(
      `cannot preview decisions: ${error instanceof Error ? error.message : String(error)}`,
      component,
    );
  }
}
