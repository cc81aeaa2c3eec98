import type { V1StatefulSet, V1StatefulSetStatus } from "@kubernetes/client-node";
import {
  dataClaimName,
  embeddedSentinelHost,
  operatorServiceNames,
  REDIS_CLUSTER,
  REDIS_REPLICATION,
  REDIS_SENTINEL,
  REDIS_STANDALONE,
  replicationMasterHost,
  replicationReadiness,
  replicationReplicaHost,
  sentinelHost,
  sentinelReadiness,
  standaloneHost,
  standaloneReadiness,
  statefulSetReadyForOperator,
} from "../../lib/kinds/redis-instance/redis-operator-api.js";

// The facts of redis-operator v0.26.0 (docs/redis.md): the names the operator derives from a resource's,
// and readiness as the operator's own StatefulSetService.IsStatefulSetReady judges a StatefulSet.

function statefulSet(
  name: string,
  status: Partial<V1StatefulSetStatus>,
  options: { replicas?: number; generation?: number; partition?: number } = {},
): V1StatefulSet {
  const { replicas = 1, generation = 1, partition } = options;
  return {
    metadata: { name, generation },
    spec: {
      replicas,
      selector: {},
      serviceName: name,
      template: {},
      ...(partition === undefined ? {} : { updateStrategy: { type: "RollingUpdate", rollingUpdate: { partition } } }),
    },
    status: { replicas, ...status },
  };
}

const settled = (replicas: number): Partial<V1StatefulSetStatus> => ({
  observedGeneration: 1,
  updatedReplicas: replicas,
  readyReplicas: replicas,
  currentRevision: "r-1",
  updateRevision: "r-1",
});

describe("the hosts and names the operator derives", () => {
  it("puts each topology behind its own Service, in the resource's namespace", () => {
    expect(standaloneHost("cache", "apps")).toBe("cache.apps.svc");
    expect(replicationMasterHost("cache", "apps")).toBe("cache-master.apps.svc");
    expect(replicationReplicaHost("cache", "apps")).toBe("cache-replica.apps.svc");
    expect(embeddedSentinelHost("cache", "apps")).toBe("cache-s-hl.apps.svc");
    expect(sentinelHost("watch", "apps")).toBe("watch-sentinel.apps.svc");
  });

  it("lists every Service it creates per kind, the embedded Sentinels' only when asked", () => {
    expect(operatorServiceNames(REDIS_STANDALONE, "c")).toEqual(["c", "c-headless", "c-additional"]);
    expect(operatorServiceNames(REDIS_REPLICATION, "c")).toEqual([
      "c",
      "c-headless",
      "c-additional",
      "c-master",
      "c-replica",
    ]);
    expect(operatorServiceNames(REDIS_REPLICATION, "c", true)).toContain("c-s-hl");
    expect(operatorServiceNames(REDIS_SENTINEL, "w")).toEqual([
      "w-sentinel",
      "w-sentinel-headless",
      "w-sentinel-additional",
    ]);
    expect(() => operatorServiceNames(REDIS_CLUSTER, "x")).toThrow("the product emits no RedisCluster");
  });

  it("names data claims after the StatefulSet's claim template, itself named after the resource", () => {
    expect(dataClaimName("cache", 2)).toBe("cache-cache-2");
  });
});

describe("statefulSetReadyForOperator", () => {
  it.each<[string, V1StatefulSet | undefined, boolean, string]>([
    ["settled", statefulSet("c", settled(3), { replicas: 3 }), true, "StatefulSet c: 3 of 3 pods ready"],
    ["absent", undefined, false, "StatefulSet c does not exist yet"],
    [
      "pods not all updated",
      statefulSet("c", { ...settled(3), updatedReplicas: 2 }, { replicas: 3 }),
      false,
      "StatefulSet c: 2 of 3 pods updated",
    ],
    [
      "a partition above which every pod is updated, revisions still differing",
      statefulSet("c", { ...settled(3), updatedReplicas: 1, updateRevision: "r-2" }, { replicas: 3, partition: 2 }),
      true,
      "StatefulSet c: 3 of 3 pods ready",
    ],
    [
      "no partition and the update revision not current",
      statefulSet("c", { ...settled(1), updateRevision: "r-2" }),
      false,
      "StatefulSet c: rolling to revision r-2",
    ],
    [
      "its latest spec not observed",
      statefulSet("c", settled(1), { generation: 2 }),
      false,
      "StatefulSet c: its latest spec is not observed yet",
    ],
    [
      "a pod not ready",
      statefulSet("c", { ...settled(3), readyReplicas: 2 }, { replicas: 3 }),
      false,
      "StatefulSet c: 2 of 3 pods ready",
    ],
  ])("%s", (_case, set, ready, reason) => {
    expect(statefulSetReadyForOperator(set, "c")).toEqual({ ready, reason });
  });
});

describe("readiness of each upstream kind", () => {
  it("judges a Redis and a RedisSentinel by their StatefulSet alone, named as the operator names it", () => {
    expect(standaloneReadiness("c", statefulSet("c", settled(1))).ready).toBe(true);
    expect(standaloneReadiness("c", undefined).reason).toBe("StatefulSet c does not exist yet");
    expect(sentinelReadiness("w", statefulSet("w-sentinel", settled(3), { replicas: 3 })).ready).toBe(true);
    expect(sentinelReadiness("w", undefined).reason).toBe("StatefulSet w-sentinel does not exist yet");
  });

  it("wants a RedisReplication's pods ready and a master named in its status", () => {
    const pods = statefulSet("c", settled(3), { replicas: 3 });
    expect(replicationReadiness("c", { masterNode: "c-0" }, pods)).toEqual({
      ready: true,
      reason: "StatefulSet c: 3 of 3 pods ready; master c-0",
    });
    // connectionInfo is written before any master is known: it is no sign of readiness.
    const withoutMaster = { masterNode: "", connectionInfo: { host: "c-master.apps.svc.cluster.local", port: 6379 } };
    expect(replicationReadiness("c", withoutMaster, pods)).toEqual({
      ready: false,
      reason: "RedisReplication c: the operator has not identified a master yet",
    });
    expect(replicationReadiness("c", undefined, pods).ready).toBe(false);
    // A master named earlier does not make pods that are down serve.
    const podDown = statefulSet("c", { ...settled(3), readyReplicas: 2 }, { replicas: 3 });
    expect(replicationReadiness("c", { masterNode: "c-0" }, podDown).reason).toBe("StatefulSet c: 2 of 3 pods ready");
  });

  it("wants the embedded Sentinels' StatefulSet ready too when the replication has them", () => {
    const pods = statefulSet("c", settled(3), { replicas: 3 });
    expect(replicationReadiness("c", { masterNode: "c-0" }, pods, { statefulSet: undefined }).reason).toBe(
      "StatefulSet c-s does not exist yet",
    );
    const sentinels = statefulSet("c-s", settled(3), { replicas: 3 });
    expect(replicationReadiness("c", { masterNode: "c-0" }, pods, { statefulSet: sentinels }).ready).toBe(true);
  });
});
