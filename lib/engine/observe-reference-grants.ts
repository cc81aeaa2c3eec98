import { API_GROUP, API_VERSION } from "../api/group.js";
import { REFERENCE_GRANT_PLURAL, StoredReferenceGrant } from "../api/reference-grant.js";
import { type KubeClient, statusOf } from "../cluster/kube-client.js";
import type { ObservedGrant } from "./reference-grants.js";

/**
 * The ReferenceGrants of a namespace as stored, from a watch cache kept current (the operator's), or
 * undefined when no complete cache holds that namespace: then they are listed.
 */
export type CachedGrants = (namespace: string) => readonly unknown[] | undefined;

/**
 * The grants parsed from each object a cache holds, by the object itself: a cache keeps an object until
 * it changes, and replaces it then, so each is parsed once however many passes read it.
 */
const parsedGrants = new WeakMap<object, ObservedGrant | null>();

/**
 * A grant of `namespace` as any stored grant is read (StoredReferenceGrant: one written before the rules
 * of a new grant still grants what it names); null for what is no grant at all, which grants nothing.
 */
function grantOf(item: unknown, namespace: string): ObservedGrant | null {
  const parsed = StoredReferenceGrant.safeParse(item);
  return parsed.success ? { namespace, spec: parsed.data.spec } : null;
}

/** The grants of a namespace a cache holds, each parsed once. */
function fromCache(items: readonly unknown[], namespace: string): ObservedGrant[] {
  return items.flatMap((item) => {
    if (item === null || typeof item !== "object") return [];
    let grant = parsedGrants.get(item);
    if (grant === undefined) {
      grant = grantOf(item, namespace);
      parsedGrants.set(item, grant);
    }
    return grant ? [grant] : [];
  });
}

/** The grants of a namespace, listed: before the CRD exists there are none. */
async function listed(client: KubeClient, namespace: string): Promise<ObservedGrant[]> {
  try {
    const list = (await client.custom.listNamespacedCustomObject({
      group: API_GROUP,
      version: API_VERSION,
      plural: REFERENCE_GRANT_PLURAL,
      namespace,
    })) as { items?: unknown[] };
    return (list.items ?? []).flatMap((item) => {
      const grant = grantOf(item, namespace);
      return grant ? [grant] : [];
    });
  } catch (error) {
    if (statusOf(error) === 404) return [];
    throw error;
  }
}

/**
 * The ReferenceGrants of the given namespaces: from `cached` for each namespace a complete watch cache
 * holds (no request), else one list request per namespace, never a cluster-wide list. A grant the
 * schema refuses grants nothing.
 */
export async function observeReferenceGrants(
  client: KubeClient,
  namespaces: readonly string[],
  cached?: CachedGrants,
): Promise<ObservedGrant[]> {
  const lists = await Promise.all(
    namespaces.map(async (namespace) => {
      const held = cached?.(namespace);
      return held ? fromCache(held, namespace) : listed(client, namespace);
    }),
  );
  return lists.flat();
}
