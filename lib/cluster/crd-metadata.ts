import type { KubeClient } from "./kube-client.js";
import { METADATA_LIST_ACCEPT } from "./metadata-list.js";

/** Where the apiserver lists CRDs; a CRD's name is `<plural>.<group>` (validated by the apiserver). */
export const CRD_COLLECTION = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";

/** The metadata of a stored object that says who holds it. */
export interface StoredMetadata {
  readonly metadata: {
    readonly name: string;
    readonly labels?: Readonly<Record<string, string>>;
    readonly annotations?: Readonly<Record<string, string>>;
  };
}

interface MetadataList {
  readonly kind?: string;
  readonly items?: readonly { readonly metadata?: StoredMetadata["metadata"] }[];
}

/**
 * Every CRD's metadata, by name, in one request: what a chart's preflight judges of the CRDs it renders
 * (their labels and annotations), where reading each whole CRD took one request per CRD, schema and all.
 * A client that reads once (`navique plan`) so reads the cluster's CRDs once for every capability it looks at.
 */
export async function crdMetadata(client: KubeClient): Promise<ReadonlyMap<string, StoredMetadata>> {
  // As metadata only: a CRD's schema, its bulk, stays on the server.
  const answer = await client.get(CRD_COLLECTION, METADATA_LIST_ACCEPT);
  const list = JSON.parse(answer.body) as MetadataList;
  if (list.kind !== "PartialObjectMetadataList")
    throw new Error(
      `GET ${CRD_COLLECTION} as metadata answered ${list.kind ?? "no kind"}: the apiserver must serve meta.k8s.io/v1 PartialObjectMetadataList (Kubernetes 1.15 or later)`,
    );
  const crds = new Map<string, StoredMetadata>();
  for (const item of list.items ?? [])
    if (item.metadata?.name) crds.set(item.metadata.name, { metadata: item.metadata });
  return crds;
}
