import { rotationEvent } from "../../lib/engine/generated-secret.js";
import type { KubeObject } from "../../lib/engine/objects.js";
import { REDIS_INSTANCE_MODULE } from "../../lib/kinds/redis-instance/module.js";
import { RedisInstance } from "../../lib/kinds/redis-instance/schema.js";
import { operatorKindPlans } from "../support/plans.js";

const {
  resource: redis,
  view,
  plan,
} = operatorKindPlans(
  REDIS_INSTANCE_MODULE,
  { name: "cache", namespace: "apps" },
  { capability: "redis-operator", namespace: "ot-operators" },
);

/** A StatefulSet as the Kubernetes controller reports it once its pods are up (no pod runs here: written by the test). */
function readyStatefulSet(replicas: number) {
  return {
    metadata: { name: "cache", generation: 2 },
    spec: { replicas },
    status: {
      observedGeneration: 2,
      replicas,
      readyReplicas: replicas,
      updatedReplicas: replicas,
      currentRevision: "cache-1",
      updateRevision: "cache-1",
    },
  };
}

describe("a RedisInstance", () => {
  it("its generated Secret deleted by hand: re-created with a new password, reported as a rotation", () => {
    const emitted = [{ apiVersion: "v1", kind: "Secret", namespace: "apps", name: "cache-credentials" }];
    const rotated = plan(redis({}, { emitted }), view());
    expect(rotated.steps[0]?.description).toBe(
      "re-create Secret apps/cache-credentials, deleted, with a new generated password (a rotation: Warning CredentialsRotated)",
    );
    // Said when the executor re-creates it (lib/engine/execute.ts), not when planned: the plan only marks it.
    expect(rotated.events.filter((e) => e.reason === "CredentialsRotated")).toEqual([]);
    const step = rotated.steps[0];
    if (step?.kind !== "generate-secret") throw new Error("the first step is not the generated Secret");
    expect(step.madeBefore).toBe(true);
    expect(rotationEvent(step, "uid").message).toBe(
      "Secret apps/cache-credentials was deleted and is re-created with a new generated password; the Redis pods read it from that Secret when they start (spec.kubernetesConfig.redisSecret of Redis apps/cache): until they restart they accept the old one, every consumer must pick up the new one from the Secret",
    );
  });

  it("managed standalone: a generated password, a Redis that reads it, kept data under Retain; Ready once its StatefulSet is", () => {
    const first = plan(redis({}), view());
    expect(first.steps.map((s) => s.description)).toEqual([
      "create Secret apps/cache-credentials with a generated password (kept if it exists)",
      "apply Redis apps/cache (standalone, 1Gi)",
    ]);
    const upstream = first.steps[1] as { object: KubeObject };
    expect(upstream.object).toMatchObject({
      apiVersion: "redis.redis.opstreelabs.in/v1beta2",
      kind: "Redis",
      metadata: { annotations: { "core.navique.com/deletion-policy": "Retain" } },
      spec: {
        kubernetesConfig: {
          image: "quay.io/opstree/redis:v7.0.15",
          redisSecret: { name: "cache-credentials", key: "password" },
        },
        storage: {
          keepAfterDelete: true,
          volumeClaimTemplate: { spec: { resources: { requests: { storage: "1Gi" } } } },
        },
      },
    });
    expect(first.conditions.find((c) => c.type === "DatastoreReady")).toMatchObject({
      status: "False",
      reason: "Provisioning",
      message: "waiting for Redis apps/cache: StatefulSet cache does not exist yet",
    });
    expect(first.status.connection).toEqual({
      host: "cache.apps.svc",
      port: 6379,
      credentialsSecret: { name: "cache-credentials", namespace: "apps" },
      url: "redis://cache.apps.svc:6379",
    });
    const ready = plan(redis({}, first.status), view({ reads: { statefulSet: readyStatefulSet(1) as never } }));
    expect(ready.conditions[0]).toMatchObject({
      type: "Ready",
      status: "True",
      message: "Redis reachable at cache.apps.svc:6379",
    });
  });

  it("managed replication with Sentinels: a RedisReplication, the master Service, Ready once a master is named", () => {
    const spec = { managed: { topology: "replication", replicas: 3, sentinel: true, deletionPolicy: "Delete" } };
    const first = plan(redis(spec), view());
    const upstream = first.steps[1] as { object: KubeObject };
    expect(upstream.object).toMatchObject({
      kind: "RedisReplication",
      spec: {
        clusterSize: 3,
        sentinel: { size: 3, image: "quay.io/opstree/redis-sentinel:v7.0.15" },
        storage: { keepAfterDelete: false },
      },
    });
    expect(first.status.connection?.host).toBe("cache-master.apps.svc");
    const statefulSets = {
      statefulSet: readyStatefulSet(3),
      sentinelStatefulSet: { ...readyStatefulSet(3), metadata: { name: "cache-s", generation: 2 } },
    };
    const live = { ...upstream.object, status: { masterNode: "" } };
    const noMaster = plan(
      redis(spec, first.status),
      view({ reads: statefulSets as never, objects: new Map([["RedisReplication/apps/cache", live]]) }),
    );
    expect(noMaster.conditions[0]?.message).toContain("the operator has not identified a master yet");
    const withMaster = { ...upstream.object, status: { masterNode: "cache-0" } };
    const ready = plan(
      redis(spec, first.status),
      view({ reads: statefulSets as never, objects: new Map([["RedisReplication/apps/cache", withMaster]]) }),
    );
    expect(ready.conditions[0]).toMatchObject({
      status: "True",
      message: "Redis reachable at cache-master.apps.svc:6379",
    });
  });

  it("refuses sentinels without a replication, naming the field and what to write", () => {
    const parsed = RedisInstance.safeParse({
      apiVersion: "core.navique.com/v1alpha1",
      kind: "RedisInstance",
      metadata: { name: "cache", namespace: "apps" },
      spec: { managed: { sentinel: true } },
    });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues.map((i) => [i.path.join("."), i.message])).toEqual([
      [
        "spec.managed.sentinel",
        "spec.managed.sentinel needs spec.managed.topology: replication (Sentinels watch a master and its replicas)",
      ],
    ]);
  });

  it("adopt: copies the password into <name>-adopted-credentials and connects to the adopted Redis's Service", () => {
    const spec = {
      mode: "adopt",
      adopt: {
        redisRef: { name: "shared", namespace: "data" },
        credentialsSecretRef: { name: "shared-auth", namespace: "data", key: "secret" },
      },
    };
    const grant = {
      namespace: "data",
      spec: {
        from: [{ group: "core.navique.com", kind: "RedisInstance", namespace: "apps" }],
        to: [
          { group: "redis.redis.opstreelabs.in", kind: "Redis" },
          { group: "", kind: "Secret" },
        ],
      },
    };
    const target = {
      apiVersion: "redis.redis.opstreelabs.in/v1beta2",
      kind: "Redis",
      metadata: { name: "shared", namespace: "data" },
    };
    const adopted = plan(
      redis(spec),
      view({
        capabilities: [],
        referenceGrants: [grant],
        reads: { adoptTarget: target, adoptCredentials: { secret: "p4ss" } },
      }),
    );
    expect(adopted.steps).toHaveLength(1);
    expect((adopted.steps[0] as { object: KubeObject }).object).toMatchObject({
      kind: "Secret",
      metadata: { name: "cache-adopted-credentials", namespace: "apps" },
      stringData: { password: "p4ss" },
    });
    expect(adopted.status.connection?.host).toBe("shared.data.svc");
    expect(adopted.conditions[0]).toMatchObject({ status: "True" });
    // The password is in the Secret only: no condition, Event or status line carries it.
    expect(JSON.stringify([adopted.conditions, adopted.events, adopted.status])).not.toContain("p4ss");
    // Without the grant, nothing is read or copied, and the grant to create is named.
    const refused = plan(redis(spec), view({ capabilities: [], referenceGrants: [] }));
    expect(refused.steps).toEqual([]);
    expect(refused.conditions[0]?.reason).toBe("ReferenceNotPermitted");
  });

  it("external: wires the connection Secret, which must hold host and password", () => {
    const spec = { mode: "external", external: { connectionSecretRef: { name: "redis-conn" } } };
    const missing = plan(redis(spec), view({ capabilities: [] }));
    expect(missing.conditions.find((c) => c.type === "DatastoreReady")?.message).toBe(
      "Secret apps/redis-conn (spec.external.connectionSecretRef) does not exist: create it with keys host, port and password",
    );
    const wired = plan(
      redis(spec),
      view({ capabilities: [], reads: { externalCredentials: { host: "r.example", port: "6380", password: "x" } } }),
    );
    expect(wired.steps).toEqual([]);
    expect(wired.status.connection).toEqual({
      host: "r.example",
      port: 6380,
      credentialsSecret: { name: "redis-conn", namespace: "apps" },
      url: "redis://r.example:6380",
    });
    // What was checked, not a claim of reachability: the product never connects to an external Redis.
    expect(wired.conditions[0]).toMatchObject({
      status: "True",
      message:
        "Secret apps/redis-conn holds host, port and password: consumers are sent to r.example:6380, which the product does not contact",
    });
  });

  it("leaving managed mode under Retain keeps the Redis and its password Secret, released to the user", () => {
    const managed = plan(redis({}), view());
    const emitted = managed.status.emitted;
    const live = new Map<string, KubeObject>();
    for (const step of managed.steps) {
      if (step.kind === "apply" || step.kind === "generate-secret")
        live.set(`${step.object.kind}/apps/${step.object.metadata.name}`, step.object);
    }
    const spec = { mode: "external", external: { connectionSecretRef: { name: "redis-conn" } } };
    const moved = plan(
      redis(spec, { ...managed.status, emitted }),
      view({ capabilities: [], objects: live, reads: { externalCredentials: { host: "r", password: "x" } } }),
    );
    expect(moved.steps.map((s) => s.description)).toEqual([
      "keep Secret apps/cache-credentials with retained Redis apps/cache (its password unchanged): released to you, no longer managed",
      "keep Redis apps/cache, which may hold data (deletionPolicy Retain): released to you, no longer managed",
      "release redis-operator: no consumer left (uninstalled only if owned)",
    ]);
    expect(moved.events.map((e) => e.reason)).toEqual(["DatastoreRetained"]);
  });
});
