import { refNamespace } from "../../api/refs.js";
import type { ObservedRead } from "../../engine/kind-module.js";

/** A reference of a spec: a name, and a namespace that defaults to the resource's. */
interface Ref {
  readonly name: string;
  readonly namespace?: string | undefined;
}

/**
 * What a datastore in adopt mode reads, for every kind alike: the upstream operator's object it adopts
 * (`adoptTarget`, at `field`) and the Secret holding its credentials (`adoptCredentials`, at
 * `spec.adopt.credentialsSecretRef`), each in its reference's namespace — the engine follows either
 * only in the resource's namespace or through a granted reference.
 */
export function adoptReads(
  target: { readonly field: string; readonly apiVersion: string; readonly kind: string; readonly ref: Ref },
  credentialsSecretRef: Ref,
  namespace: string,
): ObservedRead[] {
  return [
    {
      id: "adoptTarget",
      field: target.field,
      apiVersion: target.apiVersion,
      kind: target.kind,
      namespace: refNamespace(target.ref, namespace),
      name: target.ref.name,
      as: "object",
    },
    {
      id: "adoptCredentials",
      field: "spec.adopt.credentialsSecretRef",
      apiVersion: "v1",
      kind: "Secret",
      namespace: refNamespace(credentialsSecretRef, namespace),
      name: credentialsSecretRef.name,
      as: "credentials",
    },
  ];
}
