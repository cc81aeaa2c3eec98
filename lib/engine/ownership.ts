import { createHash } from "node:crypto";
import { API_GROUP, API_GROUP_VERSION, MANAGED_BY_LABEL, OPERATOR_NAME, OWNED_BY_LABEL } from "../api/group.js";
import type { KubeObject } from "./objects.js";

/** Annotation on every emitted object: its owner exactly, `Kind/namespace/name`, never truncated. */
export const OWNER_ANNOTATION = `${API_GROUP}/owner`;

/** The longest label value Kubernetes accepts. */
const MAX_LABEL_VALUE = 63;
const HASH_LENGTH = 10;
/** A first-release label this long or longer may have been cut: it names no owner for sure. */
const LEGACY_UNCUT = MAX_LABEL_VALUE - 2;

/** What ownership needs of a resource. */
export interface Owner {
  readonly kind: string;
  readonly metadata: { readonly name: string; readonly namespace: string; readonly uid?: string | undefined };
}

/** `Kind/namespace/name`: the work-queue key and the owner annotation alike. */
export function ownerKeyOf(owner: Owner): string {
  return `${owner.kind}/${owner.metadata.namespace}/${owner.metadata.name}`;
}

/**
 * The owned-by label value: `<kind>.<namespace>.<name>`, lower case (labels allow no `/`). A label value
 * holds 63 characters: a longer one keeps its first part and ends with `_` and a hash of the whole, so
 * that two owners whose names share those first characters never get the same value (selection and
 * garbage collection compare it exactly). No kind, namespace or name holds a `_`: a hashed value is never
 * mistaken for a whole one. Mapping an object back to its owner reads the owner annotation.
 */
export function ownedByValue(owner: Owner): string {
  const full = `${owner.kind.toLowerCase()}.${owner.metadata.namespace}.${owner.metadata.name}`;
  if (full.length <= MAX_LABEL_VALUE) return full;
  const hash = createHash("sha256").update(full).digest("hex").slice(0, HASH_LENGTH);
  const prefix = full.slice(0, MAX_LABEL_VALUE - HASH_LENGTH - 1).replace(/[-.]+$/, "");
  return `${prefix}_${hash}`;
}

/** The marks every emitted object carries: the owned-by label, the product's managed-by label, the owner annotation. */
export function ownershipMarks(owner: Owner): {
  labels: Record<string, string>;
  annotations: Record<string, string>;
} {
  return {
    labels: { [OWNED_BY_LABEL]: ownedByValue(owner), [MANAGED_BY_LABEL]: OPERATOR_NAME },
    annotations: { [OWNER_ANNOTATION]: ownerKeyOf(owner) },
  };
}

/** The object with the ownership marks added to what the kind set. */
export function marked(owner: Owner, object: KubeObject): KubeObject {
  const marks = ownershipMarks(owner);
  return {
    ...object,
    metadata: {
      ...object.metadata,
      labels: { ...object.metadata.labels, ...marks.labels },
      annotations: { ...object.metadata.annotations, ...marks.annotations },
    },
  };
}

/** Whether the live object is this owner's: it carries exactly this owner's owned-by label. */
export function ownedBy(owner: Owner, object: KubeObject | undefined): boolean {
  return object?.metadata.labels?.[OWNED_BY_LABEL] === ownedByValue(owner);
}

/**
 * The owner of a live object as a work-queue key `Kind/namespace/name`: from the owner annotation; for an
 * object emitted before it existed (the first release cut the label at 63 characters, and stripped the
 * separators it ended with), from an owned-by label short enough never to have been cut, nor hashed.
 */
export function ownerOf(
  object: {
    readonly metadata?: {
      readonly labels?: Readonly<Record<string, string>>;
      readonly annotations?: Readonly<Record<string, string>>;
    };
  },
  kinds: readonly string[],
): string | undefined {
  const annotated = object.metadata?.annotations?.[OWNER_ANNOTATION];
  if (annotated && /^[A-Za-z]+\/[a-z0-9-]+\/[a-z0-9.-]+$/.test(annotated)) return annotated;
  const label = object.metadata?.labels?.[OWNED_BY_LABEL];
  if (!label || label.includes("_") || label.length >= LEGACY_UNCUT) return undefined;
  const match = /^([a-z]+)\.([a-z0-9-]+)\.(.+)$/.exec(label);
  const kind = match && kinds.find((k) => k.toLowerCase() === match[1]);
  return kind && match ? `${kind}/${match[2]}/${match[3]}` : undefined;
}

/** A controller owner reference to the resource: the garbage collector deletes the object with it. */
export function ownerReference(owner: Owner) {
  return {
    apiVersion: API_GROUP_VERSION,
    kind: owner.kind,
    name: owner.metadata.name,
    uid: owner.metadata.uid ?? "",
    controller: true,
    blockOwnerDeletion: true,
  };
}
