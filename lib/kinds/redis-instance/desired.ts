import type { V1StatefulSet } from "@kubernetes/client-node";
import { refNamespace } from "../../api/refs.js";
import { DELETION_POLICY_ANNOTATION } from "../../engine/garbage.js";
import { generateSecretStep, type KeyRule } from "../../engine/generated-secret.js";
import type { Desired } from "../../engine/kind-module.js";
import { type Credentials, type KubeObject, keyOf } from "../../engine/objects.js";
import { ownerReference } from "../../engine/ownership.js";
import type { DesiredStep } from "../../engine/steps.js";
import type { EngineView } from "../../engine/view.js";
import { adoptedCredentialsCopy } from "../datastore/adopted-credentials.js";
import { connectionUrl } from "../datastore/connection-url.js";
import { externalConnection } from "../datastore/external-connection.js";
import {
  REDIS_PORT,
  REDIS_REPLICATION,
  REDIS_STANDALONE,
  type RedisReplicationStatus,
  replicationMasterHost,
  replicationReadiness,
  standaloneHost,
  standaloneReadiness,
} from "./redis-operator-api.js";
import { type RedisInstance, type RedisInstanceStatus, RedisManaged } from "./schema.js";

type RedisDesired = Desired<RedisInstanceStatus>;

/** Sentinels beside a replication: the quorum of 2 the operator's defaults assume needs 3. */
const SENTINELS = 3;

/** The key of the password in every Secret the product writes for a Redis. */
export const PASSWORD_KEY = "password";
/** The password of a managed Redis: 24 random bytes, as base64url, generated once into its Secret. */
const PASSWORD: KeyRule = { length: 32, alphabet: "base64url" };

/** The name of a managed RedisInstance's generated password Secret. */
export function credentialsName(resource: RedisInstance): string {
  return `${resource.metadata.name}-credentials`;
}

function notReady(provenance: RedisInstanceStatus["provenance"], reason: string, message: string): RedisDesired {
  return { steps: [], ...(provenance ? { status: { provenance } } : {}), verdict: { ok: false, reason, message } };
}

function wired(
  provenance: NonNullable<RedisInstanceStatus["provenance"]>,
  host: string,
  port: number,
  secret: { name: string; namespace: string },
): Pick<RedisDesired, "status" | "readyMessage"> {
  return {
    status: {
      provenance,
      connection: { host, port, credentialsSecret: secret, url: connectionUrl("redis", host, port) },
    },
    readyMessage: `Redis reachable at ${host}:${port}`,
  };
}

/** The upstream resource a managed RedisInstance is: a Redis, or a RedisReplication (with Sentinels). */
function upstream(resource: RedisInstance, managed: RedisManaged): KubeObject {
  const { name, namespace } = resource.metadata;
  const replication = managed.topology === "replication";
  const kind = replication ? REDIS_REPLICATION : REDIS_STANDALONE;
  const retain = managed.deletionPolicy !== "Delete";
  return {
    apiVersion: kind.apiVersion,
    kind: kind.kind,
    metadata: { name, namespace, annotations: { [DELETION_POLICY_ANNOTATION]: managed.deletionPolicy } },
    spec: {
      ...(replication ? { clusterSize: managed.replicas } : {}),
      kubernetesConfig: {
        image: managed.image,
        redisSecret: { name: credentialsName(resource), key: PASSWORD_KEY },
      },
      storage: {
        volumeClaimTemplate: {
          spec: {
            accessModes: ["ReadWriteOnce"],
            resources: { requests: { storage: managed.storage.size } },
            ...(managed.storage.storageClass ? { storageClassName: managed.storage.storageClass } : {}),
          },
        },
        // The operator deletes a Redis's data claims with it unless told to keep them: under Retain, the
        // data outlives whoever deletes the Redis later (docs/redis.md, "What the operator creates").
        keepAfterDelete: retain,
      },
      ...(replication && managed.sentinel ? { sentinel: { size: SENTINELS, image: managed.sentinelImage } } : {}),
    },
  };
}

function desiredManaged(resource: RedisInstance, view: EngineView): RedisDesired {
  const { name, namespace } = resource.metadata;
  // Omitted: the schema's defaults, as if written out.
  const managed = resource.spec.managed ?? RedisManaged.parse({});
  const secret: KubeObject = {
    apiVersion: "v1",
    kind: "Secret",
    type: "Opaque",
    metadata: {
      name: credentialsName(resource),
      namespace,
      // Under Retain no owner reference, as on the Redis: the password of kept data must stay with it.
      ...(managed.deletionPolicy === "Delete" ? { ownerReferences: [ownerReference(resource)] } : {}),
    },
  };
  const redis = upstream(resource, managed);
  const steps: DesiredStep[] = [
    generateSecretStep(
      secret,
      { username: { fixed: "default" }, [PASSWORD_KEY]: PASSWORD },
      {
        description: `create Secret ${namespace}/${secret.metadata.name} with a generated password (kept if it exists)`,
        rotation: `the Redis pods read it from that Secret when they start (spec.kubernetesConfig.redisSecret of ${redis.kind} ${namespace}/${name}): until they restart they accept the old one, every consumer must pick up the new one from the Secret`,
      },
    ),
    {
      kind: "apply",
      object: redis,
      description:
        managed.topology === "replication"
          ? `apply RedisReplication ${namespace}/${name} (${managed.replicas} pods${managed.sentinel ? ", with Sentinels" : ""}, ${managed.storage.size} each)`
          : `apply Redis ${namespace}/${name} (standalone, ${managed.storage.size})`,
    },
  ];
  const statefulSet = view.reads?.statefulSet as V1StatefulSet | undefined;
  const sentinels = view.reads?.sentinelStatefulSet as V1StatefulSet | undefined;
  const live = view.objects.get(keyOf(redis));
  const readiness =
    managed.topology === "replication"
      ? replicationReadiness(
          name,
          live?.status as RedisReplicationStatus | undefined,
          statefulSet,
          managed.sentinel ? { statefulSet: sentinels } : undefined,
        )
      : standaloneReadiness(name, statefulSet);
  // The master Service follows the master the operator (or its Sentinels) elected: one host for every client.
  const host =
    managed.topology === "replication" ? replicationMasterHost(name, namespace) : standaloneHost(name, namespace);
  return {
    steps,
    ...wired("owned", host, REDIS_PORT, { name: secret.metadata.name, namespace }),
    verdict: readiness.ready
      ? { ok: true, reason: "RedisReady", message: `${redis.kind} ${namespace}/${name} is Ready: ${readiness.reason}` }
      : {
          ok: false,
          reason: "Provisioning",
          message: `waiting for ${redis.kind} ${namespace}/${name}: ${readiness.reason}`,
        },
  };
}

function desiredAdopted(resource: RedisInstance, view: EngineView): RedisDesired {
  const { namespace } = resource.metadata;
  const adopt = resource.spec.adopt;
  if (!adopt) throw new Error("unreachable: mode adopt without spec.adopt passed validation");
  const targetNamespace = refNamespace(adopt.redisRef, namespace);
  const target = `${adopt.redisRef.kind} ${targetNamespace}/${adopt.redisRef.name}`;
  const secretRef = `${refNamespace(adopt.credentialsSecretRef, namespace)}/${adopt.credentialsSecretRef.name}`;
  const found = view.reads?.adoptTarget as KubeObject | undefined;
  if (!found) {
    return notReady(
      "adopted",
      "AdoptTargetMissing",
      `${target} (spec.adopt.redisRef) does not exist: create it or correct the reference`,
    );
  }
  const key = adopt.credentialsSecretRef.key ?? PASSWORD_KEY;
  const password = (view.reads?.adoptCredentials as Record<string, string> | undefined)?.[key];
  if (!password) {
    return notReady(
      "adopted",
      "CredentialsMissing",
      `Secret ${secretRef} (spec.adopt.credentialsSecretRef) is missing or lacks key ${key}: point the reference at the Secret that holds the password`,
    );
  }
  const copy = adoptedCredentialsCopy(resource, {
    from: secretRef,
    what: "password",
    stringData: { [PASSWORD_KEY]: password },
  });
  const replication = adopt.redisRef.kind === REDIS_REPLICATION.kind;
  const host = replication
    ? replicationMasterHost(adopt.redisRef.name, targetNamespace)
    : standaloneHost(adopt.redisRef.name, targetNamespace);
  // The operator writes a status only for a replication: a master named there says it serves.
  const master = replication ? (found.status as RedisReplicationStatus | undefined)?.masterNode : "standalone";
  return {
    steps: [copy.step],
    ...wired("adopted", host, REDIS_PORT, copy.secret),
    verdict: master
      ? { ok: true, reason: "AdoptedRedisReady", message: `adopted ${target} is wired` }
      : { ok: false, reason: "AdoptedRedisNotReady", message: `waiting for the adopted ${target} to name its master` },
  };
}

function desiredExternal(resource: RedisInstance, view: EngineView): RedisDesired {
  const ref = resource.spec.external?.connectionSecretRef;
  if (!ref) throw new Error("unreachable: mode external without spec.external passed validation");
  const credentials = view.reads?.externalCredentials as Credentials | undefined;
  const connection = externalConnection(ref, resource.metadata.namespace, credentials, {
    keys: ["host", "password"],
    port: REDIS_PORT,
  });
  if (!("host" in connection)) return { steps: [], status: { provenance: "external" }, verdict: connection.verdict };
  return {
    steps: [],
    ...wired("external", connection.host, connection.port, connection.secret),
    readyMessage: connection.readyMessage,
    verdict: connection.verdict,
  };
}

/** What a RedisInstance wants in the cluster now, by mode. Pure. */
export function desiredRedisInstance(resource: RedisInstance, view: EngineView): RedisDesired {
  if (resource.spec.mode === "managed") return desiredManaged(resource, view);
  if (resource.spec.mode === "adopt") return desiredAdopted(resource, view);
  return desiredExternal(resource, view);
}
