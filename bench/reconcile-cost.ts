/**
 * The cost of one reconcile pass of each registered kind: API requests and time of a pass over a resource
 * already in place (nothing to change), on the local control plane, with 1 resource of the kind and then
 * with 500 more. Prints a table by kind; asserts nothing (figures belong in docs/, not in tests). It runs
 * on a control plane of its own (plane name `bench-reconcile-cost`, stopped at the end): hundreds of
 * resources on the shared local plane would count against the cluster-wide caps of tests running there.
 *
 *   npx tsx bench/reconcile-cost.ts
 */
import { performance } from "node:perf_hooks";
import { API_GROUP_VERSION } from "../lib/api/group.js";
import { ensureNaviqueCrds } from "../lib/apply/navique-crds.js";
import { HelmCli } from "../lib/cluster/helm-cli.js";
import { KubeClient } from "../lib/cluster/kube-client.js";
import type { EngineResource } from "../lib/engine/kind-module.js";
import { readResource, reconcileResource } from "../lib/engine/reconcile.js";
import { REGISTRY } from "../lib/kinds/registry.js";
import { LocalControlPlane } from "../lib/local-plane/plane.js";
import { createReconcileContext } from "../lib/reconcile/context.js";
import { deleteNamespaceAndWait } from "./namespace.js";

const RUNS = 20;
const NAMESPACE = "bench-reconcile-cost";
const MORE = 500;
const BATCH = 50;

/**
 * A resource of each kind that needs no capability operator (no pod runs here): the datastores external,
 * through a connection Secret; the Stack as it is (Community skips it: its decision is the licence's).
 */
const SPECS: Readonly<Record<string, unknown>> = {
  PostgresCluster: { mode: "external", external: { connectionSecretRef: { name: "conn" } } },
  RedisInstance: { mode: "external", external: { connectionSecretRef: { name: "conn" } } },
  MeilisearchInstance: { mode: "external", external: { connectionSecretRef: { name: "conn" } } },
  Stack: {},
};

async function main(): Promise<void> {
  const plane = new LocalControlPlane({ name: "bench-reconcile-cost" });
  const connection = await plane.ensureRunning();
  try {
    await measureAll(connection.kubeconfig);
  } finally {
    await plane.stop();
  }
}

async function measureAll(kubeconfigPath: string): Promise<void> {
  const connection = { kubeconfig: kubeconfigPath };
  const client = KubeClient.fromFile(connection.kubeconfig);
  const context = createReconcileContext({
    client,
    helm: new HelmCli({ binary: "helm", kubeconfig: connection.kubeconfig }),
  });
  await ensureNaviqueCrds(client);
  await deleteNamespaceAndWait(client, NAMESPACE);
  await client.core.createNamespace({ body: { metadata: { name: NAMESPACE } } });
  await client.core.createNamespacedSecret({
    namespace: NAMESPACE,
    body: { metadata: { name: "conn" }, stringData: { host: "db.internal", username: "u", password: "p" } },
  });
  process.stdout.write(
    `${"kind".padEnd(18)}${"in the cluster".padStart(15)}${"requests".padStart(10)}${"ms/pass".padStart(10)}\n`,
  );
  for (const module of REGISTRY.kinds) {
    const { kind, plural } = module.definition;
    const spec = SPECS[kind];
    if (spec === undefined) {
      process.stdout.write(`${kind.padEnd(18)}  (no capability-free sample: not measured)\n`);
      continue;
    }
    const create = (name: string) =>
      client.custom.createNamespacedCustomObject({
        group: "core.navique.com",
        version: "v1alpha1",
        plural,
        namespace: NAMESPACE,
        body: { apiVersion: API_GROUP_VERSION, kind, metadata: { name }, spec },
      });
    const measure = async (count: number) => {
      // Converge first (finalizer, status), then measure passes that change nothing.
      for (let i = 0; i < 3; i++) {
        const resource = (await readResource(context, module, NAMESPACE, "bench")) as EngineResource;
        await reconcileResource(context, resource);
      }
      let requests = 0;
      let elapsed = 0;
      for (let run = 0; run < RUNS; run++) {
        const resource = (await readResource(context, module, NAMESPACE, "bench")) as EngineResource;
        const before = client.requests;
        const started = performance.now();
        await reconcileResource(context, resource);
        elapsed += performance.now() - started;
        requests = client.requests - before;
      }
      process.stdout.write(
        `${kind.padEnd(18)}${String(count).padStart(15)}${String(requests).padStart(10)}${(elapsed / RUNS).toFixed(1).padStart(10)}\n`,
      );
    };
    await create("bench");
    await measure(1);
    for (let start = 0; start < MORE; start += BATCH) {
      await Promise.all(Array.from({ length: Math.min(BATCH, MORE - start) }, (_, k) => create(`other-${start + k}`)));
    }
    await measure(1 + MORE);
  }
  // The plane keeps its data: the next run must find no namespace held by finalizers nothing else removes.
  for (const module of REGISTRY.kinds) {
    const list = (await client.custom.listNamespacedCustomObject({
      group: "core.navique.com",
      version: "v1alpha1",
      plural: module.definition.plural,
      namespace: NAMESPACE,
    })) as { items: { metadata: { name: string } }[] };
    for (const item of list.items) {
      await client.custom.patchNamespacedCustomObject(
        {
          group: "core.navique.com",
          version: "v1alpha1",
          plural: module.definition.plural,
          namespace: NAMESPACE,
          name: item.metadata.name,
          body: [{ op: "replace", path: "/metadata/finalizers", value: [] }],
        },
        undefined,
      );
    }
  }
  await deleteNamespaceAndWait(client, NAMESPACE);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
