import type { KubeClient } from "./kube-client.js";
import { AGGREGATED_DISCOVERY } from "./served-resources.js";

/** A kind the apiserver serves, as the paths of its objects need it. */
export interface DiscoveredKind {
  readonly kind: string;
  /** The resource's plural name, the last part of its collection's path. */
  readonly plural: string;
  readonly namespaced: boolean;
}

interface AggregatedGroups {
  readonly kind?: string;
  readonly items?: readonly {
    readonly metadata?: { readonly name?: string };
    readonly versions?: readonly {
      readonly version?: string;
      readonly resources?: readonly {
        readonly resource?: string;
        readonly scope?: string;
        readonly responseKind?: { readonly kind?: string };
      }[];
    }[];
  }[];
}

/** The key of a kind in `discoveredKinds`' answer. */
export function discoveredKindKey(apiVersion: string, kind: string): string {
  return `${apiVersion} ${kind}`;
}

/** The kinds of one group's version, into `kinds`: the first resource of a kind, as a lookup in its list finds it. */
function addVersion(
  kinds: Map<string, DiscoveredKind>,
  apiVersion: string,
  resources: NonNullable<NonNullable<NonNullable<AggregatedGroups["items"]>[number]["versions"]>[number]["resources"]>,
): void {
  for (const { resource, scope, responseKind } of resources) {
    if (!resource || !responseKind?.kind) continue;
    const key = discoveredKindKey(apiVersion, responseKind.kind);
    if (!kinds.has(key))
      kinds.set(key, { kind: responseKind.kind, plural: resource, namespaced: scope === "Namespaced" });
  }
}

/**
 * Every kind the apiserver serves, by `apiVersion kind` (discoveredKindKey), from aggregated discovery: the
 * core group's document (GET /api) and every other group's (GET /apis), two requests for all of them where
 * reading one API version's resource list per kind looked up made one per group. Undefined when the
 * apiserver answers legacy discovery (older than Kubernetes 1.30): the caller looks each kind up by its API
 * version then. Subresources are not kinds of their own here: aggregated discovery nests them.
 */
export async function discoveredKinds(client: KubeClient): Promise<ReadonlyMap<string, DiscoveredKind> | undefined> {
  const documents = (await Promise.all(
    ["/api", "/apis"].map(async (path) => JSON.parse((await client.get(path, AGGREGATED_DISCOVERY)).body)),
  )) as AggregatedGroups[];
  if (documents.some((document) => document.kind !== "APIGroupDiscoveryList")) return undefined;
  const kinds = new Map<string, DiscoveredKind>();
  for (const group of documents.flatMap((document) => document.items ?? [])) {
    const name = group.metadata?.name ?? "";
    for (const { version, resources } of group.versions ?? []) {
      addVersion(kinds, name === "" ? `${version}` : `${name}/${version}`, resources ?? []);
    }
  }
  return kinds;
}
