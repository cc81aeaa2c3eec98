import * as z from "zod";
import { canonicalJson } from "./canonical-json.js";
import { AGE_COLUMN, type KindDefinition } from "./crd.js";
import { API_GROUP } from "./group.js";
import { mayReferenceAcrossNamespaces } from "./reference-fields.js";
import { namespaceName, objectName } from "./refs.js";
import { storedResource } from "./stored-resource.js";

export const REFERENCE_GRANT_KIND = "ReferenceGrant";
export const REFERENCE_GRANT_PLURAL = "referencegrants";
/** Upper bound of `spec.from` and `spec.to`, as Gateway API's ReferenceGrant has it. */
export const MAX_GRANT_ENTRIES = 16;

/**
 * An API group: "" is the core group (Secrets), otherwise a DNS subdomain. Same pattern and bound as
 * Gateway API's `Group` (apis/v1/shared_types.go).
 */
export const ApiGroupName = z
  .string()
  .max(253)
  .regex(/^$|^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/, {
    message: 'must be an API group: "" for the core group, or a lowercase DNS subdomain such as core.navique.com',
  });

/** A kind, such as Secret or PostgresCluster. Same pattern and bounds as Gateway API's `Kind`. */
export const KindName = z
  .string()
  .min(1)
  .max(63)
  .regex(/^[a-zA-Z]([-a-zA-Z0-9]*[a-zA-Z0-9])?$/, {
    message: "must be a kind such as Secret: letters, digits and '-', starting with a letter",
  });

export const ReferenceGrantFrom = z
  .object({
    group: ApiGroupName.describe('Group of the referring resources, e.g. core.navique.com ("" for the core group).'),
    kind: KindName.describe("Kind of the referring resources, e.g. PostgresCluster."),
    namespace: namespaceName.describe("Namespace of the referring resources: exactly one, no selector."),
  })
  .strict();
export type ReferenceGrantFrom = z.infer<typeof ReferenceGrantFrom>;

export const ReferenceGrantTo = z
  .object({
    group: ApiGroupName.describe('Group of the referenced objects in this namespace: "" for Secrets.'),
    kind: KindName.describe("Kind of the referenced objects, e.g. Secret or Cluster."),
    name: objectName
      .optional()
      .describe("Name of the one object that may be referenced; when omitted, every object of this group and kind."),
  })
  .strict();
export type ReferenceGrantTo = z.infer<typeof ReferenceGrantTo>;

/**
 * The lists of a grant: 1 to MAX_GRANT_ENTRIES entries, combined with OR, each written once. Atomic for the
 * apiserver, with a CEL rule refusing an entry written twice: a `set` of objects would say so at the
 * entry's index, but server-side apply refuses every list of that type whose items are maps ("associative
 * list without keys has an element that's a map type"), and the product applies grants server-side. zod
 * refuses the repetition at its index (below).
 */
const entries = <T extends z.ZodType>(entry: T, what: string) =>
  z
    .array(entry)
    .min(1)
    .max(MAX_GRANT_ENTRIES)
    .meta({
      "x-kubernetes-list-type": "atomic",
      "x-kubernetes-validations": [
        {
          rule: "self.all(x, self.exists_one(y, y == x))",
          message: "an entry is written twice: each entry is written once; remove the repetition",
        },
      ],
    })
    .describe(`${what} Entries are combined with OR; each is written once.`);

/** An entry of a set: compared whole by the apiserver, never merged field by field. */
const atomic = <T extends z.ZodType>(entry: T) => entry.meta({ "x-kubernetes-map-type": "atomic" });

/**
 * A grant's spec as any grant stored in the cluster holds it: the shape, without the rules a grant is
 * held to when it is written (ReferenceGrantSpec, in the registry). The engine decides with it: a grant
 * stored before those rules, one of its entries written twice or naming no kind of the product, still
 * grants what its other entries name — the rules refuse what would never match, they revoke nothing.
 */
export const StoredReferenceGrantSpec = z
  .object({
    from: entries(
      atomic(ReferenceGrantFrom),
      "The resources, in other namespaces, that may reference what `to` lists.",
    ),
    to: entries(atomic(ReferenceGrantTo), "The objects of this namespace that the resources of `from` may reference."),
  })
  .strict()
  .describe("Which references from other namespaces into this one are trusted.");
export type ReferenceGrantSpec = z.infer<typeof StoredReferenceGrantSpec>;
/** What a program writes as a ReferenceGrant's spec, each field documented (generated from ReferenceGrantSpec). */
export type { ReferenceGrantSpecInput } from "./generated/reference-grant-spec.js";

/** A ReferenceGrant as stored in the cluster (it has no status: nothing is reconciled into it). */
export const StoredReferenceGrant = storedResource(REFERENCE_GRANT_KIND, StoredReferenceGrantSpec, z.never());

/** The kinds whose specs hold references (`referenceTo`) that may name another namespace: the only resources a grant's `from` can open anything to. */
export function referrerKinds(definitions: readonly KindDefinition[]): string[] {
  return definitions.filter((d) => mayReferenceAcrossNamespaces(d.spec)).map((d) => d.kind);
}

/**
 * A string field with one rule beyond its pattern: `holds`, stated in zod and, as `rule`, in CEL for the
 * apiserver, with the same words; zod's adds the value received (the apiserver prints it itself).
 */
function ruled(field: z.ZodString, holds: (value: string) => boolean, rule: string, message: string) {
  return field
    .superRefine((value, ctx) => {
      if (!holds(value)) ctx.addIssue({ code: "custom", message: `${message} (received ${JSON.stringify(value)})` });
    })
    .meta({ "x-kubernetes-validations": [{ rule, message }] });
}

/** The entries of `list` written again after their first, each with the index of its first. */
function repeatedEntries(list: readonly unknown[]): { index: number; first: number }[] {
  const firsts = new Map<string, number>();
  const repeated: { index: number; first: number }[] = [];
  list.forEach((entry, index) => {
    const key = canonicalJson(entry);
    const first = firsts.get(key);
    if (first === undefined) firsts.set(key, index);
    else repeated.push({ index, first });
  });
  return repeated;
}

/**
 * A ReferenceGrant's spec as one is written, for a product whose resources of `referrers` hold
 * references: each `from` entry names the group core.navique.com and one of those kinds (an entry naming
 * anything else would never match, and its author would believe something granted), and no entry of
 * `from` or `to` is written twice. Refused at the entry's index, by zod and the apiserver alike.
 */
export function referenceGrantSpec(referrers: readonly string[]) {
  const kinds = [...referrers].sort();
  const from = ReferenceGrantFrom.extend({
    group: ruled(
      ApiGroupName,
      (group) => group === API_GROUP,
      `self == '${API_GROUP}'`,
      `must be ${API_GROUP}: only resources of the product hold the references a grant opens, so an entry of another group would never match`,
    ).describe(`Group of the referring resources: ${API_GROUP}, the product's.`),
    kind: ruled(
      KindName,
      (kind) => kinds.includes(kind),
      `self in [${kinds.map((kind) => `'${kind}'`).join(", ")}]`,
      `must be a kind of the product that holds references (${kinds.join(", ")}): an entry of another kind would never match`,
    ).describe(`Kind of the referring resources, one that holds references: ${kinds.join(", ")}.`),
  });
  const judged = <T extends z.ZodType>(list: z.ZodArray<T>, field: string) =>
    list.superRefine((items, ctx) => {
      for (const { index, first } of repeatedEntries(items))
        ctx.addIssue({
          code: "custom",
          message: `repeats spec.${field}[${first}]: each entry is written once; remove this one`,
          path: [index],
        });
    });
  return z
    .object({
      from: judged(
        entries(atomic(from), "The resources, in other namespaces, that may reference what `to` lists."),
        "from",
      ),
      to: judged(
        entries(atomic(ReferenceGrantTo), "The objects of this namespace that the resources of `from` may reference."),
        "to",
      ),
    })
    .strict()
    .describe("Which references from other namespaces into this one are trusted.");
}

/** The ReferenceGrant's CRD definition, its spec the one grants are written with (`referenceGrantSpec`). */
export function referenceGrantDefinition(spec: z.ZodType): KindDefinition {
  return {
    kind: REFERENCE_GRANT_KIND,
    plural: REFERENCE_GRANT_PLURAL,
    singular: "referencegrant",
    // No short name: Gateway API's ReferenceGrant already takes `refgrant`.
    shortNames: [],
    scope: "Namespaced",
    description:
      "Lets resources of the product in other namespaces reference objects of this namespace, in the manner of Gateway API's ReferenceGrant: a reference into another namespace (a PostgresCluster adopting a CNPG Cluster and its credentials Secret, for instance) is honoured only when a ReferenceGrant in the referenced namespace allows it. Removing the grant revokes what it allowed.",
    spec,
    printerColumns: [AGE_COLUMN],
  };
}
