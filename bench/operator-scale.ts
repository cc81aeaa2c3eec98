/**
 * The operator at scale: runs `navique operator` as users do (the built package, dist/, in its own
 * process) and samples its memory (VmRSS) and CPU time (utime + stime), children included, every second,
 * through four phases:
 *
 *   1. idle: no resource of the product in the cluster, 30 s;
 *   2. load: N PostgresClusters in external mode (N = 1,000 by default; with --mixed PostgresClusters,
 *      RedisInstances and MeilisearchInstances in turn, all external), each with its connection Secret,
 *      created in batches in a namespace of their own, and the time until the operator has written a
 *      status on every one — Ready, or refused by the instance cap (under the Community edition 2 are
 *      admitted and the others refused) — as the reconcile throughput;
 *   3. steady state: two resyncs (2 x 30 s, plus a margin) with nothing changing;
 *   4. clean-up: the namespace deleted (the operator finalizes every PostgresCluster) and waited for.
 *
 * and prints a table beside the goals of issue 9. The operator runs with the NODE_OPTIONS of its
 * container (OPERATOR_NODE_OPTIONS, lib/api/operator-process.ts). With --cpu-prof the operator runs under
 * `node --cpu-prof` and the steady state's samples are summarised: where the time goes.
 *
 * It builds nothing: run `npm run build` first. Without dist/navique.js (the bundled CLI the package's
 * bin runs; ADR 0018), or with --tsx, the operator runs from the sources through tsx, and the output says so. By default it starts a control plane of its
 * own (the local plane's toolchain, plane name `bench-operator-scale`) and stops it at the end
 * (--keep-plane keeps it for the next run): a thousand PostgresClusters on the shared local plane would
 * count against the cluster-wide caps of the tests running there. --kubeconfig PATH uses that cluster
 * instead. It asserts nothing and is not part of `npm run bench` (it takes about ten minutes):
 *
 *   npm run build && npx tsx bench/operator-scale.ts [--count N] [--cpu-prof] [--tsx] [--kubeconfig PATH]
 *     [--resync SECONDS] [--idle SECONDS] [--keep-plane] [--mixed] [--licensed]   (N also from NAVIQUE_BENCH_COUNT)
 *
 * --licensed applies a licence signed by a key made for the run (test/support/licence.ts), admitting every
 * resource, and has the operator trust that key (--trust): every resource is then Ready and reconciled in
 * full at each resync, instead of the Community edition's 2 admitted and the rest passed over.
 */
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { parseArgs } from "node:util";
import { API_GROUP, API_VERSION } from "../lib/api/group.js";
import { OPERATOR_NODE_OPTIONS } from "../lib/api/operator-process.js";
import { ensureNaviqueCrds } from "../lib/apply/navique-crds.js";
import { KubeClient } from "../lib/cluster/kube-client.js";
import { MEILISEARCH_INSTANCE_PLURAL } from "../lib/kinds/meilisearch-instance/schema.js";
import { POSTGRES_CLUSTER_PLURAL } from "../lib/kinds/postgres-cluster/schema.js";
import { REDIS_INSTANCE_PLURAL } from "../lib/kinds/redis-instance/schema.js";
import type { CappedKind } from "../lib/licence/entitlements.js";
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
import { summariseCpuProfile } from "./cpu-profile.js";
import { deleteNamespaceAndWait } from "./namespace.js";
import {
  inBatches,
  operatorCommand,
  type PhaseFigures,
  type RunningOperator,
  Sampler,
  startOperator,
  stopOperator,
} from "./operator-run.js";

const NAMESPACE = "bench-operator-scale";
const PLANE_NAME = "bench-operator-scale";
const IN_FLIGHT = 20;
const STATUS_TIMEOUT_MS = 30 * 60_000;
const CLEANUP_TIMEOUT_MS = 20 * 60_000;
const GOALS = {
  idleRssMiB: 128,
  steadyRssMiB: 200,
  steadyCpuPercent: 5,
};

const { values: flags } = parseArgs({
  options: {
    count: { type: "string" },
    kubeconfig: { type: "string" },
    resync: { type: "string", default: "30" },
    idle: { type: "string", default: "30" },
    "cpu-prof": { type: "boolean", default: false },
    tsx: { type: "boolean", default: false },
    "keep-plane": { type: "boolean", default: false },
    mixed: { type: "boolean", default: false },
    licensed: { type: "boolean", default: false },
  },
});
const COUNT = Number(flags.count ?? process.env.NAVIQUE_BENCH_COUNT ?? 1_000);

/** The kinds created, in turn: PostgresClusters only, or with --mixed every datastore kind in external mode. */
const KINDS: readonly { readonly kind: CappedKind; readonly plural: string; readonly prefix: string }[] = flags.mixed
  ? [
      { kind: "PostgresCluster", plural: POSTGRES_CLUSTER_PLURAL, prefix: "pg" },
      { kind: "RedisInstance", plural: REDIS_INSTANCE_PLURAL, prefix: "redis" },
      { kind: "MeilisearchInstance", plural: MEILISEARCH_INSTANCE_PLURAL, prefix: "search" },
    ]
  : [{ kind: "PostgresCluster", plural: POSTGRES_CLUSTER_PLURAL, prefix: "pg" }];
const WHAT = KINDS.map((k) => k.kind).join(", ");
const RESYNC_S = Number(flags.resync);
const IDLE_S = Number(flags.idle);

async function createResources(client: KubeClient): Promise<void> {
  await client.core.createNamespace({ body: { metadata: { name: NAMESPACE } } });
  await inBatches(COUNT, IN_FLIGHT, async (index) => {
    const { kind, plural, prefix } = KINDS[index % KINDS.length] as (typeof KINDS)[number];
    const name = `${prefix}-${String(index).padStart(4, "0")}`;
    await client.core.createNamespacedSecret({
      namespace: NAMESPACE,
      body: {
        metadata: { name: `${name}-connection` },
        stringData: {
          host: `${name}.db.example`,
          port: "5432",
          username: "app",
          password: `bench-only-${index}`,
        },
      },
    });
    await client.custom.createNamespacedCustomObject({
      group: API_GROUP,
      version: API_VERSION,
      plural,
      namespace: NAMESPACE,
      body: {
        apiVersion: `${API_GROUP}/${API_VERSION}`,
        kind,
        metadata: { name },
        spec: { mode: "external", external: { connectionSecretRef: { name: `${name}-connection` } } },
      },
    });
  });
}

type Conditions = { type: string; status: string; reason: string }[];

/** Counts of the namespace's resources by what the operator wrote on them. */
async function statusCounts(client: KubeClient): Promise<{ ready: number; refused: number; other: number }> {
  const lists = (await Promise.all(
    KINDS.map((k) =>
      client.custom.listNamespacedCustomObject({
        group: API_GROUP,
        version: API_VERSION,
        plural: k.plural,
        namespace: NAMESPACE,
      }),
    ),
  )) as { items: { status?: { conditions?: Conditions } }[] }[];
  let ready = 0;
  let refused = 0;
  let other = 0;
  for (const item of lists.flatMap((list) => list.items)) {
    const conditions = item.status?.conditions ?? [];
    if (conditions.some((c) => c.type === "Ready" && c.status === "True")) ready++;
    else if (
      conditions.some((c) => c.type === "Licensed" && c.status === "False" && c.reason === "InstanceCapExceeded")
    )
      refused++;
    else other++;
  }
  return { ready, refused, other };
}

const progress = (line: string) => process.stderr.write(`[operator-scale] ${line}\n`);
const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);
const fixed = (value: number, digits = 1) => value.toFixed(digits);

function printTable(phases: readonly PhaseFigures[]): void {
  const columns = ["phase", "seconds", "CPU mean % of a core", "CPU peak %", "RSS max MiB", "RSS end MiB"];
  const rows = phases.map((p) => [
    p.name,
    fixed(p.seconds, 0),
    fixed(p.meanCpuPercent),
    fixed(p.peakCpuPercent),
    fixed(p.maxRssMiB),
    fixed(p.endRssMiB),
  ]);
  const widths = columns.map((c, i) => Math.max(c.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: readonly string[]) => cells.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join("  ");
  process.stdout.write(`${line(columns)}\n${line(widths.map((w) => "-".repeat(w)))}\n`);
  for (const row of rows) process.stdout.write(`${line(row)}\n`);
}

async function main(): Promise<void> {
  const plane = flags.kubeconfig ? undefined : new LocalControlPlane({ name: PLANE_NAME });
  try {
    const kubeconfig = flags.kubeconfig ?? (await plane?.ensureRunning())?.kubeconfig ?? "";
    await run(kubeconfig, plane ? `plane ${PLANE_NAME} (the bench's own)` : kubeconfig);
  } finally {
    operator?.child.kill("SIGKILL");
    if (plane && !flags["keep-plane"]) await plane.stop();
  }
}

/** The operator process while it runs, so that a failure anywhere still ends it. */
let operator: RunningOperator | undefined;

interface LoadFigures {
  readonly createdMs: number;
  readonly statusedMs: number;
  readonly counts: { readonly ready: number; readonly refused: number; readonly other: number };
}

/** Creates the resources, then waits until the operator has written a status on every one. */
async function load(client: KubeClient): Promise<LoadFigures> {
  const from = Date.now();
  progress(`creating ${COUNT} Secrets and resources (${WHAT})`);
  await createResources(client);
  const createdMs = Date.now() - from;
  progress(`created in ${fixed(createdMs / 1000)} s; waiting for a status on each`);
  let counts = await statusCounts(client);
  let reported = Date.now();
  while (counts.ready + counts.refused < COUNT && Date.now() - from < STATUS_TIMEOUT_MS) {
    await sleep(2_000);
    counts = await statusCounts(client);
    if (Date.now() - reported >= 30_000) {
      reported = Date.now();
      progress(`${counts.ready} Ready, ${counts.refused} refused, ${counts.other} without either yet`);
    }
  }
  return { createdMs, statusedMs: Date.now() - from, counts };
}

/** Deletes the namespace (the operator finalizes every PostgresCluster in it) and waits, within a limit. */
async function cleanUp(client: KubeClient): Promise<string> {
  const from = Date.now();
  progress("deleting the namespace");
  const gone = await Promise.race([
    deleteNamespaceAndWait(client, NAMESPACE).then(() => true),
    sleep(CLEANUP_TIMEOUT_MS).then(() => false),
  ]);
  return gone
    ? `namespace gone after ${fixed((Date.now() - from) / 1000)} s`
    : `namespace still there after ${CLEANUP_TIMEOUT_MS / 60_000} min`;
}

function printFigures(
  how: string,
  phases: readonly PhaseFigures[],
  figures: LoadFigures,
  cleanup: string,
  exit: string,
) {
  const { createdMs, statusedMs, counts } = figures;
  const idle = phases[0] as PhaseFigures;
  const steady = phases[2] as PhaseFigures;
  const verdict = (ok: boolean) => (ok ? "met" : "MISSED");
  const underTsx = how.startsWith("the built") ? "" : " (measured under tsx, not the built package)";
  const gaveUp = counts.ready + counts.refused < COUNT ? ` (gave up after ${STATUS_TIMEOUT_MS / 60_000} min)` : "";
  process.stdout.write("\n");
  printTable(phases);
  process.stdout.write(
    [
      "",
      `created ${COUNT} Secrets + ${COUNT} resources (${WHAT}) in ${fixed(createdMs / 1000)} s (${IN_FLIGHT} requests in flight)`,
      `statuses: ${counts.ready} Ready, ${counts.refused} refused by the cap, ${counts.other} other, ${fixed(statusedMs / 1000)} s after creation began${gaveUp}`,
      `reconcile throughput: ${fixed(COUNT / (statusedMs / 1000), 2)} resources/s (from the first create to the last status)`,
      `clean-up: ${cleanup}`,
      `operator exit: ${exit}`,
      "",
      "goals (issue 9):",
      `  idle RSS ≤ ${GOALS.idleRssMiB} MiB from the built package: ${fixed(idle.maxRssMiB)} MiB — ${verdict(idle.maxRssMiB <= GOALS.idleRssMiB)}${underTsx}`,
      `  steady-state RSS ≤ ${GOALS.steadyRssMiB} MiB with ${COUNT} resources: ${fixed(steady.maxRssMiB)} MiB — ${verdict(steady.maxRssMiB <= GOALS.steadyRssMiB)}`,
      `  steady-state CPU ≤ ${GOALS.steadyCpuPercent}% of a core: ${fixed(steady.meanCpuPercent)}% — ${verdict(steady.meanCpuPercent <= GOALS.steadyCpuPercent)}`,
      "",
    ].join("\n"),
  );
}

function printProfile(profileDir: string, fromUs: number, toUs: number): void {
  const profile = existsSync(profileDir) ? readdirSync(profileDir).find((f) => f.endsWith(".cpuprofile")) : undefined;
  if (!profile) {
    process.stdout.write(`no CPU profile was written in ${profileDir} (the operator did not exit cleanly)\n`);
    return;
  }
  const summary = summariseCpuProfile(join(profileDir, profile), fromUs, toUs);
  const window = summary.windowed ? "" : " — no sample in the window: the whole run";
  process.stdout.write(
    `CPU profile of the steady state (${join(profileDir, profile)}): ${fixed(summary.totalMs / 1000)} s sampled${window}\n`,
  );
  process.stdout.write("  by area (self time):\n");
  for (const a of summary.areas) process.stdout.write(`    ${fixed(a.ms, 0).padStart(7)} ms  ${a.frame}\n`);
  process.stdout.write("  by self time:\n");
  for (const f of summary.self) process.stdout.write(`    ${fixed(f.ms, 0).padStart(7)} ms  ${f.frame}\n`);
  process.stdout.write("  the project's functions, by inclusive time:\n");
  for (const f of summary.inclusive) process.stdout.write(`    ${fixed(f.ms, 0).padStart(7)} ms  ${f.frame}\n`);
}

async function run(kubeconfig: string, cluster: string): Promise<void> {
  const out = mkdtempSync(join(tmpdir(), "navique-operator-scale-"));
  const client = KubeClient.fromFile(kubeconfig);
  await ensureNaviqueCrds(client);
  await deleteNamespaceAndWait(client, NAMESPACE);

  const profileDir = flags["cpu-prof"] ? join(out, "profile") : undefined;
  // --licensed: every resource admitted, so that every one is reconciled in full at each resync.
  const trustFile = flags.licensed ? join(out, "test-vendor.pem") : undefined;
  if (trustFile) {
    writeFileSync(trustFile, TEST_TRUSTED_KEYS.get(TEST_KEY_ID) ?? "");
    await applyLicence(client, testLicenceToken({ caps: Object.fromEntries(KINDS.map((k) => [k.kind, COUNT])) }));
  } else {
    await removeLicence(client);
  }
  const operatorArgs = ["--kubeconfig", kubeconfig, "--resync", String(RESYNC_S)];
  if (trustFile) operatorArgs.push("--trust", `${TEST_KEY_ID}=${trustFile}`);
  // External mode installs nothing; a local chart mirror all the same, so that nothing could reach the internet.
  operatorArgs.push("--chart-source", `dir:${join(process.cwd(), "test", "fixtures", "charts")}`);
  // The local plane's helm, whatever is on PATH: external mode installs nothing, but the operator wants one.
  operatorArgs.push("--helm", (await toolchainPaths()).helm);
  const { args, how } = operatorCommand(operatorArgs, { tsx: flags.tsx, profileDir });
  process.stdout.write(
    `operator from ${how}, NODE_OPTIONS ${OPERATOR_NODE_OPTIONS} (as its container runs); cluster: ${cluster}; ${COUNT} resources (${WHAT}); ${flags.licensed ? "a test licence admitting them all" : "the Community edition"}; resync ${RESYNC_S} s; output in ${out}\n`,
  );
  operator = await startOperator(args, join(out, "operator.log"));
  const sampler = new Sampler(operator.child.pid ?? 0);
  sampler.start();
  const phases: PhaseFigures[] = [];

  const idleFrom = Date.now();
  progress(`idle for ${IDLE_S} s`);
  await sleep(IDLE_S * 1000);
  phases.push(sampler.phase("idle (no resources)", idleFrom, Date.now()));

  const loadFrom = Date.now();
  const figures = await load(client);
  phases.push(sampler.phase(`load (create ${COUNT}, until all have a status)`, loadFrom, Date.now()));

  const steadyFrom = Date.now();
  const steadyFromUs = monotonicUs();
  const requestsBefore = await apiserverRequests(client.kubeconfig);
  progress(`steady state for ${2 * RESYNC_S + 5} s`);
  await sleep((2 * RESYNC_S + 5) * 1000);
  const requestsAfter = await apiserverRequests(client.kubeconfig);
  const steadyToUs = monotonicUs();
  phases.push(sampler.phase(`steady state (2 resyncs, ${COUNT} resources)`, steadyFrom, Date.now()));
  const rates = requestRates(requestsBefore, requestsAfter, (Date.now() - steadyFrom) / 1000);

  const cleanupFrom = Date.now();
  const cleanup = await cleanUp(client);
  // The licence the run applied goes with it: another cluster (--kubeconfig) keeps none of the run's.
  if (trustFile) await removeLicence(client);
  phases.push(sampler.phase("clean-up (namespace deleted, finalized)", cleanupFrom, Date.now()));
  sampler.stop();
  const exit = await stopOperator(operator);
  operator = undefined;

  printFigures(how, phases, figures, cleanup, exit);
  process.stdout.write(
    "apiserver requests served per second in the steady state (every client; the bench sends none then):\n",
  );
  for (const rate of rates.slice(0, 12))
    process.stdout.write(`  ${fixed(rate.perSecond, 2).padStart(8)}  ${rate.what}\n`);
  process.stdout.write("\n");
  if (profileDir) printProfile(profileDir, steadyFromUs, steadyToUs);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
