import { API_GROUP, API_VERSION } from "../../lib/api/group.js";
import {
  POSTGRES_CLUSTER_PLURAL,
  PostgresCluster,
  type PostgresClusterSpecInput,
} from "../../lib/api/postgres-cluster.js";
import { type KubeClient, orUndefined } from "../../lib/cluster/kube-client.js";
import { CNPG_CLUSTERS, CNPG_GROUP, CNPG_VERSION } from "../../lib/plan/cnpg.js";
import type { ReconcileContext, ReconcileOutcome } from "../../lib/reconcile/postgres-cluster.js";
import { reconcilePostgresCluster } from "../../lib/reconcile/postgres-cluster.js";
import { eventually } from "./cluster.js";

const crd = { group: API_GROUP, version: API_VERSION, plural: POSTGRES_CLUSTER_PLURAL };
const cnpg = { group: CNPG_GROUP, version: CNPG_VERSION, plural: CNPG_CLUSTERS };

export async function createPostgresCluster(
  client: KubeClient,
  namespace: string,
  name: string,
  spec: PostgresClusterSpecInput,
) {
  await client.custom.createNamespacedCustomObject({
    ...crd,
    namespace,
    body: { apiVersion: `${API_GROUP}/${API_VERSION}`, kind: "PostgresCluster", metadata: { name }, spec },
  });
}

/** The Secret `pg` an external PostgresCluster connects with (spec.external.connectionSecretRef), made up. */
export async function createConnectionSecret(client: KubeClient, namespace: string): Promise<void> {
  await client.core.createNamespacedSecret({
    namespace,
    body: { metadata: { name: "pg" }, stringData: { host: "pg.internal", username: "u", password: "p" } },
  });
}

export async function readPostgresCluster(
  client: KubeClient,
  namespace: string,
  name: string,
): Promise<PostgresCluster | undefined> {
  const raw = await orUndefined(client.custom.getNamespacedCustomObject({ ...crd, namespace, name }));
  return raw === undefined ? undefined : PostgresCluster.parse(raw);
}

export async function replaceSpec(client: KubeClient, namespace: string, name: string, spec: PostgresClusterSpecInput) {
  await client.custom.patchNamespacedCustomObject(
    { ...crd, namespace, name, body: [{ op: "replace", path: "/spec", value: spec }] },
    undefined,
  );
}

export async function deletePostgresCluster(client: KubeClient, namespace: string, name: string) {
  await client.custom.deleteNamespacedCustomObject({ ...crd, namespace, name });
}

export async function readCnpgCluster(client: KubeClient, namespace: string, name: string) {
  return (await orUndefined(client.custom.getNamespacedCustomObject({ ...cnpg, namespace, name }))) as
    | {
        metadata: { labels?: Record<string, string>; resourceVersion?: string; generation?: number };
        spec?: Record<string, unknown>;
      }
    | undefined;
}

/**
 * No CloudNativePG pod runs on the local plane, so the test plays its controller: it writes the status
 * the CNPG operator writes once a Cluster's instances are up (phase and a Ready condition).
 */
export async function playCnpgClusterReady(client: KubeClient, namespace: string, name: string): Promise<void> {
  await client.custom.patchNamespacedCustomObjectStatus(
    {
      ...cnpg,
      namespace,
      name,
      body: [
        {
          op: "add",
          path: "/status",
          value: {
            phase: "Cluster in healthy state",
            readyInstances: 1,
            conditions: [{ type: "Ready", status: "True", reason: "ClusterIsReady", message: "Cluster is Ready" }],
          },
        },
      ],
    },
    undefined,
  );
}

/**
 * Reconciles as the operator would (pass after pass, requeueing) until `done` holds for the outcome;
 * `between` runs after each pass (e.g. to play an upstream controller).
 */
export async function reconcileUntil(
  context: ReconcileContext,
  namespace: string,
  name: string,
  done: (outcome: ReconcileOutcome, resource: PostgresCluster) => boolean,
  between: () => Promise<void> = async () => {},
): Promise<ReconcileOutcome & { performedInAllPasses: string[] }> {
  const performedInAllPasses: string[] = [];
  const last = await eventually(
    `PostgresCluster ${namespace}/${name} to converge`,
    async () => {
      const resource = await readPostgresCluster(context.client, namespace, name);
      if (!resource) throw new Error(`PostgresCluster ${namespace}/${name} is gone`);
      const outcome = await reconcilePostgresCluster(context, resource);
      performedInAllPasses.push(...outcome.performed);
      await between();
      return done(outcome, resource) ? outcome : undefined;
    },
    { timeoutMs: 150_000, intervalMs: 300 },
  );
  return { ...last, performedInAllPasses };
}

export async function eventsAbout(client: KubeClient, namespace: string, name: string) {
  const events = await client.events.listNamespacedEvent({ namespace });
  return events.items
    .filter((e) => e.regarding?.name === name)
    .map((e) => ({ type: e.type, reason: e.reason, note: e.note ?? "" }));
}

/**
 * Deletes every PostgresCluster of a namespace and runs their finalization with the real reconcile, so
 * that the namespace can go: a PostgresCluster keeps its finalizer until the product has released what
 * it owns, and a test that failed midway may have left one behind with no operator running.
 */
export async function finalizePostgresClusters(context: ReconcileContext, namespace: string): Promise<void> {
  const list = (await orUndefined(context.client.custom.listNamespacedCustomObject({ ...crd, namespace }))) as
    | { items: { metadata: { name: string } }[] }
    | undefined;
  for (const item of list?.items ?? []) {
    await orUndefined(
      context.client.custom.deleteNamespacedCustomObject({ ...crd, namespace, name: item.metadata.name }),
    );
    await eventually(`PostgresCluster ${namespace}/${item.metadata.name} to be finalized`, async () => {
      const resource = await readPostgresCluster(context.client, namespace, item.metadata.name);
      if (!resource) return true;
      await reconcilePostgresCluster(context, resource);
      return undefined;
    });
  }
}
