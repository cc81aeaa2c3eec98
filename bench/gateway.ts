/**
 * What a Gateway costs and how fast its wiring follows what it depends on. On a control plane of its own
 * (`bench-gateway`, stopped and purged at the end; --keep-plane keeps it running), with the tests' fixture charts
 * (cert-manager, CloudNativePG, the LiteLLM operator) through real helm, and a test licence with
 * `auto-wiring`:
 *
 * 1. A no-op pass over a Gateway in place (external database, two models): API requests and time, through
 *    `reconcileResource` as the Pulumi runtime and `navique plan` run it (no watch cache).
 *    And the same Gateway as a Pulumi preview judges it (the preview phase of a no-op `pulumi up`, whose
 *    update phase then calls no provider at all): the in-place check, counted by the apiserver.
 * 2. The same Gateway's no-op pass through the operator (watch caches, kept capability decisions): a pass
 *    brought by an annotation changed on the Gateway, its requests counted by the operator's own client
 *    and by the apiserver.
 * 3. --gateways N Gateways auto-wired to one managed PostgresCluster in another namespace under a grant
 *    (each with a claim of its own), run by the operator (in this process, no resync in the bench's time):
 *    the PostgresCluster's CNPG Cluster is played not Ready, then Ready again, --runs times; measured for
 *    each Gateway is the time from the change of the Cluster's status until the Gateway's
 *    DependenciesReady says it (polled every 20 ms, one list per poll). Prints p50 / p99 / max.
 *
 * CloudNativePG and the LiteLLM operator cannot run here: the bench plays them, writing the status they
 * write (test/support/postgres.ts, test/support/litellm.ts). Asserts nothing.
 *
 *   npx tsx bench/gateway.ts [--gateways N] [--runs N] [--keep-plane]
 */
import { loadavg } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { ensureNaviqueCrds } from "../lib/apply/navique-crds.js";
import { HelmCli } from "../lib/cluster/helm-cli.js";
import { KubeClient } from "../lib/cluster/kube-client.js";
import type { EngineResource } from "../lib/engine/kind-module.js";
import { readResource, reconcileResource } from "../lib/engine/reconcile.js";
import { REGISTRY } from "../lib/kinds/registry.js";
import { LocalControlPlane } from "../lib/local-plane/plane.js";
import { toolchainPaths } from "../lib/local-plane/toolchain-paths.js";
import { createReconcileContext } from "../lib/reconcile/context.js";
import { NaviqueOperator } from "../providers/operator/operator.js";
import { inPlace } from "../providers/pulumi/in-place.js";
import { condition } from "../test/support/cluster.js";
import { applyLicence, TEST_TRUSTED_KEYS, testLicenceToken } from "../test/support/licence.js";
import { playLiteLLMOperator } from "../test/support/litellm.js";
import { playCnpgClusterReady, readCnpgCluster } from "../test/support/postgres.js";
import { createReferenceGrant, createResource } from "../test/support/resources.js";
import { apiserverRequests, requestRates } from "./apiserver-requests.js";
import { deleteNamespaceAndWait } from "./namespace.js";

const { values } = parseArgs({
  options: {
    gateways: { type: "string", default: "10" },
    runs: { type: "string", default: "10" },
    "keep-plane": { type: "boolean", default: false },
  },
});
const GATEWAYS = Number(values.gateways);
const RUNS = Number(values.runs);
const NOOP_RUNS = 20;
const POLL_MS = 20;
const DATA = "bench-gateway-data";
const APPS = "bench-gateway-apps";
const SOURCE = { kind: "directory" as const, path: join(import.meta.dirname, "..", "test", "fixtures", "charts") };
const CNPG_CLUSTER = { group: "postgresql.cnpg.io", version: "v1", plural: "clusters" };

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function main(): Promise<void> {
  const plane = new LocalControlPlane({ name: "bench-gateway" });
  const connection = await plane.ensureRunning();
  try {
    await measure(connection.kubeconfig);
  } finally {
    // Purged: its resources hold finalizers no operator would remove in the next run's clean-up.
    if (!values["keep-plane"]) await plane.stop({ purge: true });
  }
}

async function measure(kubeconfig: string): Promise<void> {
  const client = KubeClient.fromFile(kubeconfig);
  const helm = new HelmCli({ binary: (await toolchainPaths()).helm, kubeconfig });
  const said: string[] = [];
  const context = createReconcileContext({
    client,
    helm,
    source: SOURCE,
    trustedKeys: TEST_TRUSTED_KEYS,
    report: (line) => void said.push(line),
  });
  await ensureNaviqueCrds(client);
  for (const ns of [APPS, DATA]) {
    await deleteNamespaceAndWait(client, ns);
    await client.core.createNamespace({ body: { metadata: { name: ns } } });
  }
  await applyLicence(client, testLicenceToken({ features: ["auto-wiring"], caps: { Gateway: GATEWAYS + 1 } }));
  process.stdout.write(
    `load average before: ${loadavg()
      .map((l) => l.toFixed(1))
      .join(" ")}\n`,
  );
  await measureNoop(client, context, said);
  await measurePreviewNoop(client, kubeconfig);
  // The operator's own client: its requests counted apart from the bench's.
  const operatorClient = KubeClient.fromFile(kubeconfig);
  const operator = new NaviqueOperator({
    client: operatorClient,
    helm,
    source: SOURCE,
    trustedKeys: TEST_TRUSTED_KEYS,
    resyncMs: 600_000,
    report: () => {},
  });
  await operator.start();
  try {
    await measureOperatorNoop(client, operatorClient);
    await measureRewire(client);
  } finally {
    await operator.stop();
  }
  process.stdout.write(
    `load average after: ${loadavg()
      .map((l) => l.toFixed(1))
      .join(" ")}\n`,
  );
}

/** The Gateway of the no-op measurements. */
const NOOP_SPEC = {
  models: [
    { name: "gpt-4o", provider: "openai", model: "gpt-4o", apiKeySecretRef: { name: "openai", key: "api-key" } },
    { name: "llama3", provider: "ollama", model: "llama3" },
  ],
  database: { mode: "external", external: { connectionSecretRef: { name: "db", key: "url" } } },
};

function gatewayModule() {
  const module = REGISTRY.kinds.find((m) => m.definition.kind === "Gateway");
  if (!module) throw new Error("Gateway is not registered");
  return module;
}

/** 1. Passes over a Gateway in place, with nothing to change. */
async function measureNoop(
  client: KubeClient,
  context: ReturnType<typeof createReconcileContext>,
  said: string[],
): Promise<void> {
  await client.core.createNamespacedSecret({
    namespace: APPS,
    body: { metadata: { name: "db" }, stringData: { url: "postgresql://u:p@db.internal:5432/litellm" } },
  });
  await client.core.createNamespacedSecret({
    namespace: APPS,
    body: { metadata: { name: "openai" }, stringData: { "api-key": "sk-bench" } },
  });
  await createResource(client, "Gateway", APPS, "noop", NOOP_SPEC);
  const module = gatewayModule();
  const pass = async () => {
    const resource = (await readResource(context, module, APPS, "noop")) as EngineResource;
    const before = client.requests;
    const started = performance.now();
    const outcome = await reconcileResource(context, resource);
    return { outcome, requests: client.requests - before, ms: performance.now() - started };
  };
  for (let i = 0; i < 300; i++) {
    const { outcome } = await pass();
    await playLiteLLMOperator(client, APPS, "noop");
    if (!outcome.requeue && outcome.performed.length === 0) break;
    await sleep(200);
  }
  said.length = 0;
  const served = await apiserverRequests(client.kubeconfig);
  const noop = [];
  for (let run = 0; run < NOOP_RUNS; run++) noop.push(await pass());
  // What the requests are, per pass, from the apiserver's own count (the plane's controllers and kwok add
  // their few: node leases, events).
  const rates = requestRates(served, await apiserverRequests(client.kubeconfig), NOOP_RUNS);
  const requests = [...new Set(noop.map((n) => n.requests))].join(", ");
  const ms = noop.map((n) => n.ms).sort((a, b) => a - b);
  // A pass reports each step that changed something: none here.
  const performed = said.length > 0 ? `${said.length} change(s): ${said.slice(0, 3).join("; ")}` : "nothing";
  process.stdout.write(
    `no-op pass over a Gateway (2 models, external database): ${requests} requests, ${percentile(ms, 50).toFixed(1)} ms median, changed ${performed}\n`,
  );
  for (const rate of rates) process.stdout.write(`  ${rate.perSecond.toFixed(1)} × ${rate.what}\n`);
}

/**
 * 1b. The same Gateway as a Pulumi preview judges it, in place as declared (providers/pulumi/in-place.ts):
 * the preview phase of a no-op `pulumi up`; its update phase calls no provider (the dynamic resource's
 * inputs are unchanged), so this is all a no-op `pulumi up` asks of the apiserver for it.
 */
async function measurePreviewNoop(client: KubeClient, kubeconfig: string): Promise<void> {
  const module = gatewayModule();
  const declared = { name: "noop", namespace: APPS, spec: NOOP_SPEC };
  const served = await apiserverRequests(client.kubeconfig);
  const judged: boolean[] = [];
  const ms: number[] = [];
  for (let run = 0; run < NOOP_RUNS; run++) {
    const started = performance.now();
    judged.push(await inPlace(module, kubeconfig, declared));
    ms.push(performance.now() - started);
  }
  // Also counted by the apiserver: the bench's own reading of /metrics (a GET of no resource) and the
  // plane's background (leases, events), listed below.
  const rates = requestRates(served, await apiserverRequests(client.kubeconfig), NOOP_RUNS);
  const own = rates
    .filter((rate) => rate.what.includes(module.definition.plural))
    .reduce((sum, rate) => sum + rate.perSecond, 0);
  process.stdout.write(
    `the same Gateway in a Pulumi preview (no-op \`pulumi up\`): ${own} request(s) per judgement, in place: ${[...new Set(judged)].join(", ")}, ${percentile(
      ms.sort((a, b) => a - b),
      50,
    ).toFixed(1)} ms median; by the apiserver, per judgement:\n`,
  );
  for (const rate of rates) process.stdout.write(`  ${rate.perSecond.toFixed(1)} × ${rate.what}\n`);
}

/** How long a pass brought by an annotation is given to end (it ends in tens of milliseconds). */
const PASS_WINDOW_MS = 1_000;

/** The operator's requests, over the bench's PASS_WINDOW_MS windows, until a window has none. */
async function untilQuiet(operatorClient: KubeClient): Promise<void> {
  for (let i = 0; i < 60; i++) {
    const before = operatorClient.requests;
    await sleep(PASS_WINDOW_MS);
    if (operatorClient.requests === before) return;
  }
  throw new Error("the operator never went quiet");
}

/** 2. The no-op Gateway's passes through the operator, each brought by an annotation changed on it. */
async function measureOperatorNoop(client: KubeClient, operatorClient: KubeClient): Promise<void> {
  await untilQuiet(operatorClient);
  const served = await apiserverRequests(client.kubeconfig);
  const counts: number[] = [];
  for (let run = 0; run < NOOP_RUNS; run++) {
    const before = operatorClient.requests;
    // An annotation is among what a pass decides from (NaviqueOperator's decidingSignature): one pass.
    await client.custom.patchNamespacedCustomObject({
      group: "core.navique.com",
      version: "v1alpha1",
      plural: "gateways",
      namespace: APPS,
      name: "noop",
      body: [{ op: "add", path: "/metadata/annotations", value: { "bench.navique.com/run": String(run) } }],
    });
    await sleep(PASS_WINDOW_MS);
    counts.push(operatorClient.requests - before);
  }
  const rates = requestRates(served, await apiserverRequests(client.kubeconfig), NOOP_RUNS);
  // A window may also hold the operator's retries, every 5 s, of its watches of kinds this plane does not
  // serve (CNPG's, the Redis operator's… without their CRDs): the fewest is the pass alone.
  const windows = [...new Set(counts)]
    .sort((a, b) => a - b)
    .map((n) => `${n} ×${counts.filter((c) => c === n).length}`);
  process.stdout.write(
    `no-op pass over the same Gateway through the operator: ${Math.min(...counts)} requests (its client's count; ${NOOP_RUNS} windows of ${PASS_WINDOW_MS} ms: ${windows.join(", ")}, more where a window held the retries of the watches of kinds not served here); by the apiserver, per pass (the bench's PATCH of the annotation included):\n`,
  );
  for (const rate of rates) process.stdout.write(`  ${rate.perSecond.toFixed(1)} × ${rate.what}\n`);
}

const NAMES = Array.from({ length: GATEWAYS }, (_, i) => `gw-${i}`);

/** Every Gateway of the re-wiring measurement, as stored. */
async function gateways(client: KubeClient) {
  const list = (await client.custom.listNamespacedCustomObject({
    group: "core.navique.com",
    version: "v1alpha1",
    plural: "gateways",
    namespace: APPS,
  })) as { items: { metadata: { name: string }; status?: { conditions?: never[] } }[] };
  return list.items.filter((g) => NAMES.includes(g.metadata.name));
}

/** Plays CNPG's status of the shared cluster. */
async function playCluster(client: KubeClient, ready: boolean): Promise<void> {
  const status = ready ? "True" : "False";
  await client.custom.patchNamespacedCustomObjectStatus({
    ...CNPG_CLUSTER,
    namespace: DATA,
    name: "shared",
    body: [
      {
        op: "add",
        path: "/status",
        value: {
          phase: ready ? "Cluster in healthy state" : "Waiting for the instances to become active",
          conditions: [{ type: "Ready", status, reason: ready ? "ClusterIsReady" : "ClusterIsNotReady", message: "" }],
        },
      },
    ],
  });
}

/** The Gateways made Ready by the operator, its controllers played meanwhile; says how long it took. */
async function untilAllReady(client: KubeClient): Promise<void> {
  const started = performance.now();
  for (;;) {
    if (await readCnpgCluster(client, DATA, "shared")) await playCnpgClusterReady(client, DATA, "shared");
    for (const name of NAMES) await playLiteLLMOperator(client, APPS, name);
    const ready = (await gateways(client)).filter((g) => condition(g as never, "Ready")?.status === "True");
    if (ready.length === GATEWAYS) break;
    if (performance.now() - started > 300_000) throw new Error(`only ${ready.length} of ${GATEWAYS} Gateways Ready`);
    await sleep(200);
  }
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  process.stdout.write(`${GATEWAYS} Gateways auto-wired (a claim each) Ready through the operator in ${seconds} s\n`);
}

/** The cluster played Ready or not; how long until each Gateway's DependenciesReady says so. */
async function timeUntilSeen(client: KubeClient, ready: boolean): Promise<{ latencies: number[]; missed: number }> {
  const status = ready ? "True" : "False";
  const changed = performance.now();
  await playCluster(client, ready);
  const latencies: number[] = [];
  const pending = new Set(NAMES);
  while (pending.size > 0 && performance.now() - changed < 30_000) {
    const seen = (await gateways(client)).filter(
      (g) => pending.has(g.metadata.name) && condition(g as never, "DependenciesReady")?.status === status,
    );
    for (const g of seen) {
      latencies.push(performance.now() - changed);
      pending.delete(g.metadata.name);
    }
    if (pending.size > 0) await sleep(POLL_MS);
  }
  return { latencies, missed: pending.size };
}

/** 3. The Gateways auto-wired through the running operator, then the shared cluster flipped, timed. */
async function measureRewire(client: KubeClient): Promise<void> {
  await createResource(client, "PostgresCluster", DATA, "shared", {});
  await createReferenceGrant(client, DATA, "gateways", {
    from: [{ group: "core.navique.com", kind: "Gateway", namespace: APPS }],
    to: [{ group: "core.navique.com", kind: "PostgresCluster", name: "shared" }],
  });
  for (const name of NAMES)
    await createResource(client, "Gateway", APPS, name, {
      database: { mode: "postgresCluster", postgresClusterRef: { name: "shared", namespace: DATA } },
    });
  await untilAllReady(client);
  const latencies: number[] = [];
  let missed = 0;
  for (let run = 0; run < RUNS; run++) {
    for (const ready of [false, true]) {
      const timed = await timeUntilSeen(client, ready);
      latencies.push(...timed.latencies);
      missed += timed.missed;
    }
  }
  const sorted = latencies.sort((a, b) => a - b);
  const cell = (v: number) => `${v.toFixed(0)} ms`;
  process.stdout.write(
    `re-wire after the PostgresCluster changed (its CNPG Cluster Ready and not), ${GATEWAYS} Gateways x ${RUNS * 2} changes: n ${sorted.length}, p50 ${cell(percentile(sorted, 50))}, p99 ${cell(percentile(sorted, 99))}, max ${cell(sorted.at(-1) ?? Number.NaN)}, not within 30 s ${missed}\n`,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
