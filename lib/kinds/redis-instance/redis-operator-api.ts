import type { V1StatefulSet } from "@kubernetes/client-node";

/**
 * Facts of the OT-CONTAINER-KIT redis-operator API (operator v0.26.0, chart 0.26.1) that the product emits
 * and reads: names, ports, the Services the operator creates and how readiness is judged from what it
 * writes. Where each fact comes from (repository, path, tag): docs/redis.md.
 */

export const REDIS_OPERATOR_GROUP = "redis.redis.opstreelabs.in";
/** The only version the CRDs serve, and their storage version. */
export const REDIS_OPERATOR_VERSION = "v1beta2";
export const REDIS_OPERATOR_API_VERSION = `${REDIS_OPERATOR_GROUP}/${REDIS_OPERATOR_VERSION}`;

/** An upstream kind as the apiserver serves it; every one is namespaced. */
export interface RedisOperatorKind {
  readonly apiVersion: string;
  readonly kind: string;
  readonly plural: string;
}

/** One standalone Redis pod. Its plural is its singular: `redis`, not `rediss`. */
export const REDIS_STANDALONE = {
  apiVersion: REDIS_OPERATOR_API_VERSION,
  kind: "Redis",
  plural: "redis",
} as const satisfies RedisOperatorKind;
/** A master and its replicas (`spec.clusterSize` pods), optionally with embedded Sentinels (`spec.sentinel`). */
export const REDIS_REPLICATION = {
  apiVersion: REDIS_OPERATOR_API_VERSION,
  kind: "RedisReplication",
  plural: "redisreplications",
} as const satisfies RedisOperatorKind;
/** Sentinels monitoring a RedisReplication of the same namespace (`spec.redisSentinelConfig.redisReplicationName`). */
export const REDIS_SENTINEL: RedisOperatorKind = {
  apiVersion: REDIS_OPERATOR_API_VERSION,
  kind: "RedisSentinel",
  plural: "redissentinels",
};
/** Sharded Redis; the product does not emit it, but its CRD is one of the operator's. */
export const REDIS_CLUSTER: RedisOperatorKind = {
  apiVersion: REDIS_OPERATOR_API_VERSION,
  kind: "RedisCluster",
  plural: "redisclusters",
};

/** The port of every Redis Service the operator creates (Service port name `redis-client`). */
export const REDIS_PORT = 6379;
/** The port of every Sentinel Service the operator creates. */
export const SENTINEL_PORT = 26379;

/**
 * Images the upstream charts of the same release (redis, redis-replication, redis-sentinel at v0.26.0)
 * default to; the operator itself has no default: `spec.kubernetesConfig.image` is required.
 */
export const DEFAULT_REDIS_IMAGE = "quay.io/opstree/redis:v7.0.15";
export const DEFAULT_SENTINEL_IMAGE = "quay.io/opstree/redis-sentinel:v7.0.15";

/** The master group the Sentinels embedded in a RedisReplication always monitor (not configurable). */
export const EMBEDDED_SENTINEL_MASTER_NAME = "mymaster";
/** The CRD default of a RedisSentinel's `spec.redisSentinelConfig.masterGroupName`; note the capital M. */
export const SENTINEL_DEFAULT_MASTER_NAME = "myMaster";

/**
 * The labels the operator puts on every StatefulSet, pod and Service it creates for a resource, besides a
 * copy of the resource's own labels. `app` is the resource's name, or its Sentinel StatefulSet's name for
 * Sentinel pods (`<name>-sentinel` for a RedisSentinel, `<name>-s` for embedded Sentinels).
 */
export const INSTANCE_LABEL = "app";
export const SETUP_TYPE_LABEL = "redis_setup_type";
export const ROLE_LABEL = "role";
/** On replication pods only: `master` or `slave`, kept up to date by the operator; selects the master Service. */
export const REDIS_ROLE_LABEL = "redis-role";

/** A host in the cluster's DNS, as the product writes every in-cluster host (`<service>.<namespace>.svc`). */
function serviceHost(service: string, namespace: string): string {
  return `${service}.${namespace}.svc`;
}

/** The ClusterIP Service `<name>` in front of a standalone Redis (also `<name>-headless`, `<name>-additional`). */
export function standaloneHost(name: string, namespace: string): string {
  return serviceHost(name, namespace);
}

/** The read-write Service of a RedisReplication: `<name>-master`, selecting the pod labelled `redis-role=master`. */
export function replicationMasterHost(name: string, namespace: string): string {
  return serviceHost(`${name}-master`, namespace);
}

/** The read-only Service of a RedisReplication: `<name>-replica`, selecting the pods labelled `redis-role=slave`. */
export function replicationReplicaHost(name: string, namespace: string): string {
  return serviceHost(`${name}-replica`, namespace);
}

/** The headless Service `<name>-s-hl` of the Sentinels embedded in a RedisReplication (port 26379). */
export function embeddedSentinelHost(name: string, namespace: string): string {
  return serviceHost(`${name}-s-hl`, namespace);
}

/** The ClusterIP Service `<name>-sentinel` of a RedisSentinel (port 26379). */
export function sentinelHost(name: string, namespace: string): string {
  return serviceHost(`${name}-sentinel`, namespace);
}

/** The StatefulSet the operator runs a resource's Redis pods in: `<name>` for Redis and RedisReplication. */
export function redisStatefulSetName(name: string): string {
  return name;
}

/** The StatefulSet of the Sentinels embedded in a RedisReplication. */
export function embeddedSentinelStatefulSetName(name: string): string {
  return `${name}-s`;
}

/** The StatefulSet of a RedisSentinel's pods. */
export function sentinelStatefulSetName(name: string): string {
  return `${name}-sentinel`;
}

/**
 * The claim of pod `ordinal`'s data volume when `spec.storage.volumeClaimTemplate` is set: the template is
 * named after the StatefulSet, so `<name>-<name>-<ordinal>`. The operator's finalizer deletes these claims
 * when the resource is deleted unless `spec.storage.keepAfterDelete` is true.
 */
export function dataClaimName(name: string, ordinal: number): string {
  return `${name}-${name}-${ordinal}`;
}

/** Every Service the operator creates for a resource (with the Redis exporter on, also `<name>-metrics`). */
export function operatorServiceNames(kind: RedisOperatorKind, name: string, embeddedSentinel = false): string[] {
  switch (kind.kind) {
    case REDIS_STANDALONE.kind:
      return [name, `${name}-headless`, `${name}-additional`];
    case REDIS_REPLICATION.kind: {
      const redis = [name, `${name}-headless`, `${name}-additional`, `${name}-master`, `${name}-replica`];
      return embeddedSentinel ? [...redis, `${name}-s-hl`] : redis;
    }
    case REDIS_SENTINEL.kind:
      return [`${name}-sentinel`, `${name}-sentinel-headless`, `${name}-sentinel-additional`];
    default:
      throw new Error(`unreachable: the product emits no ${kind.kind}`);
  }
}

/** The fields of a RedisReplication's status, the only one of these kinds the operator writes a status for. */
export interface RedisReplicationStatus {
  /** The pod that is master now (`<name>-<ordinal>`); empty while none is identified. */
  readonly masterNode?: string;
  /**
   * Where clients connect: `<name>-master.<ns>.svc.<domain>:6379`, or with embedded Sentinels
   * `<name>-s-hl.<ns>.svc.<domain>:26379` and `masterName: mymaster`. Written whether or not a master is
   * known, so it is no sign of readiness.
   */
  readonly connectionInfo?: { readonly host?: string; readonly port?: number; readonly masterName?: string };
}

/** Whether an upstream resource serves, and in words why not. */
export interface RedisReadiness {
  readonly ready: boolean;
  readonly reason: string;
}

const notReady = (reason: string): RedisReadiness => ({ ready: false, reason });

/**
 * A StatefulSet ready as the operator itself judges it before acting on the pods
 * (StatefulSetService.IsStatefulSetReady): the latest spec observed, the pods from the rollout partition up
 * updated, the update revision current (without a partition), and every replica ready.
 */
export function statefulSetReadyForOperator(statefulSet: V1StatefulSet | undefined, name: string): RedisReadiness {
  if (!statefulSet) return notReady(`StatefulSet ${name} does not exist yet`);
  const replicas = statefulSet.spec?.replicas ?? 1;
  const partition = statefulSet.spec?.updateStrategy?.rollingUpdate?.partition ?? 0;
  const status = statefulSet.status;
  const updated = status?.updatedReplicas ?? 0;
  if (updated < replicas - partition)
    return notReady(`StatefulSet ${name}: ${updated} of ${replicas - partition} pods updated`);
  if (partition === 0 && status?.currentRevision !== status?.updateRevision)
    return notReady(`StatefulSet ${name}: rolling to revision ${status?.updateRevision ?? "(none)"}`);
  if ((status?.observedGeneration ?? 0) !== (statefulSet.metadata?.generation ?? 0))
    return notReady(`StatefulSet ${name}: its latest spec is not observed yet`);
  const ready = status?.readyReplicas ?? 0;
  if (ready !== replicas) return notReady(`StatefulSet ${name}: ${ready} of ${replicas} pods ready`);
  return { ready: true, reason: `StatefulSet ${name}: ${replicas} of ${replicas} pods ready` };
}

/** A Redis serves when its StatefulSet `<name>` is ready: the operator writes no status for it. */
export function standaloneReadiness(name: string, statefulSet: V1StatefulSet | undefined): RedisReadiness {
  return statefulSetReadyForOperator(statefulSet, redisStatefulSetName(name));
}

/**
 * A RedisReplication serves when its StatefulSet `<name>` is ready, the operator names a master in
 * `status.masterNode` (it does only once one pod is master alone or has replicas attached), and, with
 * embedded Sentinels, their StatefulSet `<name>-s` is ready too.
 */
export function replicationReadiness(
  name: string,
  status: RedisReplicationStatus | undefined,
  statefulSet: V1StatefulSet | undefined,
  sentinels?: { readonly statefulSet: V1StatefulSet | undefined },
): RedisReadiness {
  const redis = statefulSetReadyForOperator(statefulSet, redisStatefulSetName(name));
  if (!redis.ready) return redis;
  if (sentinels) {
    const sentinel = statefulSetReadyForOperator(sentinels.statefulSet, embeddedSentinelStatefulSetName(name));
    if (!sentinel.ready) return sentinel;
  }
  const master = status?.masterNode ?? "";
  if (master === "") return notReady(`RedisReplication ${name}: the operator has not identified a master yet`);
  return { ready: true, reason: `${redis.reason}; master ${master}` };
}

/** A RedisSentinel serves when its StatefulSet `<name>-sentinel` is ready: the operator writes no status for it. */
export function sentinelReadiness(name: string, statefulSet: V1StatefulSet | undefined): RedisReadiness {
  return statefulSetReadyForOperator(statefulSet, sentinelStatefulSetName(name));
}
