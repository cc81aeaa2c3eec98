import { join } from "node:path";
import { parseAllDocuments } from "yaml";
import { ensureNaviqueCrds } from "../../lib/apply/navique-crds.js";
import type { HelmCli } from "../../lib/cluster/helm-cli.js";
import type { KubeClient } from "../../lib/cluster/kube-client.js";
import { run } from "../../lib/cluster/process.js";
import { CNPG_API_VERSION } from "../../lib/kinds/postgres-cluster/cnpg.js";
import { createReconcileContext } from "../../lib/reconcile/context.js";
import { deleteNamespaceAndWait, FIXTURE_CHARTS, FIXTURE_SOURCE } from "./capabilities.js";
import { finalizePostgresClusters, playCnpgClusterReady, readCnpgCluster } from "./postgres.js";

/** Namespaces the examples (examples/pulumi, examples/cdk8s) use. */
export const EXAMPLE_NAMESPACES = ["navique-example-platform", "navique-example-apps", "navique-example-data"];

/**
 * The cluster the examples expect: no example namespace left from before, and the user's own CNPG
 * Cluster `shared` with its credentials in `navique-example-data` (made as kubectl would, without the
 * product), which the examples adopt, and the ReferenceGrant by which that namespace allows it.
 */
export async function prepareExampleCluster(client: KubeClient, helm: HelmCli): Promise<void> {
  await removeExampleNamespaces(client, helm);
  await client.core.createNamespace({ body: { metadata: { name: "navique-example-data" } } });
  const crds = (
    await run(helm.binary, [
      "template",
      "crds",
      join(FIXTURE_CHARTS, "cloudnative-pg"),
      "--show-only",
      "templates/crds.yaml",
    ])
  ).stdout;
  for (const document of parseAllDocuments(crds)) {
    const object = document.toJS() as { apiVersion: string; kind: string; metadata: { name: string } } | null;
    if (object) await client.apply(object, { fieldManager: "kubectl" });
  }
  await ensureNaviqueCrds(client);
  await client.apply(
    {
      apiVersion: CNPG_API_VERSION,
      kind: "Cluster",
      metadata: { name: "shared", namespace: "navique-example-data" },
      spec: { instances: 1 },
    } as never,
    { fieldManager: "kubectl" },
  );
  await client.core.createNamespacedSecret({
    namespace: "navique-example-data",
    body: {
      metadata: { name: "shared-app" },
      type: "kubernetes.io/basic-auth",
      stringData: { username: "chat", password: "user-made-password" },
    },
  });
  await grantExampleAdoption(client);
}

/** The examples' ReferenceGrant, as examples/cdk8s declares it. */
export const EXAMPLE_GRANT = { namespace: "navique-example-data", name: "navique-example-apps" };

/**
 * The owner of navique-example-data lets the examples' PostgresClusters in navique-example-apps adopt
 * its cluster and credentials (docs/reference-grants.md), with kubectl.
 */
export async function grantExampleAdoption(client: KubeClient): Promise<void> {
  await client.apply(
    {
      apiVersion: "core.navique.com/v1alpha1",
      kind: "ReferenceGrant",
      metadata: { name: EXAMPLE_GRANT.name, namespace: EXAMPLE_GRANT.namespace },
      spec: {
        from: [{ group: "core.navique.com", kind: "PostgresCluster", namespace: "navique-example-apps" }],
        to: [
          { group: "postgresql.cnpg.io", kind: "Cluster", name: "shared" },
          { group: "", kind: "Secret", name: "shared-app" },
        ],
      },
    } as never,
    { fieldManager: "kubectl" },
  );
}

/** Finalizes the examples' PostgresClusters (the product's own deletion path), then deletes their namespaces. */
export async function removeExampleNamespaces(client: KubeClient, helm: HelmCli): Promise<void> {
  const context = createReconcileContext({ client, helm, source: FIXTURE_SOURCE });
  for (const namespace of EXAMPLE_NAMESPACES) await finalizePostgresClusters(context, namespace);
  // At once: each deletion waits out the namespace controller's grace period (namespace-content.ts).
  await Promise.all(EXAMPLE_NAMESPACES.map((namespace) => deleteNamespaceAndWait(client, namespace)));
}

/**
 * Plays the CNPG controller for the examples' clusters: writes the Ready status it would write once a
 * Cluster exists. Returns the stop function.
 */
export function playExampleCnpg(client: KubeClient): () => void {
  const timer = setInterval(() => {
    void (async () => {
      for (const [namespace, name] of [
        ["navique-example-platform", "platform-db"],
        ["navique-example-data", "shared"],
      ] as const) {
        const cluster = (await readCnpgCluster(client, namespace, name)) as { status?: unknown } | undefined;
        if (cluster && !cluster.status) await playCnpgClusterReady(client, namespace, name);
      }
    })().catch(() => undefined);
  }, 300);
  return () => clearInterval(timer);
}
