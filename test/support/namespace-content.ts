import type { KubeClient } from "../../lib/cluster/kube-client.js";
import { statusOf } from "../../lib/cluster/kube-client.js";
import type { ReconcileContext } from "../../lib/engine/context.js";
import { createTestNamespace, eventually } from "./cluster.js";
import { finalizeEveryKind } from "./resources.js";

/**
 * Why tests empty namespaces instead of waiting for their deletion: kube-controller-manager's namespace
 * controller starts on a deleted namespace only after a fixed grace period of 5 s
 * (`namespaceDeletionGracePeriod`, pkg/controller/namespace/namespace_controller.go), so every "delete
 * and wait until gone" costs at least that. What the next test can observe is the namespace's content;
 * deleting that directly, every served namespaced type at once, takes a fraction of a second.
 */
const AGGREGATED_DISCOVERY = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";

interface DiscoveredResource {
  readonly resource?: string;
  readonly scope?: "Namespaced" | "Cluster";
  readonly verbs?: readonly string[];
  readonly responseKind?: { readonly kind?: string };
}

interface DiscoveryDocument {
  readonly items?: readonly {
    readonly metadata?: { readonly name?: string };
    readonly versions?: readonly { readonly version?: string; readonly resources?: readonly DiscoveredResource[] }[];
  }[];
}

interface NamespacedType {
  readonly apiVersion: string;
  readonly kind: string;
  /** The collection's path without the namespace segment filled in. */
  readonly path: (namespace: string) => string;
}

/**
 * Objects the cluster's own controllers put into every namespace (the `default` ServiceAccount, the
 * root CA bundle) and records they keep writing (Events): they are recreated at once and say nothing
 * about what a test left behind.
 */
const RECREATED_BY_THE_CLUSTER = new Set(["ServiceAccount/default", "ConfigMap/kube-root-ca.crt"]);
const NOT_CONTENT = new Set(["Event"]);

/** The collection of a discovered resource, when it is namespaced content that can be listed and deleted. */
function collectionOf(group: string, version: string, resource: DiscoveredResource): NamespacedType | undefined {
  const kind = resource.responseKind?.kind;
  const verbs = resource.verbs ?? [];
  if (resource.scope !== "Namespaced" || !kind || NOT_CONTENT.has(kind)) return undefined;
  if (!verbs.includes("list") || !verbs.includes("delete")) return undefined;
  const apiVersion = group ? `${group}/${version}` : version;
  const prefix = group ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
  return { apiVersion, kind, path: (namespace) => `${prefix}/namespaces/${namespace}/${resource.resource}` };
}

async function namespacedTypes(client: KubeClient): Promise<NamespacedType[]> {
  const types: NamespacedType[] = [];
  for (const root of ["/api", "/apis"]) {
    const document = JSON.parse((await client.get(root, AGGREGATED_DISCOVERY)).body) as DiscoveryDocument;
    for (const group of document.items ?? []) {
      // Versions come in the group's order of preference; a resource is listed once, through the first
      // version that serves it.
      const served = (group.versions ?? []).flatMap((version) =>
        (version.resources ?? []).map((resource) => ({ version: version.version ?? "", resource })),
      );
      const seen = new Set<string>();
      for (const { version, resource } of served) {
        if (!resource.resource || seen.has(resource.resource)) continue;
        seen.add(resource.resource);
        const type = collectionOf(group.metadata?.name ?? "", version, resource);
        if (type) types.push(type);
      }
    }
  }
  return types;
}

async function remaining(client: KubeClient, types: readonly NamespacedType[], namespace: string) {
  const lists = await Promise.all(
    types.map(async (type) => {
      const answer = await client.get(type.path(namespace), "application/json").catch((error: unknown) => {
        // A type whose CRD went away since discovery, or a namespace already gone, holds nothing.
        if (statusOf(error) === 404) return undefined;
        throw error;
      });
      const items = answer
        ? ((JSON.parse(answer.body) as { items?: { metadata: { name: string } }[] }).items ?? [])
        : [];
      return items
        .filter((item) => !RECREATED_BY_THE_CLUSTER.has(`${type.kind}/${item.metadata.name}`))
        .map((item) => ({
          apiVersion: type.apiVersion,
          kind: type.kind,
          metadata: { name: item.metadata.name, namespace },
        }));
    }),
  );
  return lists.flat();
}

/**
 * Deletes everything in a namespace, as its namespace controller would, and waits until nothing is left
 * (objects with finalizers wait for their controllers). The namespace itself stays.
 */
export async function emptyNamespace(client: KubeClient, namespace: string): Promise<void> {
  const types = await namespacedTypes(client);
  await eventually(
    `namespace ${namespace} to be empty`,
    async () => {
      const left = await remaining(client, types, namespace);
      if (left.length === 0) return true;
      await Promise.all(left.map((object) => client.delete(object)));
      return undefined;
    },
    { timeoutMs: 90_000 },
  );
}

/**
 * Empties a namespace (waiting for that), then deletes it without waiting for the namespace controller
 * to remove it: for namespaces of a name no later test uses again, whose lingering, empty Terminating
 * state nothing observes.
 */
export async function discardNamespace(client: KubeClient, namespace: string): Promise<void> {
  await emptyNamespace(client, namespace);
  await client.core.deleteNamespace({ name: namespace }).catch((error: unknown) => {
    if (statusOf(error) !== 404) throw error;
  });
}

/**
 * The namespaces a suite creates for its scenarios, each of a name used once (createTestNamespace). At
 * the suite's end the product finalizes what is left in them, every kind of the registry, and they are
 * discarded.
 */
export function suiteNamespaces() {
  const names: string[] = [];
  return {
    async create(suite: string): Promise<string> {
      const { name } = await createTestNamespace(suite);
      names.push(name);
      return name;
    },
    async discard(context: ReconcileContext): Promise<void> {
      for (const name of names.splice(0)) {
        await finalizeEveryKind(context, name);
        await discardNamespace(context.client, name);
      }
    },
  };
}
