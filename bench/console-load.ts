/**
 * The console under load, as the operator chart runs it: two `navique operator` processes (the built
 * package when there is one; bench/operator-run.ts), leader election on, each serving the console, on a
 * control plane of the bench's own with N PostgresClusters (external mode, under a test licence admitting
 * them all), and a reader's ServiceAccount token bound to a role granting what the console asks
 * (CONSOLE_ACCESS), as the chart's viewer ClusterRole does.
 *
 * Three windows of D seconds, one after the other: no reader (the two operators' own baseline), then C
 * readers fetching every page of the console in turn with the bearer token from the leader, then from the
 * standby. Each prints the pages served per second, their latency (median, 95th percentile, max — each page
 * once more per line), each replica's CPU (mean % of a core) and RSS, and the apiserver's requests per
 * second during the window, all clients together (reviews included): the cost the console adds is the
 * difference with the baseline. --beside-load runs `stress-ng --cpu 2` for the whole run (apt-get install
 * stress-ng) and says so. Asserts nothing; not part of `npm run bench` (about four minutes):
 *
 *   npm run build && npx tsx bench/console-load.ts [--count N] [--clients C] [--seconds D] [--beside-load]
 *     [--kubeconfig PATH] [--keep-plane] [--tsx]
 *
 * The licence, the ManagementPlane and the leader Lease are cluster-wide: on --kubeconfig, run it on a
 * cluster nothing else uses; the bench removes what it made.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { parseArgs } from "node:util";
import { API_GROUP, API_VERSION } from "../lib/api/group.js";
import { ensureNaviqueCrds } from "../lib/apply/navique-crds.js";
import { KubeClient } from "../lib/cluster/kube-client.js";
import { CONSOLE_ACCESS } from "../lib/console/console-auth.js";
import { PAGES } from "../lib/console/pages/page-layout.js";
import { MANAGEMENT_PLANE_KIND, MANAGEMENT_PLANE_NAME } from "../lib/kinds/management-plane/schema.js";
import { POSTGRES_CLUSTER_PLURAL } from "../lib/kinds/postgres-cluster/schema.js";
import { LocalControlPlane } from "../lib/local-plane/plane.js";
import { toolchainPaths } from "../lib/local-plane/toolchain-paths.js";
import {
  applyLicence,
  removeLicence,
  TEST_KEY_ID,
  TEST_TRUSTED_KEYS,
  testLicenceToken,
} from "../test/support/licence.js";
import { apiserverRequests, requestRates } from "./apiserver-requests.js";
import { deleteNamespaceAndWait } from "./namespace.js";
import {
  inBatches,
  operatorCommand,
  type PhaseFigures,
  type RunningOperator,
  Sampler,
  STARTED_OR_STANDING_BY,
  startOperator,
  stopOperator,
} from "./operator-run.js";

const { values: flags } = parseArgs({
  options: {
    count: { type: "string", default: "500" },
    clients: { type: "string", default: "4" },
    seconds: { type: "string", default: "30" },
    "beside-load": { type: "boolean", default: false },
    kubeconfig: { type: "string" },
    "keep-plane": { type: "boolean", default: false },
    tsx: { type: "boolean", default: false },
  },
});
const COUNT = Number(flags.count);
const CLIENTS = Number(flags.clients);
const WINDOW_S = Number(flags.seconds);
const NAMESPACE = "bench-console";
const PLANE_NAME = "bench-console";
const READER = "console-reader";
const ROLE = "bench-console-viewer";
const IN_FLIGHT = 20;
const STATUS_TIMEOUT_MS = 15 * 60_000;

const progress = (line: string) => process.stderr.write(`[console-load] ${line}\n`);
const fixed = (value: number, digits = 1) => value.toFixed(digits);

/** One replica as the bench drives it: the process, its sampler and where it serves the console and metrics. */
interface Replica {
  readonly operator: RunningOperator;
  readonly sampler: Sampler;
  readonly console: string;
  readonly metrics: string;
}

/** What the readers saw in one window: every page's latencies in ms, and the failures by status. */
interface Readings {
  readonly byPage: Map<string, number[]>;
  readonly failures: Map<string, number>;
}

/** The q-quantile of sorted values (nearest rank). */
function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] as number;
}

/** What a replica said once, from its output: where it serves something. */
async function said(operator: RunningOperator, pattern: RegExp): Promise<string> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const found = pattern.exec(operator.output())?.[1];
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`the operator did not say ${pattern}:\n${operator.output()}`);
    await sleep(200);
  }
}

/** Whether a replica holds the leader Lease now: its navique_leader gauge. */
async function leads(replica: Replica): Promise<boolean> {
  const text = await (await fetch(replica.metrics)).text();
  return /^navique_leader 1$/m.test(text);
}

/** C readers fetching every page in turn from `base` for `seconds`, each request timed. */
async function read(base: string, token: string, seconds: number): Promise<Readings> {
  const byPage = new Map<string, number[]>(PAGES.map((p) => [p.path, []]));
  const failures = new Map<string, number>();
  const until = performance.now() + seconds * 1000;
  const reader = async (offset: number) => {
    for (let i = offset; performance.now() < until; i++) {
      const page = PAGES[i % PAGES.length] as (typeof PAGES)[number];
      const from = performance.now();
      const response = await fetch(`${base}${page.path}`, { headers: { Authorization: `Bearer ${token}` } });
      await response.text();
      const ms = performance.now() - from;
      if (response.status === 200) byPage.get(page.path)?.push(ms);
      else failures.set(String(response.status), (failures.get(String(response.status)) ?? 0) + 1);
    }
  };
  await Promise.all(Array.from({ length: CLIENTS }, (_, i) => reader(i)));
  return { byPage, failures };
}

async function createResources(client: KubeClient): Promise<void> {
  await client.core.createNamespace({ body: { metadata: { name: NAMESPACE } } });
  await inBatches(COUNT, IN_FLIGHT, async (index) => {
    const name = `pg-${String(index).padStart(4, "0")}`;
    await client.core.createNamespacedSecret({
      namespace: NAMESPACE,
      body: {
        metadata: { name: `${name}-connection` },
        stringData: { host: `${name}.db.example`, port: "5432", username: "app", password: `bench-only-${index}` },
      },
    });
    await client.custom.createNamespacedCustomObject({
      group: API_GROUP,
      version: API_VERSION,
      plural: POSTGRES_CLUSTER_PLURAL,
      namespace: NAMESPACE,
      body: {
        apiVersion: `${API_GROUP}/${API_VERSION}`,
        kind: "PostgresCluster",
        metadata: { name },
        spec: { mode: "external", external: { connectionSecretRef: { name: `${name}-connection` } } },
      },
    });
  });
}

async function readyCount(client: KubeClient): Promise<number> {
  const list = (await client.custom.listNamespacedCustomObject({
    group: API_GROUP,
    version: API_VERSION,
    plural: POSTGRES_CLUSTER_PLURAL,
    namespace: NAMESPACE,
  })) as { items: { status?: { conditions?: { type: string; status: string }[] } }[] };
  return list.items.filter((i) => i.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True")).length;
}

/** The reader: a ServiceAccount bound to a ClusterRole granting CONSOLE_ACCESS, and a token of it. */
async function readerToken(client: KubeClient): Promise<string> {
  await client.core.createNamespacedServiceAccount({ namespace: NAMESPACE, body: { metadata: { name: READER } } });
  const role = {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "ClusterRole",
    metadata: { name: ROLE },
    rules: [
      {
        apiGroups: [CONSOLE_ACCESS.group],
        resources: [CONSOLE_ACCESS.resource],
        resourceNames: [CONSOLE_ACCESS.name],
        verbs: [CONSOLE_ACCESS.verb],
      },
    ],
  };
  const binding = {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "ClusterRoleBinding",
    metadata: { name: ROLE },
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: ROLE },
    subjects: [{ kind: "ServiceAccount", name: READER, namespace: NAMESPACE }],
  };
  await client.apply(role, { fieldManager: "bench" });
  await client.apply(binding, { fieldManager: "bench" });
  const made = await client.core.createNamespacedServiceAccountToken({
    name: READER,
    namespace: NAMESPACE,
    body: { spec: { audiences: [], expirationSeconds: 3600 } },
  });
  return made.status?.token ?? "";
}

const MANAGEMENT_PLANE = {
  apiVersion: `${API_GROUP}/${API_VERSION}`,
  kind: MANAGEMENT_PLANE_KIND,
  metadata: { name: MANAGEMENT_PLANE_NAME },
};

/** The bench's own objects: its namespace (its resources finalized by a running operator), role and settings. */
async function removeBenchObjects(client: KubeClient): Promise<void> {
  for (const kind of ["ClusterRoleBinding", "ClusterRole"])
    await client.delete({ apiVersion: "rbac.authorization.k8s.io/v1", kind, metadata: { name: ROLE } });
  await client.delete(MANAGEMENT_PLANE);
  await deleteNamespaceAndWait(client, NAMESPACE);
}

interface Window {
  readonly name: string;
  readonly load: string;
  readonly readings: Readings | undefined;
  readonly replicas: readonly PhaseFigures[];
  readonly requestsPerSecond: number;
  readonly reviewsPerSecond: number;
}

/** One window: readers on `target` (none when undefined), the replicas sampled, the apiserver counted. */
async function measure(
  client: KubeClient,
  name: string,
  replicas: readonly Replica[],
  target: Replica | undefined,
  token: string,
): Promise<Window> {
  progress(`${name}: ${WINDOW_S} s`);
  const load = fixed(loadavg()[0] ?? 0, 2);
  const before = await apiserverRequests(client.kubeconfig);
  const from = Date.now();
  const readings = target ? await read(target.console, token, WINDOW_S) : await sleep(WINDOW_S * 1000);
  const to = Date.now();
  const rates = requestRates(before, await apiserverRequests(client.kubeconfig), (to - from) / 1000);
  const total = rates.reduce((sum, r) => sum + r.perSecond, 0);
  const reviews = rates
    .filter((r) => /tokenreviews|subjectaccessreviews/.test(r.what))
    .reduce((sum, r) => sum + r.perSecond, 0);
  return {
    name,
    load,
    readings: readings ?? undefined,
    replicas: replicas.map((r, i) => r.sampler.phase(`replica ${i + 1}`, from, to)),
    requestsPerSecond: total,
    reviewsPerSecond: reviews,
  };
}

function printWindow(window: Window): void {
  const lines = [`\n${window.name} (load average ${window.load} as it began)`];
  const { readings } = window;
  if (readings) {
    const all = [...readings.byPage.values()].flat().sort((a, b) => a - b);
    const failed = [...readings.failures].map(([status, n]) => `${n} × ${status}`).join(", ") || "none";
    lines.push(
      `  pages served: ${all.length} (${fixed(all.length / WINDOW_S)}/s, ${CLIENTS} readers), failed: ${failed}`,
      `  latency ms: median ${fixed(quantile(all, 0.5))}, p95 ${fixed(quantile(all, 0.95))}, max ${fixed(all[all.length - 1] ?? Number.NaN)}`,
    );
    for (const [path, values] of readings.byPage) {
      const sorted = [...values].sort((a, b) => a - b);
      lines.push(
        `    ${path.padEnd(14)} n ${String(sorted.length).padStart(5)}  median ${fixed(quantile(sorted, 0.5)).padStart(7)}  p95 ${fixed(quantile(sorted, 0.95)).padStart(7)}  max ${fixed(sorted[sorted.length - 1] ?? Number.NaN).padStart(7)}`,
      );
    }
  }
  for (const replica of window.replicas)
    lines.push(
      `  ${replica.name}: CPU mean ${fixed(replica.meanCpuPercent)}% of a core (peak ${fixed(replica.peakCpuPercent)}%), RSS max ${fixed(replica.maxRssMiB)} MiB`,
    );
  lines.push(
    `  apiserver: ${fixed(window.requestsPerSecond, 2)} requests/s, of them ${fixed(window.reviewsPerSecond, 2)}/s token and access reviews`,
  );
  process.stdout.write(`${lines.join("\n")}\n`);
}

let replicas: Replica[] = [];
let stress: ChildProcess | undefined;

async function run(kubeconfig: string, cluster: string): Promise<void> {
  const out = mkdtempSync(join(tmpdir(), "navique-console-load-"));
  const client = KubeClient.fromFile(kubeconfig);
  await ensureNaviqueCrds(client);
  const trustFile = join(out, "test-vendor.pem");
  writeFileSync(trustFile, TEST_TRUSTED_KEYS.get(TEST_KEY_ID) ?? "");
  await applyLicence(client, testLicenceToken({ caps: { PostgresCluster: COUNT } }));

  const operatorArgs = [
    "--kubeconfig",
    kubeconfig,
    "--trust",
    `${TEST_KEY_ID}=${trustFile}`,
    "--chart-source",
    `dir:${join(process.cwd(), "test", "fixtures", "charts")}`,
    "--leader-elect=true",
    "--metrics-bind-address=127.0.0.1:0",
    "--health-probe-bind-address=127.0.0.1:0",
    "--console-bind-address=127.0.0.1:0",
    // The local plane's helm: external mode installs nothing, but the operator wants one to start.
    "--helm",
    (await toolchainPaths()).helm,
  ];
  const { args, how } = operatorCommand(operatorArgs, { tsx: flags.tsx });
  for (const index of [1, 2]) {
    const operator = await startOperator(args, join(out, `operator-${index}.log`), STARTED_OR_STANDING_BY);
    const sampler = new Sampler(operator.child.pid ?? 0);
    sampler.start();
    const console = await said(operator, /serving the console on (\S+)/);
    const metrics = await said(operator, /serving metrics on (\S+)/);
    replicas.push({ operator, sampler, console, metrics });
  }
  // What a killed run left, finalized by the operators now running.
  await removeBenchObjects(client);
  // No page reloads itself: the readers ask as fast as they are answered.
  const settings = { ...MANAGEMENT_PLANE, spec: { enabled: true, refreshSeconds: 0 } };
  await client.apply(settings, { fieldManager: "bench" });
  progress(`creating ${COUNT} PostgresClusters (external) and their Secrets`);
  await createResources(client);
  const token = await readerToken(client);
  process.stdout.write(
    `two operators from ${how}, leader election on; cluster: ${cluster}; ${COUNT} PostgresClusters; ${CLIENTS} readers; windows of ${WINDOW_S} s${flags["beside-load"] ? "; beside stress-ng --cpu 2" : ""}; output in ${out}\n`,
  );

  const from = Date.now();
  for (let ready = await readyCount(client); ready < COUNT; ready = await readyCount(client)) {
    if (Date.now() - from > STATUS_TIMEOUT_MS) throw new Error(`only ${ready} of ${COUNT} Ready after 15 min`);
    await sleep(2_000);
  }
  progress(`${COUNT} Ready after ${fixed((Date.now() - from) / 1000)} s`);
  const leader = (await Promise.all(replicas.map(leads))).indexOf(true);
  if (leader < 0) throw new Error("no replica says it leads (navique_leader)");
  const standby = replicas[1 - leader] as Replica;

  if (flags["beside-load"]) {
    stress = spawn("stress-ng", ["--cpu", "2", "--quiet"], { stdio: "ignore" });
    progress("beside stress-ng --cpu 2");
    await sleep(5_000);
  }
  const windows = [
    await measure(client, "no reader (baseline)", replicas, undefined, token),
    await measure(client, `readers on the leader (replica ${leader + 1})`, replicas, replicas[leader], token),
    await measure(client, `readers on the standby (replica ${2 - leader})`, replicas, standby, token),
  ];
  for (const window of windows) printWindow(window);
}

/** Within a limit: a clean-up that cannot finish says so rather than holding the bench for ever. */
async function bounded(what: string, work: Promise<void>): Promise<void> {
  const done = await Promise.race([work.then(() => true), sleep(5 * 60_000).then(() => false)]);
  if (!done) progress(`${what} did not finish within 5 min: left as it is`);
}

async function main(): Promise<void> {
  if (flags["beside-load"] && spawnSync("stress-ng", ["--version"]).error)
    throw new Error("stress-ng is not on PATH: install it (apt-get install stress-ng) or leave out --beside-load");
  const plane = flags.kubeconfig ? undefined : new LocalControlPlane({ name: PLANE_NAME });
  const kubeconfig = flags.kubeconfig ?? (await plane?.ensureRunning())?.kubeconfig ?? "";
  let failure: unknown;
  try {
    await run(kubeconfig, plane ? `plane ${PLANE_NAME} (the bench's own)` : kubeconfig);
  } catch (error) {
    failure = error;
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  } finally {
    stress?.kill("SIGKILL");
    // While the operators run: they finalize the PostgresClusters, so that the namespace can go.
    const client = KubeClient.fromFile(kubeconfig);
    await bounded(
      "removing what the bench made",
      removeBenchObjects(client).then(() => removeLicence(client)),
    );
    for (const replica of replicas) {
      replica.sampler.stop();
      await stopOperator(replica.operator);
    }
    replicas = [];
    if (plane && !flags["keep-plane"]) await plane.stop();
  }
  if (failure) process.exit(1);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
