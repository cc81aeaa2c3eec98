import { refNamespace, SECRET_TARGET } from "../../api/refs.js";
import type { ObservedRead } from "../../engine/kind-module.js";
import type { Reference } from "../../engine/reference-grants.js";
import { externalReads } from "./external-connection.js";

/** A reference of a spec: a name, and a namespace that defaults to the resource's. */
interface Ref {
  readonly name: string;
  readonly namespace?: string | undefined;
}

/** The upstream operator's object a datastore in adopt mode adopts, named by its spec at `field`. */
export interface AdoptTarget {
  readonly field: string;
  /** The API group a ReferenceGrant names it by (the group of `apiVersion`). */
  readonly group: string;
  readonly apiVersion: string;
  readonly kind: string;
  readonly ref: Ref;
}

/** What every datastore kind's `spec.adopt` holds beside its target: the Secret of its credentials. */
interface AdoptSpec {
  readonly credentialsSecretRef: Ref;
}

/** A datastore resource as the shared rules see it: its namespace, its mode and the parts of its spec. */
interface Datastore<Adopt extends AdoptSpec> {
  readonly metadata: { readonly namespace: string };
  readonly spec: {
    readonly mode: string;
    readonly adopt?: Adopt | undefined;
    readonly external?: { readonly connectionSecretRef: Ref } | undefined;
  };
}

/** Its `spec.adopt` when it is in adopt mode (a leftover adopt section of another mode counts for nothing). */
function adoptSpec<Adopt extends AdoptSpec>(resource: Datastore<Adopt>): Adopt | undefined {
  return resource.spec.mode === "adopt" ? resource.spec.adopt : undefined;
}

/**
 * What a datastore in adopt mode reads, for every kind alike: the upstream operator's object it adopts
 * (`adoptTarget`, at the target's field) and the Secret holding its credentials (`adoptCredentials`, at
 * `spec.adopt.credentialsSecretRef`), each in its reference's namespace — the engine follows either
 * only in the resource's namespace or through a granted reference.
 */
export function adoptReads(target: AdoptTarget, credentialsSecretRef: Ref, namespace: string): ObservedRead[] {
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

/**
 * The reads of a datastore in adopt or external mode, for every kind alike: in adopt mode `adoptReads` of
 * the object `target` names, in external mode its connection Secret (`externalReads`); none in managed
 * mode, whose reads, if any, are the kind's own.
 */
export function adoptOrExternalReads<Adopt extends AdoptSpec>(
  resource: Datastore<Adopt>,
  target: (adopt: Adopt) => AdoptTarget,
): ObservedRead[] {
  const adopt = adoptSpec(resource);
  if (adopt) return adoptReads(target(adopt), adopt.credentialsSecretRef, resource.metadata.namespace);
  return externalReads(resource);
}

/**
 * Every reference of a datastore that a ReferenceGrant can open, resolved against its namespace: in adopt
 * mode the object `target` names and the credentials Secret. (External mode's connection Secret must be in
 * the resource's own namespace, grant or not: the desired state refuses any other.)
 */
export function adoptReferences<Adopt extends AdoptSpec>(
  resource: Datastore<Adopt>,
  target: (adopt: Adopt) => AdoptTarget,
): Reference[] {
  const adopt = adoptSpec(resource);
  if (!adopt) return [];
  const { namespace } = resource.metadata;
  const adopted = target(adopt);
  return [
    {
      field: adopted.field,
      group: adopted.group,
      kind: adopted.kind,
      name: adopted.ref.name,
      namespace: refNamespace(adopted.ref, namespace),
    },
    {
      field: "spec.adopt.credentialsSecretRef",
      group: SECRET_TARGET.group,
      kind: SECRET_TARGET.kinds[0],
      name: adopt.credentialsSecretRef.name,
      namespace: refNamespace(adopt.credentialsSecretRef, namespace),
    },
  ];
}
