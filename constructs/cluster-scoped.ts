import { type ApiObject, JsonPatch } from "cdk8s";

/**
 * Keeps a cluster-scoped object out of its chart's namespace. cdk8s gives every ApiObject the namespace
 * of its Chart (`namespace: props.metadata?.namespace ?? chart.namespace` in ApiObject's constructor),
 * cluster-scoped kinds included; a CRD, Namespace, ClusterRole or License with a namespace is at best
 * noise a GitOps diff keeps showing, and a linter's error.
 */
export function clusterScoped<T extends ApiObject>(object: T): T {
  if (object.metadata.namespace !== undefined) object.addJsonPatch(JsonPatch.remove("/metadata/namespace"));
  return object;
}
