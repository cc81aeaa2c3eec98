import { API_GROUP, API_VERSION } from "../../lib/api/group.js";
import { ensureNaviqueCrds } from "../../lib/apply/navique-crds.js";
import type { KubeClient } from "../../lib/cluster/kube-client.js";
import type { ReconcileContext } from "../../lib/engine/context.js";
import { ownershipMarks } from "../../lib/engine/ownership.js";
import { CNPG_API_VERSION } from "../../lib/kinds/postgres-cluster/cnpg.js";
import { REGISTRY } from "../../lib/kinds/registry.js";
import { eventually } from "./cluster.js";
import { createPostgresCluster, playCnpgClusterReady } from "./postgres.js";

/** The password of the user's own credentials in `adoptingPostgresCluster`: it must never be printed. */
export const USER_PASSWORD = "s3cret-of-the-user";

/** Installs cloudnative-pg (and cert-manager) from the fixture charts until Ready: adopt mode needs its CRDs. */
export async function installCloudnativePg(context: ReconcileContext): Promise<void> {
  await eventually(
    "cloudnative-pg to be installed and Ready",
    async () => {
      const decisions = await context.installer.ensure("cloudnative-pg");
      return decisions.length === 2 && decisions.every((d) => d.ready) ? true : undefined;
    },
    { timeoutMs: 150_000, intervalMs: 500 },
  );
}

/**
 * A PostgresCluster `name` adopting the user's CNPG Cluster `shared` and its credentials `shared-app`, all
 * in `namespace`. With `blocked`, the copy (`<name>-adopted-credentials`) already exists, carrying this
 * PostgresCluster's marks (so the engine applies over it: it is its own) but made immutable with other
 * data: the apiserver refuses every apply of the copy with 422. No CloudNativePG runs here: the test plays
 * its controller, writing the Cluster's Ready status.
 */
export async function adoptingPostgresCluster(
  context: ReconcileContext,
  namespace: string,
  name: string,
  options: { readonly blocked: boolean },
): Promise<void> {
  const { client } = context;
  await client.apply(
    {
      apiVersion: CNPG_API_VERSION,
      kind: "Cluster",
      metadata: { name: "shared", namespace },
      spec: { instances: 1, storage: { size: "1Gi" } },
    } as never,
    { fieldManager: "kubectl" },
  );
  await playCnpgClusterReady(client, namespace, "shared");
  await client.core.createNamespacedSecret({
    namespace,
    body: {
      metadata: { name: "shared-app" },
      type: "kubernetes.io/basic-auth",
      stringData: { username: "owner", password: USER_PASSWORD },
    },
  });
  if (options.blocked) {
    await client.core.createNamespacedSecret({
      namespace,
      body: {
        metadata: {
          name: `${name}-adopted-credentials`,
          ...ownershipMarks({ kind: "PostgresCluster", metadata: { name, namespace } }),
        },
        type: "kubernetes.io/basic-auth",
        immutable: true,
        stringData: { username: "someone", password: "else" },
      },
    });
  }
  await createPostgresCluster(client, namespace, name, {
    mode: "adopt",
    adopt: { clusterRef: { name: "shared" }, credentialsSecretRef: { name: "shared-app" } },
  });
}

/**
 * The product's CRDs applied, and served: a CRD whose schema changed (another suite may have applied an
 * older one) has its storage re-initialised, and the apiserver answers 429 meanwhile.
 */
export async function naviqueCrdsServed(client: KubeClient): Promise<void> {
  await ensureNaviqueCrds(client);
  for (const plural of REGISTRY.kinds.map((m) => m.definition.plural)) {
    await eventually(`the ${plural} kind to be served`, async () => {
      await client.custom.listClusterCustomObject({ group: API_GROUP, version: API_VERSION, plural });
      return true;
    });
  }
}
