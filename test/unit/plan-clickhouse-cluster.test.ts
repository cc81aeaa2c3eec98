import { withPrerequisites } from "../../lib/catalog/catalog.js";
import { CLICKHOUSE_OPERATOR } from "../../lib/catalog/clickhouse-operator.js";
import type { KubeObject } from "../../lib/engine/objects.js";
import type { PlanStep } from "../../lib/engine/steps.js";
import {
  clickhouseHeadlessService,
  operatorReadiness,
} from "../../lib/kinds/clickhouse-cluster/clickhouse-operator-api.js";
import { containerImage } from "../../lib/kinds/clickhouse-cluster/desired.js";
import { CLICKHOUSE_CLUSTER_MODULE } from "../../lib/kinds/clickhouse-cluster/module.js";
import { ClickHouseCluster } from "../../lib/kinds/clickhouse-cluster/schema.js";
import { operatorKindPlans } from "../support/plans.js";

const {
  resource: clickhouse,
  view,
  plan,
} = operatorKindPlans(
  CLICKHOUSE_CLUSTER_MODULE,
  { name: "traces", namespace: "apps" },
  { capability: "clickhouse-operator", namespace: "clickhouse-operator-system" },
);

/** The Ready condition the operator writes (internal/controller/statusmanager.go SetConditions): with observedGeneration. */
function withReady(object: KubeObject, status: "True" | "False", reason: string, message: string, generation = 1) {
  return {
    ...object,
    metadata: { ...object.metadata, generation },
    status: {
      conditions: [{ type: "Ready", status, reason, message, observedGeneration: generation, lastTransitionTime: "x" }],
    },
  };
}

/** The object of the step that applies an object of `kind`. */
function applied(steps: readonly PlanStep[], kind: string): KubeObject {
  const step = steps.find((s) => s.kind === "apply" && s.object.kind === kind);
  if (step?.kind !== "apply") throw new Error(`no apply step of a ${kind}`);
  return step.object;
}

describe("a ClickHouseCluster", () => {
  it("needs the ClickHouse operator, cert-manager first: the operator's webhook certificate is cert-manager's", () => {
    expect(CLICKHOUSE_CLUSTER_MODULE.needs(clickhouse({}) as never)).toEqual(["clickhouse-operator"]);
    expect(withPrerequisites("clickhouse-operator")).toEqual(["cert-manager", "clickhouse-operator"]);
    // Chart 0.0.7's value names (`enabled`; 0.0.2's `enable` would be ignored); its image tag defaults to the appVersion.
    expect(CLICKHOUSE_OPERATOR.values).toEqual({
      crd: { enabled: true, keep: true },
      certManager: { enabled: true },
      webhook: { enabled: true },
    });
    const external = { mode: "external", external: { connectionSecretRef: { name: "ch" } } };
    expect(CLICKHOUSE_CLUSTER_MODULE.needs(clickhouse(external) as never)).toEqual([]);
  });

  it("managed: a generated password, a KeeperCluster, a ClickHouseCluster that reads the password by reference, a client Service", () => {
    const first = plan(clickhouse({}), view());
    expect(first.steps.map((s) => s.description)).toEqual([
      "create Secret apps/traces-credentials with a generated password (kept if it exists)",
      "apply KeeperCluster apps/traces (1 pod(s), 1Gi each)",
      "apply Service apps/traces (ClusterIP, ports 8123 and 9000, to the 1 server(s))",
      "apply ClickHouseCluster apps/traces (1 shard(s) × 1 replica(s), 10Gi each)",
    ]);
    const secret = first.steps[0];
    if (secret?.kind !== "generate-secret") throw new Error("the first step is not the generated Secret");
    expect(secret.keys).toEqual({ username: { fixed: "default" }, password: { length: 32, alphabet: "base64url" } });
    // Retain: no owner reference, the password of kept data stays with it.
    expect(secret.object.metadata.ownerReferences).toBeUndefined();
    expect(applied(first.steps, "KeeperCluster")).toMatchObject({
      apiVersion: "clickhouse.com/v1alpha1",
      metadata: { name: "traces", namespace: "apps" },
      spec: {
        replicas: 1,
        containerTemplate: { image: { repository: "docker.io/clickhouse/clickhouse-keeper", tag: "25.8" } },
        dataVolumeClaimSpec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } },
      },
    });
    const cluster = applied(first.steps, "ClickHouseCluster");
    expect(cluster).toEqual({
      apiVersion: "clickhouse.com/v1alpha1",
      kind: "ClickHouseCluster",
      metadata: {
        name: "traces",
        namespace: "apps",
        annotations: {
          "core.navique.com/deletion-policy": "Retain",
          "core.navique.com/owner": "ClickHouseCluster/apps/traces",
        },
        labels: expect.any(Object),
      },
      spec: {
        replicas: 1,
        shards: 1,
        keeperClusterRef: { name: "traces" },
        containerTemplate: { image: { repository: "docker.io/clickhouse/clickhouse-server", tag: "25.8" } },
        dataVolumeClaimSpec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "10Gi" } } },
        settings: {
          defaultUserPassword: { passwordType: "password", secret: { name: "traces-credentials", key: "password" } },
        },
      },
    });
    expect(applied(first.steps, "Service").spec).toEqual({
      type: "ClusterIP",
      selector: { app: "traces-clickhouse", "clickhouse.com/role": "clickhouse-server" },
      ports: [
        { name: "http", port: 8123, targetPort: 8123, protocol: "TCP" },
        { name: "tcp", port: 9000, targetPort: 9000, protocol: "TCP" },
      ],
    });
    expect(first.status.connection).toEqual({
      host: "traces.apps.svc",
      port: 8123,
      credentialsSecret: { name: "traces-credentials", namespace: "apps" },
      url: "http://traces.apps.svc:8123",
    });
    expect(first.status.nativePort).toBe(9000);
    expect(first.conditions.find((c) => c.type === "DatastoreReady")).toMatchObject({
      status: "False",
      reason: "Provisioning",
      message: "waiting for KeeperCluster apps/traces: it does not exist yet",
    });
  });

  it("managed: Ready once the operator says its Keeper and its cluster are Ready for their latest spec", () => {
    const first = plan(clickhouse({ managed: { keeper: { replicas: 3 } } }), view());
    const keeper = applied(first.steps, "KeeperCluster");
    const cluster = applied(first.steps, "ClickHouseCluster");
    const live = (k: object, c: object) =>
      new Map<string, KubeObject>([
        ["KeeperCluster/apps/traces", k as KubeObject],
        ["ClickHouseCluster/apps/traces", c as KubeObject],
      ]);
    const readyKeeper = withReady(keeper, "True", "ClusterReady", "Cluster is ready");
    const shardsDown = plan(
      clickhouse({ managed: { keeper: { replicas: 3 } } }, first.status),
      view({
        objects: live(readyKeeper, withReady(cluster, "False", "SomeShardsNotReady", "Not Ready shards: [0]")),
      }),
    );
    expect(shardsDown.conditions.find((c) => c.type === "DatastoreReady")?.message).toBe(
      "waiting for ClickHouseCluster apps/traces: Ready False (SomeShardsNotReady: Not Ready shards: [0])",
    );
    const ready = plan(
      clickhouse({ managed: { keeper: { replicas: 3 } } }, first.status),
      view({ objects: live(readyKeeper, withReady(cluster, "True", "AllShardsReady", "All shards are ready", 1)) }),
    );
    expect(ready.conditions[0]?.status).toBe("True");
    // A Ready written for an earlier generation is not the current spec's.
    const edited = { ...withReady(cluster, "True", "AllShardsReady", "All shards are ready", 1) };
    const notObserved = plan(
      clickhouse({ managed: { keeper: { replicas: 3 } } }, first.status),
      view({ objects: live(readyKeeper, { ...edited, metadata: { ...edited.metadata, generation: 2 } }) }),
    );
    expect(notObserved.conditions.find((c) => c.type === "DatastoreReady")?.message).toBe(
      "waiting for ClickHouseCluster apps/traces: the operator has not acted on its latest spec yet",
    );
    expect(ready.conditions.find((c) => c.type === "DatastoreReady")).toMatchObject({
      reason: "ClickHouseReady",
      message:
        "KeeperCluster apps/traces: Ready (ClusterReady: Cluster is ready); ClickHouseCluster apps/traces: Ready (AllShardsReady: All shards are ready)",
    });
    expect(ready.conditions[0]).toMatchObject({
      type: "Ready",
      message: "ClickHouse reachable at traces.apps.svc:8123 (HTTP) and traces.apps.svc:9000 (native)",
    });
  });

  it("an image pinned by digest reaches the operator as a hash, which it prefers to a tag", () => {
    expect(containerImage("docker.io/clickhouse/clickhouse-server:25.8")).toEqual({
      repository: "docker.io/clickhouse/clickhouse-server",
      tag: "25.8",
    });
    const digest = `sha256:${"a".repeat(64)}`;
    expect(containerImage(`registry.local:5000/clickhouse/clickhouse-server:25.8@${digest}`)).toEqual({
      repository: "registry.local:5000/clickhouse/clickhouse-server",
      hash: digest,
    });
    expect(containerImage("registry.local:5000/clickhouse-server")).toEqual({
      repository: "registry.local:5000/clickhouse-server",
    });
  });

  it("refuses a Keeper of an even size, and sizes out of bounds, naming the field", () => {
    const parsed = ClickHouseCluster.safeParse({
      apiVersion: "core.navique.com/v1alpha1",
      kind: "ClickHouseCluster",
      metadata: { name: "traces", namespace: "apps" },
      spec: { managed: { replicas: 10, keeper: { replicas: 2 } } },
    });
    expect(parsed.error?.issues.map((i) => i.path.join("."))).toEqual([
      "spec.managed.replicas",
      "spec.managed.keeper.replicas",
    ]);
    const tooLong = ClickHouseCluster.safeParse({
      apiVersion: "core.navique.com/v1alpha1",
      kind: "ClickHouseCluster",
      metadata: { name: "a".repeat(38), namespace: "apps" },
      spec: {},
    });
    expect(tooLong.error?.issues.map((i) => i.message)).toEqual([
      "a ClickHouseCluster name has at most 37 characters, received 38: its ClickHouseCluster, KeeperCluster and Service are named after it, and the operator's StatefulSets <name>-clickhouse-<shard>-<replica> after that. Choose a shorter name",
    ]);
  });

  it("adopt: copies the password into <name>-adopted-credentials and connects through the adopted cluster's headless Service", () => {
    const spec = {
      mode: "adopt",
      adopt: {
        clusterRef: { name: "shared", namespace: "data" },
        credentialsSecretRef: { name: "shared-auth", namespace: "data", key: "pw" },
      },
    };
    const grant = {
      namespace: "data",
      spec: {
        from: [{ group: "core.navique.com", kind: "ClickHouseCluster", namespace: "apps" }],
        to: [
          { group: "clickhouse.com", kind: "ClickHouseCluster" },
          { group: "", kind: "Secret" },
        ],
      },
    };
    const target = {
      apiVersion: "clickhouse.com/v1alpha1",
      kind: "ClickHouseCluster",
      metadata: { name: "shared", namespace: "data", generation: 4 },
    };
    const reads = (found: object) => ({ adoptTarget: found as KubeObject, adoptCredentials: { pw: "p4ss-adopted" } });
    const waiting = plan(clickhouse(spec), view({ capabilities: [], referenceGrants: [grant], reads: reads(target) }));
    expect(waiting.conditions.find((c) => c.type === "DatastoreReady")).toMatchObject({
      status: "False",
      reason: "AdoptedClickHouseNotReady",
      message: "waiting for the adopted ClickHouseCluster data/shared: the operator has written no Ready condition yet",
    });
    const adopted = plan(
      clickhouse(spec),
      view({
        capabilities: [],
        referenceGrants: [grant],
        reads: reads(withReady(target, "True", "AllShardsReady", "All shards are ready", 4)),
      }),
    );
    expect(adopted.steps).toHaveLength(1);
    expect((adopted.steps[0] as { object: KubeObject }).object).toMatchObject({
      kind: "Secret",
      metadata: { name: "traces-adopted-credentials", namespace: "apps" },
      stringData: { username: "default", password: "p4ss-adopted" },
    });
    expect(adopted.status.connection).toEqual({
      host: "shared-clickhouse-headless.data.svc",
      port: 8123,
      credentialsSecret: { name: "traces-adopted-credentials", namespace: "apps" },
      url: "http://shared-clickhouse-headless.data.svc:8123",
    });
    expect(adopted.conditions[0]).toMatchObject({ status: "True" });
    // The password is in the Secret only: no condition, Event or status line carries it.
    expect(JSON.stringify([adopted.conditions, adopted.events, adopted.status])).not.toContain("p4ss-adopted");
    const refused = plan(clickhouse(spec), view({ capabilities: [], referenceGrants: [] }));
    expect(refused.steps).toEqual([]);
    expect(refused.conditions[0]?.reason).toBe("ReferenceNotPermitted");
  });

  it("adopt: the adopted cluster's headless Service is named as the operator names it — dots replaced, a name past 63 characters cut and hashed", () => {
    expect(clickhouseHeadlessService("shared")).toBe("shared-clickhouse-headless");
    expect(clickhouseHeadlessService("team.shared")).toBe("team-shared-clickhouse-headless");
    // `<name>-clickhouse-headless` would have 72 characters: resourceName keeps the first 49 of `<name>-clickhouse`,
    // then the first 4 hex digits of its sha256 (api/v1alpha1/common.go at v0.0.7).
    expect(clickhouseHeadlessService("analytics-shared-clickhouse-cluster-of-the-data-team")).toBe(
      "analytics-shared-clickhouse-cluster-of-the-data-t-63fb-headless",
    );
  });

  it("external: wires the connection Secret, which must hold host, username and password", () => {
    const spec = { mode: "external", external: { connectionSecretRef: { name: "ch-conn" } } };
    const missing = plan(clickhouse(spec), view({ capabilities: [] }));
    expect(missing.conditions.find((c) => c.type === "DatastoreReady")?.message).toBe(
      "Secret apps/ch-conn (spec.external.connectionSecretRef) does not exist: create it with keys host, port, username and password",
    );
    const lacking = plan(clickhouse(spec), view({ capabilities: [], reads: { externalCredentials: { host: "h" } } }));
    expect(lacking.conditions.find((c) => c.type === "DatastoreReady")?.message).toBe(
      "Secret apps/ch-conn lacks keys username, password: add them (host, port, username, password)",
    );
    const credentials = { host: "ch.example", port: "8443", nativePort: "9440", username: "u", password: "x" };
    const wired = plan(clickhouse(spec), view({ capabilities: [], reads: { externalCredentials: credentials } }));
    expect(wired.steps).toEqual([]);
    expect(wired.status.connection).toEqual({
      host: "ch.example",
      port: 8443,
      credentialsSecret: { name: "ch-conn", namespace: "apps" },
      url: "http://ch.example:8443",
    });
    expect(wired.status.nativePort).toBe(9440);
    const badPort = plan(
      clickhouse(spec),
      view({ capabilities: [], reads: { externalCredentials: { ...credentials, nativePort: "nine" } } }),
    );
    expect(badPort.conditions.find((c) => c.type === "DatastoreReady")).toMatchObject({
      reason: "ConnectionSecretInvalid",
      message:
        'Secret apps/ch-conn holds nativePort "nine", which is no port: write a number from 1 to 65535, or remove the key (default 9000)',
    });
    expect(badPort.conditions.find((c) => c.type === "Stalled")?.status).toBe("True");
  });

  it("leaving managed mode under Retain keeps the cluster with its Keeper, password and Service, released to the user", () => {
    const managed = plan(clickhouse({}), view());
    const live = new Map<string, KubeObject>();
    for (const step of managed.steps) {
      if (step.kind === "apply" || step.kind === "generate-secret")
        live.set(`${step.object.kind}/apps/${step.object.metadata.name}`, step.object);
    }
    const spec = { mode: "external", external: { connectionSecretRef: { name: "ch-conn" } } };
    const moved = plan(
      clickhouse(spec, managed.status),
      view({
        capabilities: [],
        objects: live,
        reads: { externalCredentials: { host: "h", username: "u", password: "x" } },
      }),
    );
    expect(moved.steps.map((s) => s.description)).toEqual([
      "keep Secret apps/traces-credentials with retained ClickHouseCluster apps/traces (its password unchanged): released to you, no longer managed",
      "keep KeeperCluster apps/traces with retained ClickHouseCluster apps/traces (the cluster's coordination): released to you, no longer managed",
      "keep Service apps/traces with retained ClickHouseCluster apps/traces (where consumers connect): released to you, no longer managed",
      "keep ClickHouseCluster apps/traces, which may hold data (deletionPolicy Retain): released to you, no longer managed",
      "release clickhouse-operator: no consumer left (uninstalled only if owned)",
    ]);
    expect(moved.events.map((e) => [e.reason, e.message])).toEqual([
      [
        "DatastoreRetained",
        "ClickHouseCluster apps/traces may hold data and was kept (deletionPolicy Retain) (mode changed from managed to external), with its password Secret apps/traces-credentials and its KeeperCluster apps/traces and its Service apps/traces; they are released to you and no longer managed: dump its data and delete them yourself when safe. Deleting namespace apps deletes them all the same, and the data on their volumes unless their PersistentVolumes' reclaim policy is Retain",
      ],
    ]);
  });

  it("leaving managed mode under Delete deletes the cluster, its Keeper, password and Service, each said", () => {
    const spec = { managed: { deletionPolicy: "Delete" } };
    const managed = plan(clickhouse(spec), view());
    const live = new Map<string, KubeObject>();
    for (const step of managed.steps) {
      if (step.kind === "apply" || step.kind === "generate-secret")
        live.set(`${step.object.kind}/apps/${step.object.metadata.name}`, step.object);
    }
    const external = { mode: "external", external: { connectionSecretRef: { name: "ch-conn" } } };
    const moved = plan(
      clickhouse(external, managed.status),
      view({
        capabilities: [],
        objects: live,
        reads: { externalCredentials: { host: "h", username: "u", password: "x" } },
      }),
    );
    expect(moved.events.map((e) => [e.type, e.reason])).toEqual([
      ["Normal", "GarbageCollected"],
      ["Normal", "GarbageCollected"],
      ["Normal", "GarbageCollected"],
      ["Warning", "DatastoreDeleted"],
    ]);
    expect(moved.events[3]?.message).toBe(
      "deleting ClickHouseCluster apps/traces (mode changed from managed to external) (deletionPolicy Delete): its data is lost unless you dumped it",
    );
  });
});

describe("the ClickHouse operator's Ready condition", () => {
  it("is judged for the object's latest generation, and says why not", () => {
    expect(operatorReadiness(undefined)).toEqual({ ready: false, reason: "it does not exist yet" });
    const object = { metadata: { generation: 3 }, status: { conditions: [] } };
    expect(operatorReadiness(object).reason).toBe("the operator has written no Ready condition yet");
    const ready = (observedGeneration: number) => ({
      metadata: { generation: 3 },
      status: {
        conditions: [{ type: "Ready", status: "True", reason: "StandaloneReady", message: "ok", observedGeneration }],
      },
    });
    expect(operatorReadiness(ready(2))).toEqual({
      ready: false,
      reason: "the operator has not acted on its latest spec yet",
    });
    expect(operatorReadiness(ready(3))).toEqual({ ready: true, reason: "Ready (StandaloneReady: ok)" });
  });
});
