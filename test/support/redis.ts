import { type KubeClient, orUndefined } from "../../lib/cluster/kube-client.js";

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
