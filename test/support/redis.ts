import { type KubeClient, orUndefined } from "../../lib/cluster/kube-client.js";
import {
  embeddedSentinelStatefulSetName,
  redisStatefulSetName,
} from "../../lib/kinds/redis-instance/redis-operator-api.js";

const REDIS = { group: "redis.redis.opstreelabs.in", version: "v1beta2" };

/** A Redis (standalone) of the redis-operator as stored, or undefined. */
export function readRedis(
  client: KubeClient,
  namespace: string,
  name: string,
): Promise<{ metadata: { uid: string; labels?: Record<string, string> }; spec: Record<string, unknown> } | undefined> {
  return orUndefined(client.custom.getNamespacedCustomObject({ ...REDIS, plural: "redis", namespace, name })) as never;
}

/**
 * No redis-operator pod runs on the local plane (its Deployment is installed from the fixture chart and
 * kwok reports it available): the test plays its controller, creating the StatefulSet the operator creates
 * for a Redis (`<name>`, owned by it). The real StatefulSet controller then creates its pods, which kwok runs.
 */
export async function playRedisOperator(
  client: KubeClient,
  namespace: string,
  name: string,
  replicas = 1,
): Promise<void> {
  const redis = await readRedis(client, namespace, name);
  if (!redis) return;
  if (await orUndefined(client.apps.readNamespacedStatefulSet({ name, namespace }))) return;
  await client.apps.createNamespacedStatefulSet({
    namespace,
    body: {
      metadata: {
        name,
        labels: { app: name, redis_setup_type: "standalone", role: "standalone" },
        ownerReferences: [
          {
            apiVersion: `${REDIS.group}/${REDIS.version}`,
            kind: "Redis",
            name,
            uid: redis.metadata.uid,
            controller: true,
          },
        ],
      },
      spec: {
        replicas,
        serviceName: `${name}-headless`,
        selector: { matchLabels: { app: name } },
        template: {
          metadata: { labels: { app: name } },
          spec: { containers: [{ name: "redis", image: "quay.io/opstree/redis:v7.0.15" }] },
        },
      },
    },
  });
}

/** A RedisReplication as stored: what the played operator reads of it. */
interface StoredReplication {
  readonly metadata: { readonly uid: string };
  readonly spec: {
    readonly clusterSize?: number;
    readonly kubernetesConfig?: { readonly image?: string };
    readonly sentinel?: { readonly size?: number; readonly image?: string };
  };
  readonly status?: { readonly masterNode?: string };
}

/** A StatefulSet of the played operator: `replicas` pods of `image`, selected by `app: <name>`, owned by `owner`. */
function operatorStatefulSet(
  owner: { readonly kind: string; readonly name: string; readonly uid: string },
  name: string,
  replicas: number,
  image: string,
  role: string,
) {
  return {
    metadata: {
      name,
      labels: { app: name, redis_setup_type: "replication", role },
      ownerReferences: [
        { apiVersion: `${REDIS.group}/${REDIS.version}`, ...owner, controller: true, blockOwnerDeletion: true },
      ],
    },
    spec: {
      replicas,
      serviceName: `${name}-headless`,
      // All at once: the test waits for the rollout, not for the operator's pod order.
      podManagementPolicy: "Parallel",
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: role, image }] } },
    },
  };
}

/**
 * No redis-operator pod runs on the local plane: the test plays its controller for a RedisReplication
 * (redis-operator v0.26.0, docs/redis.md), creating what it creates — the StatefulSet `<name>` of
 * `spec.clusterSize` Redis pods and, with `spec.sentinel`, the StatefulSet `<name>-s` of its embedded
 * Sentinels —, each owned by the RedisReplication; the real StatefulSet controller then rolls them out on
 * kwok's node. Once both are rolled out, it writes `status.masterNode` as the operator does when it has
 * identified the master (the first pod here).
 */
export async function playRedisReplication(client: KubeClient, namespace: string, name: string): Promise<void> {
  const replication = (await orUndefined(
    client.custom.getNamespacedCustomObject({ ...REDIS, plural: "redisreplications", namespace, name }),
  )) as StoredReplication | undefined;
  if (!replication || replication.status?.masterNode) return;
  const owner = { kind: "RedisReplication", name, uid: replication.metadata.uid };
  const { spec } = replication;
  const wanted = [
    operatorStatefulSet(
      owner,
      redisStatefulSetName(name),
      spec.clusterSize ?? 1,
      spec.kubernetesConfig?.image ?? "",
      "replication",
    ),
    ...(spec.sentinel
      ? [
          operatorStatefulSet(
            owner,
            embeddedSentinelStatefulSetName(name),
            spec.sentinel.size ?? 1,
            spec.sentinel.image ?? "",
            "sentinel",
          ),
        ]
      : []),
  ];
  let rolledOut = true;
  for (const body of wanted) {
    const live = await orUndefined(client.apps.readNamespacedStatefulSet({ name: body.metadata.name, namespace }));
    if (!live) await client.apps.createNamespacedStatefulSet({ namespace, body });
    if ((live?.status?.readyReplicas ?? 0) < body.spec.replicas) rolledOut = false;
  }
  if (!rolledOut) return;
  await client.custom.patchNamespacedCustomObjectStatus({
    ...REDIS,
    plural: "redisreplications",
    namespace,
    name,
    body: [{ op: "add", path: "/status", value: { masterNode: `${redisStatefulSetName(name)}-0` } }],
  });
}
