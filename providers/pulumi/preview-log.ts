import * as pulumi from "@pulumi/pulumi";
import { parseChartSource } from "../../lib/catalog/chart-source.js";
import { resolveHelm } from "../../lib/cluster/helm-binary.js";
import { HelmCli } from "../../lib/cluster/helm-cli.js";
import { clusterAccess } from "../../lib/cluster/kubeconfig-source.js";
import { moduleOf } from "../../lib/engine/context.js";
import type { EngineResource } from "../../lib/engine/kind-module.js";
import { type DeclaredNamespace, type ObjectName, previewDesired } from "../../lib/engine/preview.js";
import { createReconcileContext } from "../../lib/reconcile/context.js";

/**
 * During `pulumi preview` (and the preview phase of `up`): observes the cluster and plans `resource`
 * exactly as `up` and the operator would, changing nothing, and prints each decision on the component —
 * as warnings when `up` would stop on a cause waiting cannot clear (a licence refusal, a missing grant, a
 * name taken …), and when `up` would run helm and there is none to run. Nothing is said of a resource in
 * place. `createdFirst`: objects the program creates in this run before the resource (what it depends
 * on): not reported missing. `declaredNamespaces`: the component's namespace when it is a Namespace
 * resource of the program, which `pulumi destroy` deletes after it: what deletionPolicy Retain would keep
 * there is warned of. A cluster that cannot be reached is said so; the preview itself goes on. Loaded in a
 * preview only; the package ships this file bundled with what it imports (package.json `build`, ADR
 * 0018): a preview then loads one file, not the Kubernetes client's modules one by one.
 */
export async function logPreview(
  component: pulumi.Resource,
  cluster: {
    readonly kubeconfig?: string | undefined;
    readonly helm?: string | undefined;
    readonly chartSource?: string | undefined;
  },
  resource: { readonly kind: string } & Record<string, unknown>,
  createdFirst: readonly ObjectName[] = [],
  declaredNamespaces: readonly DeclaredNamespace[] = [],
): Promise<void> {
  try {
    const { client, kubeconfigFile } = clusterAccess(cluster.kubeconfig);
    const context = createReconcileContext({
      client,
      helm: new HelmCli({ binary: () => resolveHelm(cluster.helm), kubeconfig: kubeconfigFile }),
      source: parseChartSource(cluster.chartSource),
    });
    const module = moduleOf(context, resource.kind);
    const decisions = await previewDesired(context, module.schema.parse(resource) as EngineResource, {
      createdFirst,
      declaredNamespaces,
    });
    const log = decisions.stalled ? pulumi.log.warn : pulumi.log.info;
    for (const line of decisions.lines) await log(line, component);
    for (const warning of decisions.warnings ?? []) await pulumi.log.warn(warning, component);
    if (decisions.helmFor.length > 0) {
      try {
        resolveHelm(cluster.helm);
      } catch (error) {
        // Said now, not only when `up` gets to the install.
        const { metadata } = resource as { metadata?: { namespace?: string; name?: string } };
        const where = `${resource.kind} ${metadata?.namespace}/${metadata?.name}`;
        await pulumi.log.warn(
          `${where}: \`pulumi up\` would run helm for ${decisions.helmFor.join(" and ")}: ${(error as Error).message}`,
          component,
        );
      }
    }
  } catch (error) {
    await pulumi.log.warn(
      `cannot preview decisions: ${error instanceof Error ? error.message : String(error)}`,
      component,
    );
  }
}
