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
import { CNPG_APP_OWNER, CNPG_CLUSTER_TARGET } from "./cnpg.js";

export const POSTGRES_CLUSTER_KIND = "PostgresCluster";
export const POSTGRES_CLUSTER_PLURAL = "postgresclusters";

/** @default for `spec.type`. */
export const DEFAULT_POSTGRES_TYPE = "cnpg";
/** @default for `spec.managed.instances`. */
export const DEFAULT_POSTGRES_INSTANCES = 1;
/** @default for `spec.managed.storage.size`. */
export const DEFAULT_POSTGRES_STORAGE_SIZE = "10Gi";
/** Upper bound of `spec.databases`, so the apiserver can bound the cost of its validation rules. */
export const MAX_DATABASES = 64;

/**
 * Longest PostgresCluster name. A managed PostgresCluster's CNPG Cluster bears its name, and
 * CloudNativePG refuses a Cluster name of more than 50 characters, or one that is not a DNS-1035 label
 * (its webhook's validateName, internal/webhook/v1/cluster_webhook.go): the Services `<name>-rw`, `-ro`
 * and `-r`, the pods `<name>-<n>`, their jobs and volumes are named after it. Every other name derived
 * from it fits from there: `<name>-credentials`, `<name>-<owner>-credentials` (an owner has at most 63
 * characters), `<name>-adopted-credentials`, the Databases `<name>-<database>` and the Events
 * `<name>.<hash>`, all far below 253. One limit for every mode: a mode can change to managed.
 */
export const MAX_POSTGRES_CLUSTER_NAME = 50;

/** What is named after a PostgresCluster, for the messages of its name's rules. */
const NAMED_AFTER_POSTGRES_CLUSTER =
  "its CNPG Cluster, and the Services CloudNativePG derives from it (<name>-rw), are named after it";

/** A PostgresCluster's metadata.name: see MAX_POSTGRES_CLUSTER_NAME. */
export const postgresClusterName = datastoreName(
  "PostgresCluster",
  MAX_POSTGRES_CLUSTER_NAME,
  NAMED_AFTER_POSTGRES_CLUSTER,
);

export const PostgresType = z
  .enum(["cnpg", "zalando", "cockroachdb"])
  .describe(
    "Backend implementation. cnpg (CloudNativePG) is implemented; zalando and cockroachdb report NotImplemented.",
  );
export type PostgresType = z.infer<typeof PostgresType>;

/** The PostgresCluster's backends: only cnpg is implemented; the others are refused with NotImplemented. */
export const POSTGRES_TYPES: BackendTypes = {
  declared: PostgresType.options,
  implemented: ["cnpg"] satisfies PostgresType[],
  instead: "type: cnpg (CloudNativePG)",
};

/** A PostgreSQL identifier as CNPG accepts it for database and role names. */
const pgIdentifier = z
  .string()
  .max(63)
  .regex(/^[a-z_][a-z0-9_]{0,62}$/, {
    message:
      "must be a PostgreSQL identifier: lowercase letters, digits and '_', starting with a letter or '_', at most 63 characters",
  });

export const PostgresDatabase = z
  .object({
    name: pgIdentifier.describe(
      "Database name: a PostgreSQL identifier (lowercase letters, digits and '_', at most 63 characters), unique in the list.",
    ),
    owner: pgIdentifier
      .optional()
      .describe(
        `Role that owns the database. Default: in managed mode \`${CNPG_APP_OWNER}\`, the role CloudNativePG's initdb creates (its password in Secret <name>-credentials); in adopt mode the user of spec.adopt.credentialsSecretRef. In managed mode any other role is created, its password in Secret <name>-<owner>-credentials ('_' written '-').`,
      ),
  })
  .strict();
export type PostgresDatabase = z.infer<typeof PostgresDatabase>;

/**
 * Refuses a database list that names a database twice: the apiserver refuses it too (the list is keyed by
 * name), so every front end refuses it before anything is applied. `field` names the list in the message,
 * `path` locates it from the refined object. The one rule for every list of databases.
 */
export function refuseDuplicateDatabases(
  databases: readonly PostgresDatabase[],
  field: string,
  path: readonly (string | number)[],
  ctx: z.RefinementCtx,
): void {
  const seen = new Set<string>();
  for (const [index, database] of databases.entries()) {
    if (seen.has(database.name)) {
      ctx.addIssue({
        code: "custom",
        message: `${field} names must be unique: "${database.name}" appears twice; rename or remove the duplicate`,
        path: [...path, index, "name"],
      });
    }
    seen.add(database.name);
  }
}

const quantity = byteQuantity("10Gi");

export const PostgresManaged = z
  .object({
    instances: withDefault(z.number().int().min(1).max(9), { DEFAULT_POSTGRES_INSTANCES }).describe(
      `Number of PostgreSQL instances (pods), the primary plus its replicas: 1 to 9. Default ${DEFAULT_POSTGRES_INSTANCES}.`,
    ),
    storage: z
      .object({
        size: withDefault(quantity, { DEFAULT_POSTGRES_STORAGE_SIZE }).describe(
          `Size of each instance's volume, a Kubernetes quantity in bytes (e.g. 10Gi, 500Mi). Default ${DEFAULT_POSTGRES_STORAGE_SIZE}.`,
        ),
        storageClass: objectName
          .optional()
          .describe("StorageClass of the volumes. Default: the cluster's default StorageClass."),
      })
      .strict()
      .default({ size: DEFAULT_POSTGRES_STORAGE_SIZE })
      .describe(
        `Storage of each instance. Default: ${DEFAULT_POSTGRES_STORAGE_SIZE} on the cluster's default StorageClass.`,
      ),
    deletionPolicy: withDefault(DeletionPolicy, { DEFAULT_DELETION_POLICY }).describe(
      "What happens to the CNPG Cluster, which may hold data, when this resource is deleted or leaves managed mode. Retain (default): it is kept and released to you, with an Event. Delete: it is deleted, with an Event; the data is lost.",
    ),
  })
  .strict();
export type PostgresManaged = z.infer<typeof PostgresManaged>;

/**
 * The opt-in by which an adopting PostgresCluster takes its consumers' claims (docs/adr/0033-claims.md,
 * "Amended"): it makes them beside the adopted Cluster as objects of their own, never in the Cluster.
 */
export const PostgresAdoptClaims = z
  .object({
    deletionPolicy: withDefault(DeletionPolicy, { DEFAULT_DELETION_POLICY }).describe(
      "What CloudNativePG does in PostgreSQL with a claim's database and role when the claim goes (its consumer deleted or wired by hand), when spec.adopt.claims is removed, or when this PostgresCluster is deleted. Retain (default): both stay in the adopted cluster (reclaim policy retain). Delete: both are dropped (reclaim policy delete); the data is lost.",
    ),
  })
  .strict();
export type PostgresAdoptClaims = z.infer<typeof PostgresAdoptClaims>;

export const PostgresAdopt = z
  .object({
    clusterRef: referenceTo(CNPG_CLUSTER_TARGET, ObjectRef).describe(
      "The existing CNPG Cluster to adopt; may be in another namespace. Never modified or deleted.",
    ),
    credentialsSecretRef: SecretKeyRef.describe(
      "Where the credentials really live (a basic-auth Secret with username and password, usually beside the adopted cluster). They are copied into <name>-adopted-credentials in this namespace.",
    ),
    secretsRef: adoptSecretsRef,
    claims: PostgresAdoptClaims.optional().describe(
      "Opt-in: take the claims of the consumers auto-wired to this PostgresCluster (a Gateway: a database and a user of its own) in the adopted cluster. Each is made beside the adopted Cluster as CloudNativePG objects of its own, a DatabaseRole and a Database, its password generated into Secret <name>-claim-<digest> in this namespace (copied beside the Cluster when it is in another one); the adopted Cluster itself is never modified: its spec.managed.roles stays the user's. Needs CloudNativePG 1.30.0 or later (DatabaseRole). Default: absent, and a consumer's claim is refused (ClaimNotTaken).",
    ),
  })
  .strict();
export type PostgresAdopt = z.infer<typeof PostgresAdopt>;

export const PostgresExternal = z
  .object({
    connectionSecretRef: SecretKeyRef.describe(
      "A Secret in this namespace with keys host, port, username and password for the external server.",
    ),
    secretsRef: externalSecretsRef,
  })
  .strict();
export type PostgresExternal = z.infer<typeof PostgresExternal>;

/** The modes' rules (lib/kinds/datastore/mode-rules.ts), in zod (`superRefine` below) and as CEL for the apiserver. */
const POSTGRES_MODE_RULES = datastoreModeRules("spec.adopt.clusterRef and spec.adopt.credentialsSecretRef");

/**
 * Cross-field rules, stated once for zod and once, as CEL, for the apiserver; a test checks that both
 * reject the same objects with the same guidance.
 */
export const POSTGRES_SPEC_RULES = POSTGRES_MODE_RULES.rules;

export const PostgresClusterSpec = z
  .object({
    type: withDefault(PostgresType, { DEFAULT_POSTGRES_TYPE }).describe(
      `${PostgresType.description} Default ${DEFAULT_POSTGRES_TYPE}.`,
    ),
    mode: withDefault(DatastoreMode, { DEFAULT_DATASTORE_MODE }).describe(
      `${DatastoreMode.description} Default ${DEFAULT_DATASTORE_MODE}.`,
    ),
    databases: z
      .array(PostgresDatabase)
      .max(MAX_DATABASES)
      // The apiserver enforces unique names natively for a list keyed by name.
      .meta({ "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"] })
      .default([])
      .describe(
        `Logical databases to provision inside the cluster, one per consumer; at most ${MAX_DATABASES}. Default: none.`,
      ),
    managed: PostgresManaged.optional().describe(
      "Settings of a managed cluster (mode managed); defaults apply when omitted.",
    ),
    adopt: PostgresAdopt.optional().describe("The cluster to adopt (mode adopt)."),
    external: PostgresExternal.optional().describe("The external server (mode external)."),
  })
  .strict()
  .superRefine((spec, ctx) => {
    for (const broken of POSTGRES_MODE_RULES.broken(spec)) {
      ctx.addIssue({ code: "custom", message: broken.message, path: [...broken.path] });
    }
    refuseDuplicateDatabases(spec.databases, "spec.databases", ["databases"], ctx);
  })
  .meta({ "x-kubernetes-validations": POSTGRES_SPEC_RULES.map(({ rule, message }) => ({ rule, message })) })
  .describe("Desired state of a shared PostgreSQL cluster.");
export type PostgresClusterSpec = z.infer<typeof PostgresClusterSpec>;
/** What a program writes as a PostgresCluster's spec, each field documented (generated from PostgresClusterSpec). */
export type { PostgresClusterSpecInput } from "../../api/generated/postgres-cluster-spec.js";

export { CapabilityStatus, Connection, EmittedObject, Provenance } from "../../api/resource-status.js";

export const PostgresClusterStatus = z
  .object({
    ...datastoreStatusFields(DatastoreMode, ["owned", "adopted", "external"], {
      owner: "the datastore",
      connection:
        "Where consumers connect: the read-write Service of the cluster or the external host, the port (5432 for a managed or adopted cluster), the Secret holding username and password, and the postgresql:// URL.",
    }),
    type: PostgresType.optional().describe("The type last reconciled."),
    claims: z
      .array(PublishedClaim)
      .optional()
      .describe(
        "The databases and users made for the consumers that claim one here (a Gateway auto-wired to this cluster), each its own. Present when it takes claims: in managed mode, and in adopt mode with spec.adopt.claims.",
      ),
    host: z
      .string()
      .optional()
      .describe("Deprecated: read status.connection.host. Written as long as readers of it remain."),
    port: z
      .number()
      .int()
      .optional()
      .describe("Deprecated: read status.connection.port. Written as long as readers of it remain."),
    credentialsSecret: ObjectRef.optional().describe(
      "Deprecated: read status.connection.credentialsSecret. Written as long as readers of it remain.",
    ),
  })
  .strict();
export type PostgresClusterStatus = z.infer<typeof PostgresClusterStatus>;

/** A PostgresCluster as stored in the cluster. */
export const PostgresCluster = storedResource(
  POSTGRES_CLUSTER_KIND,
  PostgresClusterSpec,
  PostgresClusterStatus,
  postgresClusterName,
);
export type PostgresCluster = z.infer<typeof PostgresCluster>;

export const POSTGRES_CLUSTER_DEFINITION: KindDefinition = {
  kind: POSTGRES_CLUSTER_KIND,
  plural: POSTGRES_CLUSTER_PLURAL,
  singular: "postgrescluster",
  shortNames: ["pgc"],
  scope: "Namespaced",
  description:
    "A shared PostgreSQL cluster: managed (CloudNativePG installed and the cluster created by the product), adopted (an existing CNPG Cluster, possibly in another namespace) or external (a server outside the cluster).",
  spec: PostgresClusterSpec,
  status: PostgresClusterStatus,
  printerColumns: datastoreColumns({
    type: true,
    modes: "managed, adopt or external",
    owner: "the datastore",
    wide: [{ name: "Host", type: "string", jsonPath: ".status.connection.host", description: "Connection host" }],
  }),
  namePattern: DATASTORE_NAME_PATTERN,
  rootValidations: datastoreNameRules("PostgresCluster", MAX_POSTGRES_CLUSTER_NAME, NAMED_AFTER_POSTGRES_CLUSTER),
};
