import { z } from "zod";
import { AGE_COLUMN, type KindDefinition } from "./crd.js";
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

const entries = <T extends z.ZodType>(entry: T, what: string) =>
  z
    .array(entry)
    .min(1)
    .max(MAX_GRANT_ENTRIES)
    .meta({ "x-kubernetes-list-type": "atomic" })
    .describe(`${what} Entries are combined with OR.`);

export const ReferenceGrantSpec = z
  .object({
    from: entries(ReferenceGrantFrom, "The resources, in other namespaces, that may reference what `to` lists."),
    to: entries(ReferenceGrantTo, "The objects of this namespace that the resources of `from` may reference."),
  })
  .strict()
  .describe("Which references from other namespaces into this one are trusted.");
export type ReferenceGrantSpec = z.infer<typeof ReferenceGrantSpec>;
/** What a program writes as a ReferenceGrant's spec, each field documented (generated from ReferenceGrantSpec). */
export type { ReferenceGrantSpecInput } from "./generated/reference-grant-spec.js";

/** A ReferenceGrant as stored in the cluster (it has no status: nothing is reconciled into it). */
export const ReferenceGrant = storedResource(REFERENCE_GRANT_KIND, ReferenceGrantSpec, z.never());
export type ReferenceGrant = z.infer<typeof ReferenceGrant>;

export const REFERENCE_GRANT_DEFINITION: KindDefinition = {
  kind: REFERENCE_GRANT_KIND,
  plural: REFERENCE_GRANT_PLURAL,
  singular: "referencegrant",
  // No short name: Gateway API's ReferenceGrant already takes `refgrant`.
  shortNames: [],
  scope: "Namespaced",
  description:
    "Lets resources of the product in other namespaces reference objects of this namespace, in the manner of Gateway API's ReferenceGrant: a reference into another namespace (a PostgresCluster adopting a CNPG Cluster and its credentials Secret, for instance) is honoured only when a ReferenceGrant in the referenced namespace allows it. Removing the grant revokes what it allowed.",
  spec: ReferenceGrantSpec,
  printerColumns: [AGE_COLUMN],
};
