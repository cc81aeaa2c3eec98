import { API_GROUP, MANAGED_BY_LABEL, OPERATOR_NAME } from "../api/group.js";

/** One operation of a JSON Patch (RFC 6902), as far as releasing an object needs. */
export interface JsonPatchOperation {
  readonly op: "test" | "remove" | "replace";
  readonly path: string;
  readonly value?: unknown;
}

/** What of an object's metadata says whose it is. */
export interface MarkedObject {
  readonly metadata: {
    readonly labels?: Readonly<Record<string, string>>;
    readonly annotations?: Readonly<Record<string, string>>;
    readonly ownerReferences?: readonly unknown[];
    readonly managedFields?: readonly unknown[];
  };
}

/** A key as a JSON Pointer segment (RFC 6901: `~` is written `~0`, `/` is written `~1`). */
function segment(key: string): string {
  return key.replace(/~/g, "~0").replace(/\//g, "~1");
}

function ourKey(key: string): boolean {
  return key.startsWith(`${API_GROUP}/`);
}

function managerOf(entry: unknown): unknown {
  return (entry as { manager?: unknown } | null)?.manager;
}

/**
 * The apiserver's record of the fields the product's field manager set (every write of the product is made
 * as OPERATOR_NAME): removed too, so that the user's own server-side apply of those fields meets no
 * conflict. Each removed entry is guarded by a `test` of its manager. When every entry is the product's,
 * the list is replaced by `[{}]`, the documented way to clear it (an emptied list would be ignored).
 */
function managedFieldsPatch(entries: readonly unknown[]): JsonPatchOperation[] {
  const ours = entries
    .map((entry, index) => ({ entry, index }))
    .filter(({ entry }) => managerOf(entry) === OPERATOR_NAME)
    .reverse();
  if (ours.length === 0) return [];
  const tests = ours.map(({ index }) => ({
    op: "test" as const,
    path: `/metadata/managedFields/${index}/manager`,
    value: OPERATOR_NAME,
  }));
  if (ours.length === entries.length) {
    return [...tests, { op: "replace", path: "/metadata/managedFields", value: [{}] }];
  }
  return [...tests, ...ours.map(({ index }) => ({ op: "remove" as const, path: `/metadata/managedFields/${index}` }))];
}

function ourOwner(reference: unknown): reference is { apiVersion: string; uid?: string } {
  const apiVersion = (reference as { apiVersion?: unknown } | null)?.apiVersion;
  return typeof apiVersion === "string" && ourKey(apiVersion);
}

/**
 * The JSON Patch that removes every mark of the product from an object released to its user: the labels
 * and annotations of the product's group (owned-by, deletion policy, …), `app.kubernetes.io/managed-by`
 * when it names the product, and owner references to the product's kinds — which would otherwise let the
 * garbage collector delete the object with its PostgresCluster — and the product's managedFields entries.
 * Owner references are removed by position, each guarded by a `test` of its uid: a list changed meanwhile
 * fails the patch, and the next pass looks again, instead of removing someone else's reference. Empty when
 * the object carries no mark.
 */
export function releaseMarks(object: MarkedObject): JsonPatchOperation[] {
  const { labels = {}, annotations = {}, ownerReferences = [], managedFields = [] } = object.metadata;
  const labelKeys = Object.keys(labels)
    .filter((k) => ourKey(k) || (k === MANAGED_BY_LABEL && labels[k] === OPERATOR_NAME))
    .sort();
  const annotationKeys = Object.keys(annotations).filter(ourKey).sort();
  // Highest position first, so that each removal leaves the positions still to remove unchanged.
  const owners = ownerReferences
    .map((reference, index) => ({ reference, index }))
    .filter(({ reference }) => ourOwner(reference))
    .reverse();
  return [
    ...owners.map(({ reference, index }) => ({
      op: "test" as const,
      path: `/metadata/ownerReferences/${index}/uid`,
      value: (reference as { uid?: string }).uid ?? "",
    })),
    ...owners.map(({ index }) => ({ op: "remove" as const, path: `/metadata/ownerReferences/${index}` })),
    ...labelKeys.map((k) => ({ op: "remove" as const, path: `/metadata/labels/${segment(k)}` })),
    ...annotationKeys.map((k) => ({ op: "remove" as const, path: `/metadata/annotations/${segment(k)}` })),
    ...managedFieldsPatch(managedFields),
  ];
}
