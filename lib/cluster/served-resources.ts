import type { KubeClient } from "./kube-client.js";

/**
 * Aggregated discovery (apidiscovery.k8s.io/v2, GA since Kubernetes 1.30): every group, version and
 * resource the apiserver serves, in one answer. Plain JSON is accepted after it, so that an older
 * apiserver answers with the legacy group list instead of refusing the request.
 */
export const AGGREGATED_DISCOVERY =
  "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json";
const LEGACY_DISCOVERY = "application/json";

export interface ServedResourcesOptions {
  /**
   * Which discovery to ask for. "legacy" is what an apiserver older than 1.30 answers anyway; asking for
   * it on a newer one proves the fallback against a real apiserver.
   * @default "aggregated"
   */
  readonly discovery?: "aggregated" | "legacy";
}

interface AggregatedDiscovery {
  readonly kind: "APIGroupDiscoveryList";
  readonly items?: readonly {
    readonly metadata?: { readonly name?: string };
    readonly versions?: readonly { readonly resources?: readonly { readonly resource?: string }[] }[];
  }[];
}

interface LegacyGroupList {
  readonly kind: "APIGroupList";
  readonly groups?: readonly { readonly name?: string; readonly versions?: readonly { readonly version?: string }[] }[];
}

interface LegacyResourceList {
  readonly resources?: readonly { readonly name?: string }[];
}

/**
 * The last aggregated answer per client, by its ETag: the apiserver answers 304 without a body while
 * nothing it serves has changed, so a repeated detection neither transfers nor parses the document again.
 */
const lastAnswer = new WeakMap<KubeClient, { readonly etag: string; readonly served: ReadonlySet<string> }>();

function fromAggregated(document: AggregatedDiscovery): Set<string> {
  const served = new Set<string>();
  for (const group of document.items ?? []) {
    for (const version of group.versions ?? []) {
      for (const resource of version.resources ?? []) served.add(`${resource.resource}.${group.metadata?.name}`);
    }
  }
  return served;
}

/**
 * Legacy discovery, for an apiserver without the aggregated document: one resource list per version of
 * each wanted group the group list names. Subresources (`clusters/status`) are not resources.
 */
async function fromLegacy(client: KubeClient, document: LegacyGroupList, groups: ReadonlySet<string>) {
  const served = new Set<string>();
  const wanted = (document.groups ?? []).filter((group) => group.name && groups.has(group.name));
  const lists = wanted.flatMap((group) =>
    (group.versions ?? []).map(async (version) => {
      const answer = await client.get(`/apis/${group.name}/${version.version}`, "application/json");
      const list = JSON.parse(answer.body) as LegacyResourceList;
      for (const resource of list.resources ?? []) {
        if (resource.name && !resource.name.includes("/")) served.add(`${resource.name}.${group.name}`);
      }
    }),
  );
  await Promise.all(lists);
  return served;
}

/**
 * The resources the apiserver serves in API groups (not the core group), as `<plural>.<group>`, the
 * shape of a CRD's name. A CRD is in discovery only once it is Established and while one of its versions
 * is served (apiextensions-apiserver, pkg/apiserver/customresource_discovery_controller.go): being
 * listed here is what "usable" means to every client, helm and this product included.
 *
 * One request with an apiserver of Kubernetes 1.30 or later; `groups` bounds the legacy fallback to the
 * groups the caller asks about (one more request per version of each).
 */
export async function servedResources(
  client: KubeClient,
  groups: readonly string[],
  options: ServedResourcesOptions = {},
): Promise<ReadonlySet<string>> {
  if (options.discovery === "legacy") {
    const answer = await client.get("/apis", LEGACY_DISCOVERY);
    return fromLegacy(client, JSON.parse(answer.body) as LegacyGroupList, new Set(groups));
  }
  const answer = await client.get("/apis", AGGREGATED_DISCOVERY, lastAnswer.get(client)?.etag);
  // Looked up after the answer: a client that reads once serves one answer to every asker, with its ETag
  // (lib/cluster/read-once.ts), and the first asker's parse then serves the others.
  const cached = lastAnswer.get(client);
  if (cached && (answer.status === 304 || (answer.etag !== undefined && answer.etag === cached.etag)))
    return cached.served;
  const document = JSON.parse(answer.body) as AggregatedDiscovery | LegacyGroupList;
  if (document.kind === "APIGroupList") return fromLegacy(client, document, new Set(groups));
  const served = fromAggregated(document);
  if (answer.etag) lastAnswer.set(client, { etag: answer.etag, served });
  return served;
}
