import { API_GROUP, API_VERSION } from "../api/group.js";
import { REFERENCE_GRANT_PLURAL, ReferenceGrant } from "../api/reference-grant.js";
import { type KubeClient, statusOf } from "../cluster/kube-client.js";
import type { ObservedGrant } from "./reference-grants.js";

/**
 * The ReferenceGrants of the given namespaces: one list request per namespace, never a cluster-wide
 * list. A grant the schema refuses grants nothing; before the CRD exists there are none.
 */
export async function observeReferenceGrants(
  client: KubeClient,
  namespaces: readonly string[],
): Promise<ObservedGrant[]> {
  const lists = await Promise.all(
    namespaces.map(async (namespace) => {
      try {
        const list = (await client.custom.listNamespacedCustomObject({
          group: API_GROUP,
          version: API_VERSION,
          plural: REFERENCE_GRANT_PLURAL,
          namespace,
        })) as { items?: unknown[] };
        return (list.items ?? []).flatMap((item) => {
          const parsed = ReferenceGrant.safeParse(item);
          return parsed.success ? [{ namespace, spec: parsed.data.spec }] : [];
        });
      } catch (error) {
        if (statusOf(error) === 404) return [];
        throw error;
      }
    }),
  );
  return lists.flat();
}
