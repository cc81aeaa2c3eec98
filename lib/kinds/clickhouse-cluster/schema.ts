import * as z from "zod";
import type { BackendTypes } from "../../api/backend-types.js";
import type { KindDefinition } from "../../api/crd.js";
import { imageReference } from "../../api/image-reference.js";
import { withDefault } from "../../api/named-default.js";
import { byteQuantity } from "../../api/quantity.js";
import { ObjectRef, objectName, referenceTo, SecretKeyRef } from "../../api/refs.js";
import { storedResource } from "../../api/stored-resource.js";
import { DatastoreMode, DEFAULT_DATASTORE_MODE, DEFAULT_DELETION_POLICY, DeletionPolicy } from "../datastore/mode.js";
import { datastoreModeRules } from "../datastore/mode-rules.js";
import { DATASTORE_NAME_PATTERN, datastoreName, datastoreNameRules } from "../datastore/name.js";
import { adoptSecretsRef, externalSecretsRef } from "../datastore/secrets-use.js";
import { datastoreColumns, datastoreStatusFields } from "../datastore/status.js";
import {
  CLICKHOUSE_CLUSTER,
  CLICKHOUSE_DEFAULT_USER,
  CLICKHOUSE_GROUP,
  DEFAULT_CLICKHOUSE_IMAGE,
  DEFAULT_KEEPER_IMAGE,
  KEEPER_REPLICA_COUNTS,
} from "./clickhouse-operator-api.js";

export const CLICKHOUSE_CLUSTER_KIND = "ClickHouseCluster";
export const CLICKHOUSE_CLUSTER_PLURAL = "clickhouseclusters";

/** The most shards, and the most replicas per shard, of a managed cluster: one digit each in the names below. */
export const MAX_CLICKHOUSE_SHARDS = 9;
export const MAX_CLICKHOUSE_REPLICAS = 9;

/**
 * Longest ClickHouseCluster name. A managed one's ClickHouseCluster and KeeperCluster bear its name, and
 * the operator names a StatefulSet per replica `<name>-clickhouse-<shard>-<replica>`: its pods carry
 * `controller-revision-hash: <statefulset>-<10 characters>`, a label value of at most 63, so a StatefulSet
 * name of at most 52 — 37 characters, with one-digit shard and replica numbers.
 */
export const MAX_CLICKHOUSE_CLUSTER_NAME = 37;

const NAMED_AFTER_CLICKHOUSE_CLUSTER =
  "its ClickHouseCluster, KeeperCluster and Service are named after it, and the operator's StatefulSets <name>-clickhouse-<shard>-<replica> after that";

/** A ClickHouseCluster's metadata.name: see MAX_CLICKHOUSE_CLUSTER_NAME. */
export const clickhouseClusterName = datastoreName(
  CLICKHOUSE_CLUSTER_KIND,
  MAX_CLICKHOUSE_CLUSTER_NAME,
  NAMED_AFTER_CLICKHOUSE_CLUSTER,
);

export const ClickHouseType = z
  .enum(["clickhouse"])
  .describe("Backend implementation: clickhouse, on the ClickHouse Inc. operator (clickhouse.com/v1alpha1).");

/** The ClickHouseCluster's backends: the one it declares is implemented. */
export const CLICKHOUSE_TYPES: BackendTypes = {
  declared: ClickHouseType.options,
  implemented: ["clickhouse"] satisfies z.infer<typeof ClickHouseType>[],
  instead: "type: clickhouse",
};

/** @default for `spec.type`. */
export const DEFAULT_CLICKHOUSE_TYPE = "clickhouse";
/** @default for `spec.managed.replicas`: one server; more make each shard highly available. */
export const DEFAULT_CLICKHOUSE_REPLICAS = 1;
/** @default for `spec.managed.shards`. */
export const DEFAULT_CLICKHOUSE_SHARDS = 1;
/** @default for `spec.managed.storage.size`. */
export const DEFAULT_CLICKHOUSE_STORAGE_SIZE = "10Gi";
/** @default for `spec.managed.keeper.replicas`: a standalone Keeper; 3 survive the loss of one. */
export const DEFAULT_KEEPER_REPLICAS = 1;
/** @default for `spec.managed.keeper.storage.size`. */
export const DEFAULT_KEEPER_STORAGE_SIZE = "1Gi";
/** @default for `spec.adopt.username`: the user every ClickHouse cluster of the operator has. */
export const DEFAULT_ADOPTED_CLICKHOUSE_USERNAME = CLICKHOUSE_DEFAULT_USER;

/**
 * A ClickHouse user's name as the product writes it into a credentials Secret: an identifier ClickHouse
 * takes unquoted (letters, digits, `_`), with `-` and `.` that user names commonly hold, at most 64 characters.
 */
export const clickhouseUserName = z
  .string()
  .max(64)
  .regex(/^[A-Za-z_][A-Za-z0-9_.-]*$/, {
    message: "must be a ClickHouse user name: letters, digits, '_', '-' and '.', starting with a letter or '_'",
  });

/** A volume per pod: its size and StorageClass. */
function storage(what: string, defaultSize: string, constant: Record<string, string>) {
  return z
    .object({
      size: withDefault(byteQuantity(defaultSize), constant).describe(
        `Size of ${what}, a Kubernetes quantity in bytes (e.g. ${defaultSize}). Default ${defaultSize}.`,
      ),
      storageClass: objectName
        .optional()
        .describe("StorageClass of the volumes. Default: the cluster's default StorageClass."),
    })
    .strict()
    .default({ size: defaultSize });
}

export const KeeperManaged = z
  .object({
    replicas: withDefault(z.literal([...KEEPER_REPLICA_COUNTS]), { DEFAULT_KEEPER_REPLICAS }).describe(
      `Keeper pods: an odd number, ${KEEPER_REPLICA_COUNTS.join(", ")}, for a quorum. Default ${DEFAULT_KEEPER_REPLICAS} (standalone).`,
    ),
    image: withDefault(imageReference, { DEFAULT_KEEPER_IMAGE }).describe(
      `The ClickHouse Keeper image. Default ${DEFAULT_KEEPER_IMAGE} (the operator's own default is :latest).`,
    ),
    storage: storage("each Keeper pod's volume", DEFAULT_KEEPER_STORAGE_SIZE, { DEFAULT_KEEPER_STORAGE_SIZE }).describe(
      `Storage of each Keeper pod (its coordination log and snapshots). Default: ${DEFAULT_KEEPER_STORAGE_SIZE} on the cluster's default StorageClass.`,
    ),
  })
  .strict()
  .default({
    replicas: DEFAULT_KEEPER_REPLICAS,
    image: DEFAULT_KEEPER_IMAGE,
    storage: { size: DEFAULT_KEEPER_STORAGE_SIZE },
  })
  .describe(
    "The KeeperCluster that coordinates the servers (replication, distributed DDL); defaults apply when omitted.",
  );

export const ClickHouseManaged = z
  .object({
    replicas: withDefault(z.number().int().min(1).max(MAX_CLICKHOUSE_REPLICAS), {
      DEFAULT_CLICKHOUSE_REPLICAS,
    }).describe(
      `Servers per shard, each with its own volume: 1 to ${MAX_CLICKHOUSE_REPLICAS}. Default ${DEFAULT_CLICKHOUSE_REPLICAS}.`,
    ),
    shards: withDefault(z.number().int().min(1).max(MAX_CLICKHOUSE_SHARDS), { DEFAULT_CLICKHOUSE_SHARDS }).describe(
      `Shards: 1 to ${MAX_CLICKHOUSE_SHARDS}. Default ${DEFAULT_CLICKHOUSE_SHARDS}. Fewer shards than before delete the removed shards and their data (the operator's warning).`,
    ),
    image: withDefault(imageReference, { DEFAULT_CLICKHOUSE_IMAGE }).describe(
      `The ClickHouse server image. Default ${DEFAULT_CLICKHOUSE_IMAGE} (the operator's own default is :latest).`,
    ),
    storage: storage("each server's data volume", DEFAULT_CLICKHOUSE_STORAGE_SIZE, {
      DEFAULT_CLICKHOUSE_STORAGE_SIZE,
    }).describe(
      `Storage of each server (its data and logs). Default: ${DEFAULT_CLICKHOUSE_STORAGE_SIZE} on the cluster's default StorageClass.`,
    ),
    keeper: KeeperManaged,
    deletionPolicy: withDefault(DeletionPolicy, { DEFAULT_DELETION_POLICY }).describe(
      "What happens to the ClickHouseCluster, which holds data, when this resource is deleted or leaves managed mode. Retain (default): it is kept and released to you, with its KeeperCluster, its password Secret and its Service, and an Event. Delete: they are deleted, with an Event; the operator's StatefulSets go with the ClickHouseCluster (their data volumes stay, as Kubernetes keeps a StatefulSet's claims).",
    ),
  })
  .strict()
  .describe("Settings of a managed ClickHouse (mode managed); defaults apply when omitted.");
export type ClickHouseManaged = z.infer<typeof ClickHouseManaged>;

export const ClickHouseAdopt = z
  .object({
    clusterRef: referenceTo({ group: CLICKHOUSE_GROUP, kinds: [CLICKHOUSE_CLUSTER.kind] }, ObjectRef).describe(
      "The existing ClickHouseCluster of the ClickHouse operator to adopt; may be in another namespace. Never modified or deleted.",
    ),
    credentialsSecretRef: SecretKeyRef.describe(
      "The Secret holding the password of spec.adopt.username (key `password` unless `key` says), e.g. the one the adopted cluster's spec.settings.defaultUserPassword names; copied into <name>-adopted-credentials in this namespace.",
    ),
    secretsRef: adoptSecretsRef,
    username: withDefault(clickhouseUserName, { DEFAULT_ADOPTED_CLICKHOUSE_USERNAME }).describe(
      `The ClickHouse user consumers connect as. Default ${DEFAULT_ADOPTED_CLICKHOUSE_USERNAME}.`,
    ),
  })
  .strict()
  .describe("The ClickHouse cluster to adopt (mode adopt).");
export type ClickHouseAdopt = z.infer<typeof ClickHouseAdopt>;

export const ClickHouseExternal = z
  .object({
    connectionSecretRef: SecretKeyRef.describe(
      "A Secret in this namespace with keys host, port (the HTTP interface, default 8123), nativePort (default 9000), username and password for the external server.",
    ),
    secretsRef: externalSecretsRef,
  })
  .strict()
  .describe("The external server (mode external).");

const MODE_RULES = datastoreModeRules("spec.adopt.clusterRef and spec.adopt.credentialsSecretRef");

/** Cross-field rules, stated once for zod and once, as CEL, for the apiserver. */
export const CLICKHOUSE_SPEC_RULES = MODE_RULES.rules;

export const ClickHouseClusterSpec = z
  .object({
    type: withDefault(ClickHouseType, { DEFAULT_CLICKHOUSE_TYPE }).describe(
      `${ClickHouseType.description} Default ${DEFAULT_CLICKHOUSE_TYPE}.`,
    ),
    mode: withDefault(DatastoreMode, { DEFAULT_DATASTORE_MODE }).describe(
      `${DatastoreMode.description} Default ${DEFAULT_DATASTORE_MODE}.`,
    ),
    managed: ClickHouseManaged.optional(),
    adopt: ClickHouseAdopt.optional(),
    external: ClickHouseExternal.optional(),
  })
  .strict()
  .superRefine((spec, ctx) => {
    for (const broken of MODE_RULES.broken(spec))
      ctx.addIssue({ code: "custom", message: broken.message, path: [...broken.path] });
  })
  .meta({ "x-kubernetes-validations": CLICKHOUSE_SPEC_RULES.map(({ rule, message }) => ({ rule, message })) })
  .describe("Desired state of a ClickHouse for the platform's analytics (Langfuse traces).");
export type ClickHouseClusterSpec = z.infer<typeof ClickHouseClusterSpec>;
/** What a program writes as a ClickHouseCluster's spec, each field documented (generated from ClickHouseClusterSpec). */
export type { ClickHouseClusterSpecInput } from "../../api/generated/click-house-cluster-spec.js";

export const ClickHouseClusterStatus = z
  .object({
    ...datastoreStatusFields(DatastoreMode, ["owned", "adopted", "external"], {
      owner: "the ClickHouse cluster",
      connection:
        "Where consumers connect over HTTP (port 8123 in the cluster, url http://host:port), and the Secret that holds the username and password.",
    }),
    nativePort: z
      .number()
      .int()
      .optional()
      .describe("The port of ClickHouse's native protocol at the connection's host (9000 in the cluster)."),
    type: ClickHouseType.optional().describe("The type last reconciled."),
  })
  .strict();
export type ClickHouseClusterStatus = z.infer<typeof ClickHouseClusterStatus>;

/** A ClickHouseCluster as stored in the cluster. */
export const ClickHouseCluster = storedResource(
  CLICKHOUSE_CLUSTER_KIND,
  ClickHouseClusterSpec,
  ClickHouseClusterStatus,
  clickhouseClusterName,
);
export type ClickHouseCluster = z.infer<typeof ClickHouseCluster>;

export const CLICKHOUSE_CLUSTER_DEFINITION: KindDefinition = {
  kind: CLICKHOUSE_CLUSTER_KIND,
  plural: CLICKHOUSE_CLUSTER_PLURAL,
  singular: "clickhousecluster",
  shortNames: ["nchc"],
  scope: "Namespaced",
  description:
    "A ClickHouse for the platform: managed (the ClickHouse operator installed, after cert-manager, and a ClickHouseCluster with its KeeperCluster created by the product), adopted (an existing ClickHouseCluster of that operator, possibly in another namespace) or external (a server outside the cluster).",
  spec: ClickHouseClusterSpec,
  status: ClickHouseClusterStatus,
  printerColumns: datastoreColumns({
    modes: "managed, adopt or external",
    owner: "the ClickHouse cluster",
    wide: [{ name: "Host", type: "string", jsonPath: ".status.connection.host", description: "Connection host" }],
  }),
  namePattern: DATASTORE_NAME_PATTERN,
  rootValidations: datastoreNameRules(
    CLICKHOUSE_CLUSTER_KIND,
    MAX_CLICKHOUSE_CLUSTER_NAME,
    NAMED_AFTER_CLICKHOUSE_CLUSTER,
  ),
};
