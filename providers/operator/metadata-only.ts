import { type KubeConfig, type RequestContext, setHeaderMiddleware } from "@kubernetes/client-node";

/**
 * Lists answered with only the objects' metadata (a PartialObjectMetadataList), as client-go's metadata
 * informers list: for watches that only need to know that something changed, or the labels. A release
 * record of a real operator weighs ~0.5 MB, a CRD up to a few hundred kB; their metadata, a few hundred bytes.
 */
export const METADATA_LIST = {
  middleware: [setHeaderMiddleware("Accept", "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1")],
  middlewareMergeStrategy: "append" as const,
};

/** Each watch event's object as its metadata only (PartialObjectMetadata). */
const METADATA_WATCH_ACCEPT = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1";

/**
 * The kubeconfig for a metadata-only watch: client-node's Watch sends the headers its kubeconfig's
 * authentication sets, and takes no others; this one adds the Accept header asking for metadata only.
 * Everything else is the kubeconfig's own.
 */
export function metadataOnlyWatches(kubeconfig: KubeConfig): KubeConfig {
  return new Proxy(kubeconfig, {
    get(target, property) {
      if (property === "applySecurityAuthentication") {
        return async (context: RequestContext) => {
          await target.applySecurityAuthentication(context);
          context.setHeaderParam("Accept", METADATA_WATCH_ACCEPT);
        };
      }
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
