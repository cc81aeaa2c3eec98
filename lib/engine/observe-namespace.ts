import { type KubeClient, orUndefined } from "../cluster/kube-client.js";
import type { EngineResource, KindModule } from "./kind-module.js";
import type { ObservedNamespace, VolumeClaim } from "./retained-with-namespace.js";

/**
 * The namespace of a resource being deleted whose kind may keep data (a stateful emitted kind): whether
 * it is being deleted too, and then the claims of the volumes in it, which go with it
 * (lib/engine/retained-with-namespace.ts). Nothing is read for a resource not being deleted, nor for a
 * kind that keeps nothing: one GET per deletion pass, one list more while the namespace goes. Undefined
 * when the namespace cannot be read (gone, or not readable): nothing is said then rather than a guess.
 */
export async function observeNamespace(
  client: KubeClient,
  module: Pick<KindModule, "emits">,
  resource: EngineResource,
): Promise<ObservedNamespace | undefined> {
  if (!resource.metadata.deletionTimestamp || !module.emits.some((e) => e.stateful)) return undefined;
  const name = resource.metadata.namespace;
  const namespace = await orUndefined(client.core.readNamespace({ name })).catch(() => undefined);
  if (!namespace) return undefined;
  const terminating = namespace.status?.phase === "Terminating" || namespace.metadata?.deletionTimestamp !== undefined;
  if (!terminating) return { name, terminating, volumeClaims: [] };
  const claims = await client.core
    .listNamespacedPersistentVolumeClaim({ namespace: name })
    .then((list) => list.items)
    .catch(() => []);
  const volumeClaims = claims
    .map((c): VolumeClaim => {
      const volume = c.spec?.volumeName;
      return { name: c.metadata?.name ?? "", ...(volume ? { volume } : {}) };
    })
    .sort((a, b) => a.name.localeCompare(b.name));
  return { name, terminating, volumeClaims };
}
