import * as z from "zod";
import type { BackendTypes } from "../../api/backend-types.js";
import type { KindDefinition } from "../../api/crd.js";
import { withDefault } from "../../api/named-default.js";
import { byteQuantity } from "../../api/quantity.js";
import { ObjectRef, objectName, referenceTo, SecretKeyRef } from "../../api/refs.js";
import { PublishedClaim } from "../../api/resource-status.js";
import { storedResource } from "../../api/stored-resource.js";
import { DatastoreMode, DEFAULT_DATASTORE_MODE, DEFAULT_DELETION_POLICY, DeletionPolicy } from "../datastore/mode.js";
import { datastoreModeRules } from "../datastore/mode-rules.js";
import { DATASTORE_NAME_PATTERN, datastoreName, datastoreNameRules } from "../datastore/name.js";
import { adoptSecretsRef, externalSecretsRef } from "../datastore/secrets-use.js";
import { datastoreColumns, datastoreStatusFields } from "../datastore/status.js";
import { MONGODB_COMMUNITY_TARGET } from "./mongodb-community-api.js";

export const MONGO_CLUSTER_KIND = "MongoCluster";
export const MONGO_CLUSTER_PLURAL = "mongoclusters";

/**
 * Longest MongoCluster name. A managed one's MongoDBCommunity bears its name, and the operator names its
 * two StatefulSets after it, `<name>` and `<name>-arb` (the arbiters', made even with none): a
 * StatefulSet's name has at most 52 characters, so that the controller-revision-hash label of its pods
 * (the name and a hash) fits a label's 63. Every other name derived from it fits from there (`<name>-svc`,
 * `<name>-claim-<8 hex>-scram-credentials`). One limit for every mode: a mode can change to managed.
 */
export const MAX_MONGO_CLUSTER_NAME = 48;

const NAMED_AFTER_MONGO_CLUSTER =
  "its MongoDBCommunity, and the StatefulSets the MongoDB operator derives from it (<name>-arb), are named after it";

/** A MongoCluster's metadata.name: see MAX_MONGO_CLUSTER_NAME. */
export const mongoClusterName = datastoreName(MONGO_CLUSTER_KIND, MAX_MONGO_CLUSTER_NAME, NAMED_AFTER_MONGO_CLUSTER);

export const MongoType = z
  .enum(["community"])
  .describe(
    "Backend implementation: community, MongoDB Community Server as a MongoDBCommunity replica set of the MongoDB Controllers for Kubernetes.",
  );

/** The MongoCluster's backends: the one it declares is implemented. */
export const MONGO_TYPES: BackendTypes = {
  declared: MongoType.options,
  implemented: ["community"] satisfies z.infer<typeof MongoType>[],
  instead: "type: community",
};

/** @default for `spec.type`. */
export const DEFAULT_MONGO_TYPE = "community";
/** @default for `spec.managed.members`: a replica set that keeps a majority when one member is lost. */
export const DEFAULT_MONGO_MEMBERS = 3;
/**
 * @default for `spec.managed.version`: the MongoDB Community Server version the operator's own
 * MongoDBCommunity guide deploys at the pinned release (docs/mongodb.md).
 */
export const DEFAULT_MONGO_VERSION = "8.3.4";
/** @default for `spec.managed.storage.size`. */
export const DEFAULT_MONGO_STORAGE_SIZE = "10Gi";

const quantity = byteQuantity("10Gi");

export const MongoManaged = z
  .object({
    members: withDefault(z.number().int().min(1).max(7), { DEFAULT_MONGO_MEMBERS }).describe(
      `Members of the replica set (pods, each a voting member): 1 to 7, MongoDB's limit of voting members. Default ${DEFAULT_MONGO_MEMBERS}.`,
    ),
    version: withDefault(
      z
        .string()
        .max(32)
        .regex(/^[0-9]+\.[0-9]+\.[0-9]+$/, { message: 'must be a MongoDB version such as "8.3.4"' }),
      { DEFAULT_MONGO_VERSION },
    ).describe(
      `MongoDB Community Server version, MAJOR.MINOR.PATCH: the operator runs image mongodb-community-server:<version>-ubi8. Default ${DEFAULT_MONGO_VERSION}.`,
    ),
    storage: z
      .object({
        size: withDefault(quantity, { DEFAULT_MONGO_STORAGE_SIZE }).describe(
          `Size of each member's data volume, a Kubernetes quantity in bytes (e.g. 10Gi, 500Mi). Default ${DEFAULT_MONGO_STORAGE_SIZE}.`,
        ),
        storageClass: objectName
          .optional()
          .describe("StorageClass of the data and logs volumes. Default: the cluster's default StorageClass."),
      })
      .strict()
      .default({ size: DEFAULT_MONGO_STORAGE_SIZE })
      .describe(
        `Storage of each member (its logs volume keeps the operator's 2G). Default: ${DEFAULT_MONGO_STORAGE_SIZE} on the cluster's default StorageClass.`,
      ),
    deletionPolicy: withDefault(DeletionPolicy, { DEFAULT_DELETION_POLICY }).describe(
      "What happens to the MongoDBCommunity, which holds data, when this resource is deleted or leaves managed mode. Retain (default): it is kept and released to you, with its password Secrets and its pods' service account, with an Event. Delete: it is deleted, with an Event; the operator's StatefulSets go with it, but their volume claims (data-volume-<name>-<n>, logs-volume-<name>-<n>) stay until you delete them.",
    ),
  })
  .strict()
  .describe("Settings of a managed replica set (mode managed); defaults apply when omitted.");
export type MongoManaged = z.infer<typeof MongoManaged>;

export const MongoAdopt = z
  .object({
    communityRef: referenceTo(MONGODB_COMMUNITY_TARGET, ObjectRef).describe(
      "The existing MongoDBCommunity to adopt; may be in another namespace. Never modified or deleted.",
    ),
    credentialsSecretRef: SecretKeyRef.describe(
      "The Secret holding a user's credentials, keys username and password (`key` names the password's key instead) — such as the connection-string Secret the operator writes for each user; copied into <name>-adopted-credentials in this namespace.",
    ),
    secretsRef: adoptSecretsRef,
  })
  .strict()
  .describe("The replica set to adopt (mode adopt).");
export type MongoAdopt = z.infer<typeof MongoAdopt>;

export const MongoExternal = z
  .object({
    connectionSecretRef: SecretKeyRef.describe(
      "A Secret in this namespace with keys host, port (default 27017), username and password, and optionally database, for the external server.",
    ),
    secretsRef: externalSecretsRef,
  })
  .strict()
  .describe("The external server (mode external).");

/** The modes' rules (lib/kinds/datastore/mode-rules.ts), in zod (`superRefine` below) and as CEL for the apiserver. */
const MONGO_MODE_RULES = datastoreModeRules("spec.adopt.communityRef and spec.adopt.credentialsSecretRef");

/** Cross-field rules, stated once for zod and once, as CEL, for the apiserver. */
export const MONGO_SPEC_RULES = MONGO_MODE_RULES.rules;

export const MongoClusterSpec = z
  .object({
    type: withDefault(MongoType, { DEFAULT_MONGO_TYPE }).describe(
      `${MongoType.description} Default ${DEFAULT_MONGO_TYPE}.`,
    ),
    mode: withDefault(DatastoreMode, { DEFAULT_DATASTORE_MODE }).describe(
      `${DatastoreMode.description} Default ${DEFAULT_DATASTORE_MODE}.`,
    ),
    managed: MongoManaged.optional(),
    adopt: MongoAdopt.optional(),
    external: MongoExternal.optional(),
  })
  .strict()
  .superRefine((spec, ctx) => {
    for (const broken of MONGO_MODE_RULES.broken(spec))
      ctx.addIssue({ code: "custom", message: broken.message, path: [...broken.path] });
  })
  .meta({ "x-kubernetes-validations": MONGO_SPEC_RULES.map(({ rule, message }) => ({ rule, message })) })
  .describe("Desired state of a shared MongoDB: one replica set, a database and a user of its own per consumer.");
export type MongoClusterSpec = z.infer<typeof MongoClusterSpec>;
/** What a program writes as a MongoCluster's spec, each field documented (generated from MongoClusterSpec). */
export type { MongoClusterSpecInput } from "../../api/generated/mongo-cluster-spec.js";

export const MongoClusterStatus = z
  .object({
    ...datastoreStatusFields(DatastoreMode, ["owned", "adopted", "external"], {
      owner: "the replica set",
      connection:
        "Where consumers connect: the replica set's headless Service or the external host, the port (27017 unless the adopted one says otherwise), the Secret holding username and password, and the mongodb:// URL.",
    }),
    type: MongoType.optional().describe("The type last reconciled."),
    claims: z
      .array(PublishedClaim)
      .optional()
      .describe(
        "The databases and users made for the consumers that claim one here, each its own. Present in managed mode, the one that takes claims.",
      ),
  })
  .strict();
export type MongoClusterStatus = z.infer<typeof MongoClusterStatus>;

/** A MongoCluster as stored in the cluster. */
export const MongoCluster = storedResource(MONGO_CLUSTER_KIND, MongoClusterSpec, MongoClusterStatus, mongoClusterName);
export type MongoCluster = z.infer<typeof MongoCluster>;

export const MONGO_CLUSTER_DEFINITION: KindDefinition = {
  kind: MONGO_CLUSTER_KIND,
  plural: MONGO_CLUSTER_PLURAL,
  singular: "mongocluster",
  shortNames: ["mgc"],
  scope: "Namespaced",
  description:
    "A shared MongoDB for the platform: managed (the MongoDB Controllers for Kubernetes installed and a MongoDBCommunity replica set created by the product, a database and a user of its own for each consumer that claims one), adopted (an existing MongoDBCommunity, possibly in another namespace) or external (a server outside the cluster).",
  spec: MongoClusterSpec,
  status: MongoClusterStatus,
  printerColumns: datastoreColumns({
    modes: "managed, adopt or external",
    owner: "the replica set",
    wide: [{ name: "Host", type: "string", jsonPath: ".status.connection.host", description: "Connection host" }],
  }),
  namePattern: DATASTORE_NAME_PATTERN,
  rootValidations: datastoreNameRules(MONGO_CLUSTER_KIND, MAX_MONGO_CLUSTER_NAME, NAMED_AFTER_MONGO_CLUSTER),
};
