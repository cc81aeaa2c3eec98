/**
 * What a workload release costs the engine: a managed MeilisearchInstance (the fixture chart of the tests,
 * test/fixtures/charts/meilisearch, through real helm) installed to Ready, then passes that change nothing
 * — API requests and time each, no helm run, no revision — and a pass that puts back values changed by
 * hand (a helm upgrade). On a control plane of its own (`bench-workload-release`, stopped at the end); the
 * storage provisioner the plane lacks is played by binding a hostPath volume to the claim. Prints figures,
 * asserts nothing.
 *
 *   npx tsx bench/workload-release.ts
 */
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { API_GROUP_VERSION } from "../lib/api/group.js";
import { ensureNaviqueCrds } from "../lib/apply/navique-crds.js";
import { HelmCli } from "../lib/cluster/helm-cli.js";
import { KubeClient, orUndefined } from "../lib/cluster/kube-client.js";
import type { EngineResource } from "../lib/engine/kind-module.js";
import { readResource, reconcileResource } from "../lib/engine/reconcile.js";
import { REGISTRY } from "../lib/kinds/registry.js";
import { LocalControlPlane } from "../lib/local-plane/plane.js";
import { toolchainPaths } from "../lib/local-plane/toolchain-paths.js";
import { createReconcileContext } from "../lib/reconcile/context.js";
import { deleteNamespaceAndWait } from "./namespace.js";

const NAMESPACE = "bench-workload-release";
const NAME = "search";
const RUNS = 20;
const CHARTS = join(import.meta.dirname, "..", "test", "fixtures", "charts");

async function main(): Promise<void> {
  const plane = new LocalControlPlane({ name: "bench-workload-release" });
  const connection = await plane.ensureRunning();
  try {
    await measure(connection.kubeconfig);
  } finally {
    await plane.stop();
  }
}

async function measure(kubeconfig: string): Promise<void> {
  const client = KubeClient.fromFile(kubeconfig);
  const helm = new HelmCli({ binary: (await toolchainPaths()).helm, kubeconfig });
  const context = createReconcileContext({ client, helm, source: { kind: "directory", path: CHARTS } });
  const module = REGISTRY.kinds.find((m) => m.definition.kind === "MeilisearchInstance");
  if (!module) throw new Error("MeilisearchInstance is not registered");
  await ensureNaviqueCrds(client);
  await deleteNamespaceAndWait(client, NAMESPACE);
  await client.core.createNamespace({ body: { metadata: { name: NAMESPACE } } });
  await client.custom.createNamespacedCustomObject({
    group: "core.navique.com",
    version: "v1alpha1",
    plural: module.definition.plural,
    namespace: NAMESPACE,
    body: { apiVersion: API_GROUP_VERSION, kind: "MeilisearchInstance", metadata: { name: NAME }, spec: {} },
  });
  const pass = async () => {
    const resource = (await readResource(context, module, NAMESPACE, NAME)) as EngineResource;
    const before = client.requests;
    const started = performance.now();
    const outcome = await reconcileResource(context, resource);
    return { outcome, requests: client.requests - before, ms: performance.now() - started };
  };

  const installStarted = performance.now();
  for (let i = 0; i < 300; i++) {
    await provisionVolume(client);
    const { outcome } = await pass();
    if (!outcome.requeue) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const toReady = performance.now() - installStarted;

  const noop: { requests: number; ms: number }[] = [];
  for (let run = 0; run < RUNS; run++) noop.push(await pass());
  const revisions = await client.core.listNamespacedSecret({
    namespace: NAMESPACE,
    labelSelector: `owner=helm,name=${NAME}`,
  });

  await helm.upgrade(NAME, join(CHARTS, "meilisearch"), {
    namespace: NAMESPACE,
    values: {
      fullnameOverride: NAME,
      environment: { MEILI_ENV: "production" },
      auth: { existingMasterKeySecret: `${NAME}-master-key` },
      persistence: { enabled: true, existingClaim: `${NAME}-data` },
      replicaCount: 2,
    },
    wait: false,
  });
  const upgrade = await pass();

  const sorted = noop.map((n) => n.ms).sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)] ?? 0;
  process.stdout.write(
    [
      `install to Ready (helm install, the rollout played): ${(toReady / 1000).toFixed(1)} s`,
      `pass with nothing changed (${RUNS} runs): ${noop[0]?.requests} API requests, median ${median.toFixed(1)} ms, max ${(sorted.at(-1) ?? 0).toFixed(1)} ms; release revisions after them: ${revisions.items.length}`,
      `pass putting back values changed by hand (helm upgrade): ${upgrade.requests} API requests, ${upgrade.ms.toFixed(0)} ms`,
      "",
    ].join("\n"),
  );
  // The plane keeps its data: nothing may hold the namespace on the next run.
  await client.custom.patchNamespacedCustomObject(
    {
      group: "core.navique.com",
      version: "v1alpha1",
      plural: module.definition.plural,
      namespace: NAMESPACE,
      name: NAME,
      body: [{ op: "replace", path: "/metadata/finalizers", value: [] }],
    },
    undefined,
  );
  await helm.uninstall(NAME, NAMESPACE);
  await deleteNamespaceAndWait(client, NAMESPACE);
  await orUndefined(client.core.deletePersistentVolume({ name: `${NAMESPACE}-data` }));
}

/** Plays the storage provisioner: a hostPath volume bound to the claim, once the claim exists. */
async function provisionVolume(client: KubeClient): Promise<void> {
  const name = `${NAMESPACE}-data`;
  if (await orUndefined(client.core.readPersistentVolume({ name }))) return;
  await client.core.createPersistentVolume({
    body: {
      metadata: { name },
      spec: {
        capacity: { storage: "10Gi" },
        accessModes: ["ReadWriteOnce"],
        hostPath: { path: `/tmp/${name}` },
        claimRef: { namespace: NAMESPACE, name: `${NAME}-data` },
        persistentVolumeReclaimPolicy: "Retain",
      },
    },
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
