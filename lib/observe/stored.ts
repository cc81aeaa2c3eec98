import type * as z from "zod";
import { API_GROUP, API_VERSION } from "../api/group.js";
import { type KubeClient, orUndefined, statusOf } from "../cluster/kube-client.js";

/**
 * Every resource of one of the product's namespaced kinds, parsed: reference counts and caps come from
 * here, never from memory. One the schema refuses is reported by its own reconcile and skipped here; a
 * kind not served yet (its CRD not applied) has none.
 */
export async function listStored<T>(client: KubeClient, plural: string, schema: z.ZodType<T>): Promise<T[]> {
  try {
    const list = (await client.custom.listClusterCustomObject({ group: API_GROUP, version: API_VERSION, plural })) as {
      items?: unknown[];
    };
    return (list.items ?? []).flatMap((item) => {
      const parsed = schema.safeParse(item);
      return parsed.success ? [parsed.data] : [];
    });
  } catch (error) {
    if (statusOf(error) === 404) return [];
    throw error;
  }
}

/** One stored resource, parsed by the schema (which throws on an invalid one); undefined when absent. */
export async function readStored<T>(
  client: KubeClient,
  plural: string,
  schema: z.ZodType<T>,
  namespace: string,
  name: string,
): Promise<T | undefined> {
  const raw = await orUndefined(
    client.custom.getNamespacedCustomObject({ group: API_GROUP, version: API_VERSION, plural, namespace, name }),
  );
  return raw === undefined ? undefined : schema.parse(raw);
}
