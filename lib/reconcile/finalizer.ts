import { API_GROUP, API_VERSION, FINALIZER } from "../api/group.js";
import { type KubeClient, statusOf } from "../cluster/kube-client.js";

/** A namespaced navique resource, as much of it as its finalizer needs. */
interface Finalizable {
  readonly metadata: {
    readonly name: string;
    readonly namespace: string;
    readonly finalizers?: readonly string[] | undefined;
    readonly deletionTimestamp?: string | undefined;
  };
}

async function patchFinalizers(
  client: KubeClient,
  plural: string,
  resource: Finalizable,
  patch: readonly object[],
): Promise<void> {
  await client.custom.patchNamespacedCustomObject(
    {
      group: API_GROUP,
      version: API_VERSION,
      plural,
      namespace: resource.metadata.namespace,
      name: resource.metadata.name,
      body: [...patch],
    },
    undefined,
  );
}

/** Ensures the product's finalizer, so that deletion always passes through the resource's own rules first. */
export async function ensureFinalizer(client: KubeClient, plural: string, resource: Finalizable): Promise<void> {
  const finalizers = resource.metadata.finalizers ?? [];
  if (resource.metadata.deletionTimestamp || finalizers.includes(FINALIZER)) return;
  // Appended, never the whole list rewritten: a finalizer another controller added meanwhile stays.
  await patchFinalizers(
    client,
    plural,
    resource,
    finalizers.length === 0
      ? [{ op: "add", path: "/metadata/finalizers", value: [FINALIZER] }]
      : [{ op: "add", path: "/metadata/finalizers/-", value: FINALIZER }],
  );
}

/**
 * Removes the product's finalizer only, by position, guarded by a `test` of that position: other
 * controllers (the garbage collector's foregroundDeletion, for one) may change the list meanwhile, and a
 * stale whole-list write would add back or drop theirs. A failed test means the next pass looks again.
 */
export async function removeFinalizer(client: KubeClient, plural: string, resource: Finalizable): Promise<void> {
  const index = (resource.metadata.finalizers ?? []).indexOf(FINALIZER);
  if (index < 0) return;
  const path = `/metadata/finalizers/${index}`;
  await patchFinalizers(client, plural, resource, [
    { op: "test", path, value: FINALIZER },
    { op: "remove", path },
  ]).catch((error: unknown) => {
    if (statusOf(error) !== 422) throw error;
  });
}
