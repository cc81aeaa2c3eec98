import * as z from "zod";
import { DATASTORE_READY } from "../../api/conditions.js";
import type { KindModule, ObservedRead } from "../../engine/kind-module.js";
import { outputsProjection } from "../../engine/outputs.js";
import { adoptedCredentialsName } from "../datastore/adopted-credentials.js";
import { type AdoptTarget, adoptOrExternalReads, adoptReferences } from "../datastore/adopted-datastore.js";
import {
  connectionCredentialsSecret,
  connectionOutputs,
  connectionOutputsShape,
} from "../datastore/connection-outputs.js";
import { credentialsOutputs } from "../datastore/credentials-outputs.js";
import { modeChangeReason, reachedModeAndType } from "../datastore/reached-mode.js";
import { datastoreSecretsDependencies, withDatastoreSecrets } from "../datastore/secrets-use.js";
import { SECRETS_MANAGEMENT_KIND } from "../secrets-management/schema.js";
import { desiredRedisInstance } from "./desired.js";
import {
  embeddedSentinelStatefulSetName,
  REDIS_OPERATOR_API_VERSION,
  REDIS_OPERATOR_GROUP,
  REDIS_PORT,
  REDIS_REPLICATION,
  REDIS_STANDALONE,
  redisStatefulSetName,
} from "./redis-operator-api.js";
import {
  REDIS_INSTANCE_DEFINITION,
  REDIS_TYPES,
  type RedisAdopt,
  RedisInstance,
  type RedisInstanceStatus,
  redisInstanceName,
} from "./schema.js";

/** The capability a managed RedisInstance needs (lib/catalog/redis-operator.ts). */
export const REDIS_OPERATOR_CAPABILITY = "redis-operator";

/** What an adopting RedisInstance adopts: a Redis or RedisReplication of the operator (spec.adopt.redisRef). */
const adoptTarget = (adopt: RedisAdopt): AdoptTarget => ({
  field: "spec.adopt.redisRef",
  group: REDIS_OPERATOR_GROUP,
  apiVersion: REDIS_OPERATOR_API_VERSION,
  kind: adopt.redisRef.kind,
  ref: adopt.redisRef,
});

function observes(resource: RedisInstance): ObservedRead[] {
  const { name, namespace } = resource.metadata;
  const { spec } = resource;
  if (spec.mode === "managed") {
    // The operator writes no status for a Redis: its StatefulSet says whether it serves.
    const statefulSet = (id: string, of: string): ObservedRead => ({
      id,
      field: "spec.managed",
      apiVersion: "apps/v1",
      kind: "StatefulSet",
      namespace,
      name: of,
      as: "object",
    });
    const sentinel = spec.managed?.topology === "replication" && spec.managed.sentinel;
    return [
      statefulSet("statefulSet", redisStatefulSetName(name)),
      ...(sentinel ? [statefulSet("sentinelStatefulSet", embeddedSentinelStatefulSetName(name))] : []),
    ];
  }
  return adoptOrExternalReads(resource, adoptTarget);
}

/** Kept with a retained Redis: the Secret its spec takes the password from (kubernetesConfig.redisSecret). */
function keepsPassword(
  redis: { readonly spec?: unknown },
  other: { readonly kind: string; readonly current: { readonly metadata: { readonly name: string } } },
): boolean {
  const secret = (redis.spec as { kubernetesConfig?: { redisSecret?: { name?: string } } } | undefined)
    ?.kubernetesConfig?.redisSecret?.name;
  return other.kind === "Secret" && other.current.metadata.name === secret;
}

/** Its password as an output (a Redis has no user), and its provenance. */
const CREDENTIALS_OUTPUTS = credentialsOutputs({ password: "The password, a secret in the Pulumi state." });

/**
 * RedisInstance: a Redis on the OT-CONTAINER-KIT redis-operator, managed (standalone, or a replication
 * with optional Sentinels), adopted or external. Upstream facts: ./redis-operator-api.ts, docs/redis.md.
 */
export const REDIS_INSTANCE_MODULE: KindModule<RedisInstance, RedisInstanceStatus> = {
  definition: REDIS_INSTANCE_DEFINITION,
  schema: RedisInstance,
  name: redisInstanceName,
  licence: {},
  types: REDIS_TYPES,
  phase: DATASTORE_READY,
  needs: (resource) => (resource.spec.mode === "managed" ? [REDIS_OPERATOR_CAPABILITY] : []),
  emits: [
    {
      apiVersion: "v1",
      kind: "Secret",
      plural: "secrets",
      keptWith: { note: "its password unchanged", phrase: (names) => `its password Secret ${names.join(", ")}` },
    },
    ...[REDIS_STANDALONE, REDIS_REPLICATION].map((kind) => ({
      ...kind,
      label: kind.kind,
      stateful: { keeps: keepsPassword },
    })),
  ],
  observes,
  references: (resource) => adoptReferences(resource, adoptTarget),
  referencesKinds: [SECRETS_MANAGEMENT_KIND],
  // Its adopt or external block's Secret, when a SecretsManagement provides it (secretsRef).
  dependsOn: datastoreSecretsDependencies,
  desired: (resource, view) => withDatastoreSecrets(resource, view, () => desiredRedisInstance(resource, view)),
  reached: reachedModeAndType,
  changeReason: modeChangeReason,
  copiedThroughReferences: (resource) => [adoptedCredentialsName(resource)],
  outputs: outputsProjection({
    schema: z.object({
      ...connectionOutputsShape("RedisInstance", {
        host: "the managed Redis's Service, the adopted one, or the external host",
        holds: "the password (key `password`)",
      }),
      ...CREDENTIALS_OUTPUTS.shape,
    }),
    secrets: ["password"],
    credentialsSecret: (status) => connectionCredentialsSecret(status.connection),
    project: (status, namespace, credentials) => ({
      ...connectionOutputs(status.connection, namespace, REDIS_PORT),
      ...CREDENTIALS_OUTPUTS.project(status, credentials),
    }),
  }),
};
