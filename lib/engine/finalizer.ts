import { API_GROUP, API_VERSION, FINALIZER } from "../api/group.js";
import { type KubeClient, orUndefined, statusOf } from "../cluster/kube-client.js";

/** A namespaced navique resource, as much of it as its finalizer needs. */
interface Finalizable {
  readonly metadata: {
    readonly name: string;
    readonly namespace: string;
    readonly finalizers?: readonly string[] | undefined;
    readonly deletionTimestamp?: string | undefined;
  };
}

/**
 * Patches the finalizer list. A resource that is gone (404) needs no finalizer work any more: another
 * front end or the operator finalized and removed it meanwhile (a `pulumi destroy` beside a running
 * operator does exactly that), so its absence is the goal reached, never a failure. Resolves to false
 * then, so that a caller can stop working for a resource that no longer exists.
 */
async function patchFinalizers(
  client: KubeClient,
  plural: string,
  resource: Finalizable,
  patch: readonly object[],
): Promise<boolean> {
  return client.custom
    .patchNamespacedCustomObject(
      {
        group: API_GROUP,
        version: API_VERSION,
        plural,
        namespace: resource.metadata.namespace,
        name: resource.metadata.name,
        body: [...patch],
      },
      undefined,
    )
    .then(
      () => true,
      (error: unknown) => {
        if (statusOf(error) === 404) return false;
        throw error;
      },
    );
}

/** Attempts at creating the finalizer list before a conflict is left to the caller's retry. */
const LIST_CREATION_ATTEMPTS = 3;

/**
 * Ensures the product's finalizer, so that deletion always passes through the resource's own rules first.
 * Resolves to false when the resource is gone (see patchFinalizers), true otherwise. Appended to a list
 * there is; a list that is not there yet is created whole, conditional on the resourceVersion read: a
 * finalizer another controller added since would otherwise be replaced. On that conflict (409) the
 * resource is read again and the finalizer appended to what is there now.
 */
export async function ensureFinalizer(
  client: KubeClient,
  plural: string,
  resource: Finalizable & { readonly metadata: { readonly resourceVersion?: string | undefined } },
  attempt = 1,
): Promise<boolean> {
  const finalizers = resource.metadata.finalizers ?? [];
  if (resource.metadata.deletionTimestamp || finalizers.includes(FINALIZER)) return true;
  if (finalizers.length > 0) {
    return patchFinalizers(client, plural, resource, [{ op: "add", path: "/metadata/finalizers/-", value: FINALIZER }]);
  }
  const { resourceVersion } = resource.metadata;
  try {
    return await patchFinalizers(client, plural, resource, [
      ...(resourceVersion ? [{ op: "replace", path: "/metadata/resourceVersion", value: resourceVersion }] : []),
      { op: "add", path: "/metadata/finalizers", value: [FINALIZER] },
    ]);
  } catch (error) {
    if (statusOf(error) !== 409 || attempt >= LIST_CREATION_ATTEMPTS) throw error;
    const current = (await orUndefined(
      client.custom.getNamespacedCustomObject({
        group: API_GROUP,
        version: API_VERSION,
        plural,
        namespace: resource.metadata.namespace,
        name: resource.metadata.name,
      }),
    )) as (Finalizable & { readonly metadata: { readonly resourceVersion?: string } }) | undefined;
    return current ? ensureFinalizer(client, plural, current, attempt + 1) : false;
  }
}

/**
 * Removes the product's finalizer only, by position, guarded by a `test` of that position: other
 * controllers (the garbage collector's foregroundDeletion, for one) may change the list meanwhile, and a
 * stale whole-list write would add back or drop theirs. A failed test (422) means the next pass looks
 * again; a resource gone meanwhile (404: someone else removed the last finalizer) is done.
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
