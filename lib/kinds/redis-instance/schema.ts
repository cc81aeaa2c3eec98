import * as z from "zod";
import type { BackendTypes } from "../../api/backend-types.js";
import type { KindDefinition } from "../../api/crd.js";
import { imageReference } from "../../api/image-reference.js";
import { withDefault } from "../../api/named-default.js";
import { byteQuantity } from "../../api/quantity.js";
import { namespaceName, objectName, referenceTo, SecretKeyRef } from "../../api/refs.js";
import { storedResource } from "../../api/stored-resource.js";
import { DatastoreMode, DEFAULT_DATASTORE_MODE, DEFAULT_DELETION_POLICY, DeletionPolicy } from "../datastore/mode.js";
import { datastoreModeRules } from "../datastore/mode-rules.js";
import { DATASTORE_NAME_PATTERN, datastoreName, datastoreNameRules } from "../datastore/name.js";
import { adoptSecretsRef, externalSecretsRef } from "../datastore/secrets-use.js";
import { datastoreColumns, datastoreStatusFields } from "../datastore/status.js";
import {
  DEFAULT_REDIS_IMAGE,
  DEFAULT_SENTINEL_IMAGE,
  REDIS_OPERATOR_GROUP,
  REDIS_REPLICATION,
  REDIS_STANDALONE,
} from "./redis-operator-api.js";

export const REDIS_INSTANCE_KIND = "RedisInstance";
export const REDIS_INSTANCE_PLURAL = "redisinstances";

/**
 * Longest RedisInstance name. A managed one's Redis or RedisReplication bears its name, and the operator
 * names its Services after it (`<name>-additional` the longest, `<name>-replica`, `<name>-s-hl`): a Service
 * name is a DNS-1035 label of at most 63 characters.
 */
export const MAX_REDIS_INSTANCE_NAME = 52;

const NAMED_AFTER_REDIS_INSTANCE =
  "its Redis, its StatefulSet and the Services the redis-operator derives from it (<name>-additional) are named after it";

/** A RedisInstance's metadata.name: see MAX_REDIS_INSTANCE_NAME. */
export const redisInstanceName = datastoreName(
  REDIS_INSTANCE_KIND,
  MAX_REDIS_INSTANCE_NAME,
  NAMED_AFTER_REDIS_INSTANCE,
);

const quantity = byteQuantity("1Gi");

export const RedisType = z
  .enum(["redis"])
  .describe("Backend implementation: redis, on the OT-CONTAINER-KIT redis-operator.");

/** The RedisInstance's backends: the one it declares is implemented. */
export const REDIS_TYPES: BackendTypes = {
  declared: RedisType.options,
  implemented: ["redis"] satisfies z.infer<typeof RedisType>[],
  instead: "type: redis",
};

export const RedisTopology = z
  .enum(["standalone", "replication"])
  .describe(
    "standalone: one Redis pod (a Redis). replication: a master and its replicas (a RedisReplication), optionally watched by Sentinels.",
  );

/** @default for `spec.type`. */
export const DEFAULT_REDIS_TYPE = "redis";
/** @default for `spec.managed.topology`. */
export const DEFAULT_REDIS_TOPOLOGY = "standalone";
/** @default for `spec.managed.replicas`. */
export const DEFAULT_REDIS_REPLICAS = 3;
/** @default for `spec.managed.sentinel`: a replication fails over only when asked to. */
export const DEFAULT_REDIS_SENTINEL = false;
/** @default for `spec.managed.storage.size`. */
export const DEFAULT_REDIS_STORAGE_SIZE = "1Gi";
/** @default for `spec.adopt.redisRef.kind`. */
export const DEFAULT_ADOPTED_REDIS_KIND = "Redis";

export const RedisManaged = z
  .object({
    topology: withDefault(RedisTopology, { DEFAULT_REDIS_TOPOLOGY }).describe(
      `${RedisTopology.description} Default ${DEFAULT_REDIS_TOPOLOGY}.`,
    ),
    replicas: withDefault(z.number().int().min(2).max(9), { DEFAULT_REDIS_REPLICAS }).describe(
      `Pods of a replication, the master included: 2 to 9. Default ${DEFAULT_REDIS_REPLICAS}; ignored for standalone.`,
    ),
    sentinel: withDefault(z.boolean(), { DEFAULT_REDIS_SENTINEL }).describe(
      `With topology replication: Sentinels beside the pods, which fail the master over. Default ${DEFAULT_REDIS_SENTINEL}.`,
    ),
    image: withDefault(imageReference, { DEFAULT_REDIS_IMAGE }).describe(
      `The Redis image (the redis-operator has none of its own). Default ${DEFAULT_REDIS_IMAGE}.`,
    ),
    sentinelImage: withDefault(imageReference, { DEFAULT_SENTINEL_IMAGE }).describe(
      `The Sentinel image, with sentinel: true. Default ${DEFAULT_SENTINEL_IMAGE}.`,
    ),
    storage: z
      .object({
        size: withDefault(quantity, { DEFAULT_REDIS_STORAGE_SIZE }).describe(
          `Size of each pod's volume, a Kubernetes quantity in bytes (e.g. 1Gi, 500Mi). Default ${DEFAULT_REDIS_STORAGE_SIZE}.`,
        ),
        storageClass: objectName
          .optional()
          .describe("StorageClass of the volumes. Default: the cluster's default StorageClass."),
      })
      .strict()
      .default({ size: DEFAULT_REDIS_STORAGE_SIZE })
      .describe(`Storage of each pod. Default: ${DEFAULT_REDIS_STORAGE_SIZE} on the cluster's default StorageClass.`),
    deletionPolicy: withDefault(DeletionPolicy, { DEFAULT_DELETION_POLICY }).describe(
      "What happens to the Redis, which may hold data, when this resource is deleted or leaves managed mode. Retain (default): it is kept and released to you, with an Event. Delete: it is deleted, with an Event; the data is lost.",
    ),
  })
  .strict()
  .describe("Settings of a managed Redis (mode managed); defaults apply when omitted.");
export type RedisManaged = z.infer<typeof RedisManaged>;

export const RedisAdopt = z
  .object({
    redisRef: referenceTo(
      { group: REDIS_OPERATOR_GROUP, kinds: [REDIS_STANDALONE.kind, REDIS_REPLICATION.kind], kindField: "kind" },
      z
        .object({
          kind: withDefault(z.enum(["Redis", "RedisReplication"]), { DEFAULT_ADOPTED_REDIS_KIND }).describe(
            `Kind of the redis-operator resource: Redis (standalone) or RedisReplication. Default ${DEFAULT_ADOPTED_REDIS_KIND}.`,
          ),
          name: objectName.describe("Name of the redis-operator resource."),
          namespace: namespaceName.optional().describe("Its namespace; defaults to this resource's."),
        })
        .strict(),
    ).describe(
      "The existing Redis of the redis-operator to adopt; may be in another namespace. Never modified or deleted.",
    ),
    credentialsSecretRef: SecretKeyRef.describe(
      "The Secret holding its password (key `password` unless `key` says); copied into <name>-adopted-credentials in this namespace.",
    ),
    secretsRef: adoptSecretsRef,
  })
  .strict()
  .describe("The Redis to adopt (mode adopt).");
export type RedisAdopt = z.infer<typeof RedisAdopt>;

export const RedisExternal = z
  .object({
    connectionSecretRef: SecretKeyRef.describe(
      "A Secret in this namespace with keys host, port (default 6379) and password for the external server.",
    ),
    secretsRef: externalSecretsRef,
  })
  .strict()
  .describe("The external server (mode external).");

const REDIS_MODE_RULES = datastoreModeRules("spec.adopt.redisRef and spec.adopt.credentialsSecretRef");

const SENTINEL_NEEDS_REPLICATION = {
  rule: "!has(self.managed) || !self.managed.sentinel || self.managed.topology == 'replication'",
  message: "spec.managed.sentinel needs spec.managed.topology: replication (Sentinels watch a master and its replicas)",
  path: ["managed", "sentinel"],
};

/** Cross-field rules, stated once for zod and once, as CEL, for the apiserver: the modes', then its own. */
export const REDIS_SPEC_RULES = [...REDIS_MODE_RULES.rules, SENTINEL_NEEDS_REPLICATION];

function brokenRules(
  spec: Parameters<typeof REDIS_MODE_RULES.broken>[0] & {
    managed?: { topology: string; sentinel: boolean } | undefined;
  },
) {
  const sentinel = spec.managed?.sentinel && spec.managed.topology !== "replication";
  return [...REDIS_MODE_RULES.broken(spec), ...(sentinel ? [SENTINEL_NEEDS_REPLICATION] : [])];
}

export const RedisInstanceSpec = z
  .object({
    type: withDefault(RedisType, { DEFAULT_REDIS_TYPE }).describe(
      `${RedisType.description} Default ${DEFAULT_REDIS_TYPE}.`,
    ),
    mode: withDefault(DatastoreMode, { DEFAULT_DATASTORE_MODE }).describe(
      `${DatastoreMode.description} Default ${DEFAULT_DATASTORE_MODE}.`,
    ),
    managed: RedisManaged.optional(),
    adopt: RedisAdopt.optional(),
    external: RedisExternal.optional(),
  })
  .strict()
  .superRefine((spec, ctx) => {
    for (const broken of brokenRules(spec))
      ctx.addIssue({ code: "custom", message: broken.message, path: [...broken.path] });
  })
  .meta({ "x-kubernetes-validations": REDIS_SPEC_RULES.map(({ rule, message }) => ({ rule, message })) })
  .describe("Desired state of a Redis for the platform's caches and queues.");
export type RedisInstanceSpec = z.infer<typeof RedisInstanceSpec>;
/** What a program writes as a RedisInstance's spec, each field documented (generated from RedisInstanceSpec). */
export type { RedisInstanceSpecInput } from "../../api/generated/redis-instance-spec.js";

export const RedisInstanceStatus = z
  .object({
    ...datastoreStatusFields(DatastoreMode, ["owned", "adopted", "external"], {
      owner: "the Redis",
      connection: "Where consumers connect, and the Secret that holds the password.",
    }),
    type: RedisType.optional().describe("The type last reconciled."),
  })
  .strict();
export type RedisInstanceStatus = z.infer<typeof RedisInstanceStatus>;

/** A RedisInstance as stored in the cluster. */
export const RedisInstance = storedResource(
  REDIS_INSTANCE_KIND,
  RedisInstanceSpec,
  RedisInstanceStatus,
  redisInstanceName,
);
export type RedisInstance = z.infer<typeof RedisInstance>;

export const REDIS_INSTANCE_DEFINITION: KindDefinition = {
  kind: REDIS_INSTANCE_KIND,
  plural: REDIS_INSTANCE_PLURAL,
  singular: "redisinstance",
  shortNames: ["rdi"],
  scope: "Namespaced",
  description:
    "A Redis for the platform: managed (the redis-operator installed and a Redis or a replication created by the product), adopted (an existing Redis of that operator, possibly in another namespace) or external (a server outside the cluster).",
  spec: RedisInstanceSpec,
  status: RedisInstanceStatus,
  printerColumns: datastoreColumns({
    modes: "managed, adopt or external",
    owner: "the Redis",
    wide: [{ name: "Host", type: "string", jsonPath: ".status.connection.host", description: "Connection host" }],
  }),
  namePattern: DATASTORE_NAME_PATTERN,
  rootValidations: datastoreNameRules(REDIS_INSTANCE_KIND, MAX_REDIS_INSTANCE_NAME, NAMED_AFTER_REDIS_INSTANCE),
};
