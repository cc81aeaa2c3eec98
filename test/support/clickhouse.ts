import { type KubeClient, orUndefined } from "../../lib/cluster/kube-client.js";

const CLICKHOUSE = { group: "clickhouse.com", version: "v1alpha1" };

type Plural = "clickhouseclusters" | "keeperclusters";

/** A ClickHouse operator object as stored, for the tests to read what the product wrote. */
export interface ClickHouseObject {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace: string;
    uid: string;
    generation: number;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  spec: Record<string, unknown> & { replicas?: number; shards?: number };
  status?: Record<string, unknown>;
}

export function readClickHouse(
  client: KubeClient,
  plural: Plural,
  namespace: string,
  name: string,
): Promise<ClickHouseObject | undefined> {
  return orUndefined(client.custom.getNamespacedCustomObject({ ...CLICKHOUSE, plural, namespace, name })) as Promise<
    ClickHouseObject | undefined
  >;
}

export async function createClickHouse(
  client: KubeClient,
  kind: "ClickHouseCluster" | "KeeperCluster",
  namespace: string,
  name: string,
  spec: Record<string, unknown>,
): Promise<void> {
  await client.custom.createNamespacedCustomObject({
    ...CLICKHOUSE,
    plural: kind === "ClickHouseCluster" ? "clickhouseclusters" : "keeperclusters",
    namespace,
    body: { apiVersion: `${CLICKHOUSE.group}/${CLICKHOUSE.version}`, kind, metadata: { name }, spec },
  });
}

/** The Ready condition as the operator writes it (internal/controller/statusmanager.go SetConditions). */
function ready(object: ClickHouseObject, status: "True" | "False", reason: string, message: string) {
  return {
    type: "Ready",
    status,
    reason,
    message,
    observedGeneration: object.metadata.generation,
    lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, "Z"),
  };
}

/**
 * No ClickHouse operator pod runs on the local plane (its Deployment is installed from the fixture chart
 * and kwok reports it available), nor could a server start: the test plays the operator, writing what it
 * writes once its pods serve — on the KeeperCluster `<name>`, Ready True with reason `StandaloneReady`
 * ("Standalone Keeper is ready") for one replica, `ClusterReady` ("Cluster is ready") for more; on the
 * ClickHouseCluster `<name>`, Ready True with `AllShardsReady` ("All shards are ready"); each with the
 * generation it acted on and its ready replicas (internal/controller/{keeper,clickhouse}/sync.go at v0.0.7).
 * It also makes the one Service the operator makes for a ClickHouseCluster, headless
 * `<name>-clickhouse-headless`, owned by it (internal/controller/clickhouse/templates.go).
 */
export async function playClickHouseOperator(client: KubeClient, namespace: string, name: string): Promise<void> {
  const keeper = await readClickHouse(client, "keeperclusters", namespace, name);
  if (keeper) {
    const replicas = keeper.spec.replicas ?? 3;
    const condition =
      replicas === 1
        ? ready(keeper, "True", "StandaloneReady", "Standalone Keeper is ready")
        : ready(keeper, "True", "ClusterReady", "Cluster is ready");
    await writeStatus(client, "keeperclusters", keeper, {
      conditions: [condition],
      readyReplicas: replicas,
      observedGeneration: keeper.metadata.generation,
    });
  }
  const cluster = await readClickHouse(client, "clickhouseclusters", namespace, name);
  if (!cluster) return;
  await writeStatus(client, "clickhouseclusters", cluster, {
    conditions: [ready(cluster, "True", "AllShardsReady", "All shards are ready")],
    readyReplicas: (cluster.spec.replicas ?? 3) * (cluster.spec.shards ?? 1),
    observedGeneration: cluster.metadata.generation,
  });
  const headless = `${name.replaceAll(".", "-")}-clickhouse-headless`;
  if (await orUndefined(client.core.readNamespacedService({ namespace, name: headless }))) return;
  await client.core.createNamespacedService({
    namespace,
    body: {
      metadata: {
        name: headless,
        labels: { app: `${name}-clickhouse` },
        ownerReferences: [
          { apiVersion: cluster.apiVersion, kind: cluster.kind, name, uid: cluster.metadata.uid, controller: true },
        ],
      },
      spec: {
        clusterIP: "None",
        publishNotReadyAddresses: true,
        selector: { app: `${name}-clickhouse` },
        ports: [
          { name: "http", port: 8123, targetPort: 8123 },
          { name: "tcp", port: 9000, targetPort: 9000 },
        ],
      },
    },
  });
}

async function writeStatus(client: KubeClient, plural: Plural, object: ClickHouseObject, status: object) {
  await client.custom.patchNamespacedCustomObjectStatus({
    ...CLICKHOUSE,
    plural,
    namespace: object.metadata.namespace,
    name: object.metadata.name,
    body: [{ op: "add", path: "/status", value: status }],
  });
}
