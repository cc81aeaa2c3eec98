import type { ReferenceGrantSpec } from "../api/reference-grant.js";

/** The resource that holds references, as a grant's `from` names it: its group, kind and namespace. */
export interface Referrer {
  readonly group: string;
  readonly kind: string;
  readonly namespace: string;
}

/** One reference a resource holds: the field it sits in and the object it names (a grant's `to`). */
export interface Reference {
  /** Field path in the referrer, e.g. `spec.adopt.credentialsSecretRef`: what the messages name. */
  readonly field: string;
  /** API group of the referenced object: "" for the core group (Secrets). */
  readonly group: string;
  readonly kind: string;
  readonly name: string;
  /** Namespace of the referenced object, resolved (a reference without one is in the referrer's). */
  readonly namespace: string;
}

/** A ReferenceGrant as observed: the namespace it lives in (the only one it can open) and its spec. */
export interface ObservedGrant {
  readonly namespace: string;
  readonly spec: ReferenceGrantSpec;
}

/** The condition reason of a reference into another namespace that no grant there allows. */
export const REFERENCE_NOT_PERMITTED = "ReferenceNotPermitted";

/** The references that leave the referrer's namespace: the only ones a grant is needed for. */
export function crossNamespaceReferences(referrer: Referrer, references: readonly Reference[]): Reference[] {
  return references.filter((reference) => reference.namespace !== referrer.namespace);
}

/** The namespaces whose grants decide: those the references point into, sorted, each once. */
export function grantNamespaces(referrer: Referrer, references: readonly Reference[]): string[] {
  return [...new Set(crossNamespaceReferences(referrer, references).map((r) => r.namespace))].sort();
}

/**
 * Whether one grant allows one reference, as Gateway API defines it: the grant lives in the referenced
 * object's namespace, one of its `from` entries names the referrer's group, kind and namespace exactly,
 * and one of its `to` entries names the object's group and kind, and its name unless the entry has none.
 */
export function grantAllows(grant: ObservedGrant, referrer: Referrer, reference: Reference): boolean {
  if (grant.namespace !== reference.namespace) return false;
  const from = grant.spec.from.some(
    (f) => f.group === referrer.group && f.kind === referrer.kind && f.namespace === referrer.namespace,
  );
  const to = grant.spec.to.some(
    (t) =>
      t.group === reference.group && t.kind === reference.kind && (t.name === undefined || t.name === reference.name),
  );
  return from && to;
}

/** Whether a reference may be honoured: it stays in the referrer's namespace, or a grant allows it. */
export function referencePermitted(
  referrer: Referrer,
  reference: Reference,
  grants: readonly ObservedGrant[],
): boolean {
  return reference.namespace === referrer.namespace || grants.some((grant) => grantAllows(grant, referrer, reference));
}

/**
 * The one decision on cross-namespace references: of a referrer's references, those no grant allows
 * (same-namespace references never need one). Grants are additive: any one allowing a reference suffices.
 */
export function ungrantedReferences(
  referrer: Referrer,
  references: readonly Reference[],
  grants: readonly ObservedGrant[],
): Reference[] {
  return references.filter((reference) => !referencePermitted(referrer, reference, grants));
}

const groupText = (group: string) => (group === "" ? '""' : group);

/**
 * The grants that would allow the references, one line per namespace, e.g. `a ReferenceGrant in namespace
 * data from group core.navique.com kind PostgresCluster namespace apps to group "" kind Secret name pg`.
 */
export function grantsToCreate(referrer: Referrer, ungranted: readonly Reference[]): string[] {
  return grantNamespaces(referrer, ungranted).map((namespace) => {
    const targets = [
      ...new Set(
        ungranted
          .filter((r) => r.namespace === namespace)
          .map((r) => `to group ${groupText(r.group)} kind ${r.kind} name ${r.name}`),
      ),
    ];
    return `a ReferenceGrant in namespace ${namespace} from group ${groupText(referrer.group)} kind ${referrer.kind} namespace ${referrer.namespace} ${targets.join(", and ")}`;
  });
}

/**
 * What a resource whose references are not granted reports: which fields point where, that nothing was
 * read there, and exactly which grant to create. It says nothing of whether the referenced objects exist
 * (Gateway API: no hint about another namespace's objects without a grant).
 */
export function referenceNotPermittedMessage(referrer: Referrer, ungranted: readonly Reference[]): string {
  const fields = ungranted.map((r) => `${r.field} (namespace ${r.namespace})`);
  const verb = fields.length > 1 ? "are" : "is";
  return `${fields.join(" and ")} ${verb} not granted by the referenced namespace: nothing was read, copied or created there. Create ${grantsToCreate(referrer, ungranted).join("; and ")}`;
}
