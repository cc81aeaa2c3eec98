import * as pulumi from "@pulumi/pulumi";
import { API_GROUP_VERSION } from "../../lib/api/group.js";
import { parseInput, ValidationError } from "../../lib/api/validation.js";
import { parseChartSource } from "../../lib/catalog/chart-source.js";
import { resolveHelm } from "../../lib/cluster/helm-binary.js";
import { HelmCli } from "../../lib/cluster/helm-cli.js";
import { clusterAccess, kubeconfigContent } from "../../lib/cluster/kubeconfig-source.js";
import type { EngineResource, KindModule } from "../../lib/engine/kind-module.js";
import { previewDesired } from "../../lib/engine/preview.js";
import { createReconcileContext, type ReconcileContext } from "../../lib/reconcile/context.js";

/** Default time `pulumi up` waits for a resource to be Ready. */
export const DEFAULT_TIMEOUT_SECONDS = 600;

/** How every component of the product reaches its cluster. */
export interface ClusterArgs {
  /** Namespace of the resource. */
  readonly namespace: string;
  /** Name of the resource. @default the component's name */
  readonly name?: string;
  /**
   * The target cluster's kubeconfig: its content, or the path of a file holding it (read when the program
   * runs). Kept as a secret in the state, never a path. @default the ambient kubeconfig, found when the
   * provider runs: $KUBECONFIG, then ~/.kube/config
   */
  readonly kubeconfig?: string;
  /** Where capability charts come from: official, dir:PATH or oci://REGISTRY. @default official */
  readonly chartSource?: string;
  /** The helm v4 binary. @default `helm` on PATH, found when it runs */
  readonly helm?: string;
  /** How long `pulumi up` waits for Ready. @default 600 */
  readonly timeoutSeconds?: number;
}

/**
 * What a component hands its dynamic resource: the name and the spec parsed by the kind's schemas (a
 * bad one is a ResourceError naming every field; a name too long for what is named after it, too), the
 * kind, the cluster to reach and the waiting time. During `pulumi preview` it also prints, on the
 * component, every decision the engine makes for the desired resource (its members' too).
 */
export function dynamicInputs(
  component: pulumi.ComponentResource,
  module: KindModule,
  componentName: string,
  args: ClusterArgs,
  specInput: unknown,
) {
  const { kind } = module.definition;
  let spec: unknown;
  let name: string;
  try {
    name = parseInput(module.name, args.name ?? componentName, `${kind} ${componentName}`, "name");
    spec = parseInput(module.definition.spec, specInput, `${kind} ${componentName}`, "spec");
  } catch (error) {
    if (error instanceof ValidationError) throw new pulumi.ResourceError(error.message, component);
    throw error;
  }
  let kubeconfig: string | undefined;
  try {
    kubeconfig = args.kubeconfig === undefined ? undefined : kubeconfigContent(args.kubeconfig);
  } catch (error) {
    throw new pulumi.ResourceError(`${kind} ${componentName}: ${(error as Error).message}`, component);
  }
  if (pulumi.runtime.isDryRun()) {
    const desired = { apiVersion: API_GROUP_VERSION, kind, metadata: { name, namespace: args.namespace }, spec };
    void logPreview(component, { kubeconfig, helm: args.helm, chartSource: args.chartSource }, (context) =>
      previewDesired(context, module.schema.parse(desired) as EngineResource),
    );
  }
  return {
    kind,
    namespace: args.namespace,
    name,
    spec,
    ...(kubeconfig === undefined ? {} : { kubeconfig: pulumi.secret(kubeconfig) }),
    ...(args.helm === undefined ? {} : { helm: args.helm }),
    ...(args.chartSource ? { chartSource: args.chartSource } : {}),
    timeoutSeconds: args.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS,
  };
}

/**
 * During `pulumi preview`: observes the cluster and plans exactly as `up` and the operator would,
 * changing nothing, and prints each decision on the component — a licence refusal as a warning. A
 * cluster that cannot be reached is said so; the preview itself goes on.
 */
export async function logPreview(
  component: pulumi.Resource,
  cluster: {
    readonly kubeconfig?: string | undefined;
    readonly helm?: string | undefined;
    readonly chartSource?: string | undefined;
  },
  decide: (
    context: ReconcileContext,
  ) => Promise<{ readonly lines: readonly string[]; readonly refusal?: unknown; readonly notPermitted?: unknown }>,
): Promise<void> {
  try {
    const { client, kubeconfigFile } = clusterAccess(cluster.kubeconfig);
    const context = createReconcileContext({
      client,
      helm: new HelmCli({ binary: () => resolveHelm(cluster.helm), kubeconfig: kubeconfigFile }),
      source: parseChartSource(cluster.chartSource),
    });
    const decisions = await decide(context);
    const log = decisions.refusal || decisions.notPermitted ? pulumi.log.warn : pulumi.log.info;
    for (const line of decisions.lines) await log(line, component);
  } catch (error) {
    await pulumi.log.warn(
      `cannot preview decisions: ${error instanceof Error ? error.message : String(error)}`,
      component,
    );
  }
}
