import { API_GROUP, API_VERSION } from "../../lib/api/group.js";
import { type KubeClient, orUndefined, statusOf } from "../../lib/cluster/kube-client.js";
import type { KindModule } from "../../lib/engine/kind-module.js";

/** What Kubernetes itself puts in every namespace: not the user's, and no reason to keep one. */
const EVERY_NAMESPACE_HOLDS = new Set(["ConfigMap/kube-root-ca.crt"]);

/** `Kind namespace/name` of every listed item, but what every namespace holds. */
function named(kind: string, namespace: string, items: readonly { metadata?: { name?: string } }[]): string[] {
  return items
    .map((item) => item.metadata?.name ?? "")
    .filter((name) => !EVERY_NAMESPACE_HOLDS.has(`${kind}/${name}`))
    .map((name) => `${kind} ${namespace}/${name}`);
}

/**
 * What a namespace still holds that someone may want: the product's resources of every kind, the
 * objects any kind emits (a retained CNPG Cluster, a Redis and their data), and the core objects a user
 * or a workload keeps there (Secrets, ConfigMaps, Services, PersistentVolumeClaims, Pods). A kind whose
 * API is not served counts as holding nothing.
 */
export async function heldIn(
  client: KubeClient,
  registry: readonly KindModule[],
  namespace: string,
): Promise<string[]> {
  const custom = [
    ...registry.map((m) => ({
      apiVersion: `${API_GROUP}/${API_VERSION}`,
      kind: m.definition.kind,
      plural: m.definition.plural,
    })),
    ...registry
      .flatMap((m) => m.emits)
      .filter((e) => e.apiVersion.includes("/"))
      .map((e) => ({ apiVersion: e.apiVersion, kind: e.label ?? e.kind, plural: e.plural })),
  ];
  const unique = [...new Map(custom.map((c) => [`${c.apiVersion}/${c.plural}`, c])).values()];
  const lists = await Promise.all([
    ...unique.map(async ({ apiVersion, kind, plural }) => {
      const [group = "", version = ""] = apiVersion.split("/");
      const list = (await client.custom
        .listNamespacedCustomObject({ group, version, namespace, plural })
        .catch((error: unknown) => {
          if (statusOf(error) === 404) return { items: [] };
          throw error;
        })) as { items?: { metadata?: { name?: string } }[] };
      return named(kind, namespace, list.items ?? []);
    }),
    client.core.listNamespacedSecret({ namespace }).then((l) =>
      named(
        "Secret",
        namespace,
        l.items.filter((s) => s.type !== "kubernetes.io/service-account-token"),
      ),
    ),
    client.core.listNamespacedConfigMap({ namespace }).then((l) => named("ConfigMap", namespace, l.items)),
    client.core.listNamespacedService({ namespace }).then((l) => named("Service", namespace, l.items)),
    client.core
      .listNamespacedPersistentVolumeClaim({ namespace })
      .then((l) => named("PersistentVolumeClaim", namespace, l.items)),
    client.core.listNamespacedPod({ namespace }).then((l) => named("Pod", namespace, l.items)),
  ]);
  return lists.flat();
}

/**
 * After a destroy: the namespace the resource's create made (its state records that it did) is deleted
 * when nothing is left in it that someone may want; otherwise it is left, and the answer says what holds
 * it. A namespace the resource did not create is never deleted: it is not called for one.
 */
export async function removeCreatedNamespace(
  client: KubeClient,
  registry: readonly KindModule[],
  namespace: string,
): Promise<string> {
  const held = await heldIn(client, registry, namespace);
  if (held.length > 0) {
    const shown = held.length > 5 ? `${held.slice(0, 5).join(", ")} and ${held.length - 5} more` : held.join(", ");
    return `namespace ${namespace}, which its create made, is left: it still holds ${shown}`;
  }
  await orUndefined(client.core.deleteNamespace({ name: namespace }));
  return `namespace ${namespace}, which its create made, deleted`;
}
