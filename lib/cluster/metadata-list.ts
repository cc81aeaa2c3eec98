import { setHeaderMiddleware } from "@kubernetes/client-node";

/** A list of objects as their metadata only (meta.k8s.io/v1 PartialObjectMetadataList): labels, annotations, names. */
export const METADATA_LIST_ACCEPT = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1";

/** One object as its metadata only (meta.k8s.io/v1 PartialObjectMetadata). */
export const METADATA_ACCEPT = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1";

/**
 * The options that make a typed client's list ask for metadata only: a helm release's Secrets are chosen by
 * their labels, and a real operator's revision weighs ~0.5 MB of payload each. An empty list answers
 * `items: null`.
 */
export const METADATA_ONLY = {
  middleware: [setHeaderMiddleware("Accept", METADATA_LIST_ACCEPT)],
  middlewareMergeStrategy: "append" as const,
};
