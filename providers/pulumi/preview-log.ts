import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { parseChartSource } from "../../lib/catalog/chart-source.js";
import { HelmCli } from "../../lib/cluster/helm-cli.js";
import { KubeClient } from "../../lib/cluster/kube-client.js";
import { createReconcileContext } from "../../lib/reconcile/context.js";
import type { ReconcileContext } from "../../lib/reconcile/postgres-cluster.js";

/** $KUBECONFIG, then ~/.kube/config: where a component looks for its cluster unless told. */
export function defaultKubeconfig(): string {
  if (process.env.KUBECONFIG) return process.env.KUBECONFIG;
  return join(homedir(), ".kube", "config");
}

/**
 * During `pulumi preview`: observes the cluster and plans exactly as `up` and the operator would,
 * changing nothing, and prints each decision on the component — a licence refusal as a warning. A
 * cluster that cannot be reached is said so; the preview itself goes on.
 */
export async function logPreview(
  component: pulumi.Resource,
  cluster: { readonly kubeconfig: string; readonly helm: string; readonly chartSource?: string | undefined },
  decide: (context: ReconcileContext) => Promise<{ readonly lines: readonly string[]; readonly refusal?: unknown }>,
): Promise<void> {
  if (!existsSync(cluster.kubeconfig)) {
    await pulumi.log.warn(`cannot preview decisions: kubeconfig ${cluster.kubeconfig} does not exist`, component);
    return;
  }
  try {
    const context = createReconcileContext({
      client: KubeClient.fromFile(cluster.kubeconfig),
      helm: new HelmCli({ binary: cluster.helm, kubeconfig: cluster.kubeconfig }),
      source: parseChartSource(cluster.chartSource),
    });
    const decisions = await decide(context);
    const log = decisions.refusal ? pulumi.log.warn : pulumi.log.info;
    for (const line of decisions.lines) await log(line, component);
  } catch (error) {
    await pulumi.log.warn(
      `cannot preview decisions: ${error instanceof Error ? error.message : String(error)}`,
      component,
    );
  }
}
