import { API_GROUP, API_VERSION } from "../../lib/api/group.js";
import { type KubeClient, orUndefined } from "../../lib/cluster/kube-client.js";
import type { ReconcileContext } from "../../lib/engine/context.js";
import type { EngineResource } from "../../lib/engine/kind-module.js";
import { type ReconcileOutcome, reconcileResource } from "../../lib/engine/reconcile.js";
import { CNPG_CLUSTERS, CNPG_DATABASE_ROLES, CNPG_GROUP, CNPG_VERSION } from "../../lib/kinds/postgres-cluster/cnpg.js";
import type { PostgresClusterStatus } from "../../lib/kinds/postgres-cluster/schema.js";
import {
  POSTGRES_CLUSTER_PLURAL,
  PostgresCluster,
  type PostgresClusterSpecInput,
} from "../../lib/kinds/postgres-cluster/schema.js";
import { finalizeResources, reconcileUntil as reconcileKindUntil } from "./resources.js";

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
        metadata: {
          labels?: Record<string, string>;
          resourceVersion?: string;
          generation?: number;
          managedFields?: { manager: string; operation: string; subresource?: string; fieldsV1?: unknown }[];
        };
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

/** reconcileUntil (test/support/resources.ts) for a PostgresCluster. */
export function reconcileUntil(
  context: ReconcileContext,
  namespace: string,
  name: string,
  done: (outcome: ReconcileOutcome<PostgresClusterStatus>, resource: PostgresCluster) => boolean,
  between: () => Promise<void> = async () => {},
) {
  return reconcileKindUntil<PostgresClusterStatus>(
    context,
    "PostgresCluster",
    namespace,
    name,
    (outcome, resource) => done(outcome, resource as PostgresCluster),
    between,
  );
}

export async function eventsAbout(client: KubeClient, namespace: string, name: string) {
  const events = await client.events.listNamespacedEvent({ namespace });
  return events.items
    .filter((e) => e.regarding?.name === name)
    .map((e) => ({ type: e.type, reason: e.reason, note: e.note ?? "" }));
}

/** Finalizes every PostgresCluster of a namespace (test/support/resources.ts finalizeResources). */
export function finalizePostgresClusters(context: ReconcileContext, namespace: string): Promise<void> {
  return finalizeResources(context, "PostgresCluster", namespace);
}

/** One engine pass over a PostgresCluster, its status typed as the kind's. */
export function reconcilePostgresCluster(
  context: ReconcileContext,
  resource: PostgresCluster,
): Promise<ReconcileOutcome<PostgresClusterStatus>> {
  return reconcileResource<PostgresClusterStatus>(context, resource as EngineResource);
}

/** The finalizer CloudNativePG puts on a DatabaseRole it manages (cloudnative-pg v1.30.0, pkg/utils/finalizers.go RoleFinalizerName). */
export const CNPG_ROLE_FINALIZER = "cnpg.io/deleteRole";

interface CnpgDatabaseRole {
  metadata: { name: string; generation?: number; finalizers?: string[]; deletionTimestamp?: string };
  spec: { name: string; databaseRoleReclaimPolicy?: string; passwordSecret?: { name: string } };
  status?: { applied?: boolean };
}

export async function listCnpgDatabaseRoles(client: KubeClient, namespace: string): Promise<CnpgDatabaseRole[]> {
  const list = (await client.custom.listNamespacedCustomObject({
    group: CNPG_GROUP,
    version: CNPG_VERSION,
    plural: CNPG_DATABASE_ROLES,
    namespace,
  })) as { items: CnpgDatabaseRole[] };
  return list.items.sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
}

/**
 * Plays CloudNativePG's instance manager on every DatabaseRole of a namespace not being deleted, as it does
 * once it created the role (internal/management/controller/databaserole_controller.go, v1.30.0): its
 * finalizer added, then `status.applied` and `observedGeneration` written — from then on, deleting the
 * object drops the role under `databaseRoleReclaimPolicy: delete`, before the finalizer is released.
 */
export async function playCnpgDatabaseRolesApplied(client: KubeClient, namespace: string): Promise<void> {
  const target = { group: CNPG_GROUP, version: CNPG_VERSION, plural: CNPG_DATABASE_ROLES, namespace };
  for (const role of await listCnpgDatabaseRoles(client, namespace)) {
    if (role.metadata.deletionTimestamp || role.status?.applied) continue;
    await client.custom.patchNamespacedCustomObject(
      {
        ...target,
        name: role.metadata.name,
        body: [{ op: "add", path: "/metadata/finalizers", value: [CNPG_ROLE_FINALIZER] }],
      },
      undefined,
    );
    await client.custom.patchNamespacedCustomObjectStatus(
      {
        ...target,
        name: role.metadata.name,
        body: [
          {
            op: "add",
            path: "/status",
            value: { applied: true, observedGeneration: role.metadata.generation ?? 1 },
          },
        ],
      },
      undefined,
    );
  }
}

/**
 * Plays CloudNativePG releasing the deleted DatabaseRoles of a namespace: each role dropped (reclaim policy
 * delete) or left (retain) in PostgreSQL, then its finalizer removed, so that the object goes. Returns the
 * names released.
 */
export async function playCnpgDatabaseRolesReleased(client: KubeClient, namespace: string): Promise<string[]> {
  const released: string[] = [];
  for (const role of await listCnpgDatabaseRoles(client, namespace)) {
    if (!role.metadata.deletionTimestamp) continue;
    await client.custom.patchNamespacedCustomObject(
      {
        group: CNPG_GROUP,
        version: CNPG_VERSION,
        plural: CNPG_DATABASE_ROLES,
        namespace,
        name: role.metadata.name,
        body: [{ op: "remove", path: "/metadata/finalizers" }],
      },
      undefined,
    );
    released.push(role.metadata.name);
  }
  return released;
}
