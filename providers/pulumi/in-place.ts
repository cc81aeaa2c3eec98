import { canonicalJson } from "../../lib/api/canonical-json.js";
import { READY } from "../../lib/api/conditions.js";
import { API_GROUP_VERSION } from "../../lib/api/group.js";
import { plainGet } from "../../lib/cluster/plain-get.js";
import type { KindModule } from "../../lib/engine/kind-module.js";

interface Stored {
  readonly metadata?: { readonly generation?: number; readonly deletionTimestamp?: string };
  readonly spec?: unknown;
  readonly status?: {
    readonly conditions?: readonly {
      readonly type?: string;
      readonly status?: string;
      readonly observedGeneration?: number;
    }[];
  };
}

/**
 * Whether a resource is in place as the program declares it: its custom resource stores the same spec
 * (defaults written out, as `up` records it) and is Ready at its generation, not being deleted. Then a
 * preview has no decision to print — `up` would record the same object, and its dynamic resource reports
 * no change — and the preview's core (the Kubernetes client and the engine) is not loaded at all: one GET
 * through Node's own HTTP client (lib/cluster/plain-get.ts). False whenever that GET cannot say, and the
 * preview then observes and plans as usual.
 */
export async function inPlace(
  module: KindModule,
  kubeconfig: string | undefined,
  resource: { readonly name: string; readonly namespace: string; readonly spec: unknown },
): Promise<boolean> {
  const { plural } = module.definition;
  const path = `/apis/${API_GROUP_VERSION}/namespaces/${encodeURIComponent(resource.namespace)}/${plural}/${encodeURIComponent(resource.name)}`;
  const stored = (await plainGet(kubeconfig, path)) as Stored | undefined;
  if (!stored?.metadata || stored.metadata.deletionTimestamp) return false;
  const ready = stored.status?.conditions?.find((c) => c.type === READY);
  if (ready?.status !== "True" || ready.observedGeneration !== stored.metadata.generation) return false;
  const desired = module.definition.spec.safeParse(resource.spec);
  return desired.success && canonicalJson(desired.data) === canonicalJson(stored.spec);
}
