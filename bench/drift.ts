/**
 * Drift as users meet it: `navique operator` in its own process at its DEFAULT resync (30 s), one managed
 * PostgresCluster (a CNPG Cluster, a CNPG Database, a generated Secret) and one managed RedisInstance (a
 * Redis); each object the product emits is edited or deleted by hand, and each capability release
 * uninstalled by hand (`helm uninstall`), N times over, and the time until it is as the product made it
 * again is measured, polled every 20 ms. Prints p50 / p99 / max per case, the machine's load average
 * before and after; asserts nothing.
 *
 * For a release, three figures, from the moment `helm uninstall` returned: until the operator decided to
 * install it again (its installer's line `[<capability>] install …`), until the reinstall started (a new
 * release record, written once the installer's checks passed: helm template, a server-side dry run of
 * every rendered object, helm's own dry run) and until it is deployed again. CloudNativePG and the redis-operator cannot run here: the bench plays them, writing the Cluster
 * status CNPG writes and creating the StatefulSet the redis-operator creates (test/support/drift.ts).
 *
 * Runs on a control plane of its own (plane name `bench-drift`, the local plane's toolchain), stopped at
 * the end (--keep-plane keeps it for the next run); the operator runs from the sources through tsx.
 *
 * --operator-log PATH writes the operator's output there, each line with the bench's clock (ms) and each
 * disturbance marked, to see where the time of a slow correction went.
 *
 *   npx tsx bench/drift.ts [--runs N] [--keep-plane] [--operator-log PATH]
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createWriteStream } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { ensureNaviqueCrds } from "../lib/apply/navique-crds.js";
import { CERT_MANAGER } from "../lib/catalog/cert-manager.js";
import { CLOUDNATIVE_PG } from "../lib/catalog/cloudnative-pg.js";
import { REDIS_OPERATOR } from "../lib/catalog/redis-operator.js";
import { HelmCli } from "../lib/cluster/helm-cli.js";
import { KubeClient } from "../lib/cluster/kube-client.js";
import { LocalControlPlane } from "../lib/local-plane/plane.js";
import { toolchainPaths } from "../lib/local-plane/toolchain-paths.js";
import { condition } from "../test/support/cluster.js";
import {
  DRIFT_POSTGRES,
  DRIFT_REDIS,
  type DriftCase,
  emittedObjectCases,
  playControllers,
  releaseUninstalled,
  timeToCorrect,
} from "../test/support/drift.js";
import { createResource, readStoredResource } from "../test/support/resources.js";
import { deleteNamespaceAndWait } from "./namespace.js";

const { values } = parseArgs({
  options: {
    runs: { type: "string", default: "20" },
    "keep-plane": { type: "boolean", default: false },
    "operator-log": { type: "string" },
  },
});
const RUNS = Number(values.runs);
const NAMESPACE = "bench-drift";
const POLL_MS = 20;
/** Past two resyncs, a correction is counted as missing. */
const GIVE_UP_MS = 60_000;

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

function load(): string {
  return loadavg()
    .map((l) => l.toFixed(2))
    .join(" / ");
}

async function waitFor(what: string, probe: () => Promise<boolean>, timeoutMs = 180_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await probe().catch(() => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`timed out waiting for ${what}`);
}

function startOperator(kubeconfig: string, log: (line: string) => void): { child: ChildProcess } {
  const child = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      join(process.cwd(), "lib", "cli", "main.ts"),
      "operator",
      "--kubeconfig",
      kubeconfig,
      "--chart-source",
      `dir:${join(process.cwd(), "test", "fixtures", "charts")}`,
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  const lines = (chunk: Buffer) => {
    for (const line of chunk.toString().split("\n")) if (line) log(line);
  };
  child.stdout?.on("data", lines);
  child.stderr?.on("data", lines);
  return { child };
}

async function main(): Promise<void> {
  const plane = new LocalControlPlane({ name: "bench-drift" });
  const { kubeconfig } = await plane.ensureRunning();
  const client = KubeClient.fromFile(kubeconfig);
  const helm = new HelmCli({ binary: (await toolchainPaths()).helm, kubeconfig });
  await ensureNaviqueCrds(client);
  const logFile = values["operator-log"] ? createWriteStream(values["operator-log"]) : undefined;
  /** The operator's lines, with when they came: when it decided to reinstall a release. */
  const said: { at: number; line: string }[] = [];
  const log = (line: string) => {
    const at = performance.now();
    said.push({ at, line });
    logFile?.write(`${Math.round(at)} ${line}\n`);
  };
  const operator = startOperator(kubeconfig, log);
  // With the operator running: what a kept plane's earlier run left is finalized (its finalizers let go).
  await deleteNamespaceAndWait(client, NAMESPACE);
  await client.core.createNamespace({ body: { metadata: { name: NAMESPACE } } });
  const stopPlaying = playControllers(client, NAMESPACE, 100);
  const loadBefore = load();
  const ready = async (kind: string, name: string) =>
    condition(await readStoredResource(client, kind, NAMESPACE, name), "Ready")?.status === "True";
  const bothReady = () =>
    waitFor(
      "the PostgresCluster and the RedisInstance to be Ready",
      async () => (await ready("PostgresCluster", DRIFT_POSTGRES)) && (await ready("RedisInstance", DRIFT_REDIS)),
    );
  const times = new Map<string, number[]>();
  const missed = new Map<string, number>();
  const record = (name: string, ms: number | undefined) => {
    if (ms === undefined) missed.set(name, (missed.get(name) ?? 0) + 1);
    else times.set(name, [...(times.get(name) ?? []), ms]);
  };
  try {
    await createResource(client, "PostgresCluster", NAMESPACE, DRIFT_POSTGRES, {
      databases: [{ name: "app1" }],
      managed: { deletionPolicy: "Delete" },
    });
    await createResource(client, "RedisInstance", NAMESPACE, DRIFT_REDIS, { managed: { deletionPolicy: "Delete" } });
    await bothReady();
    const cases: { drift: DriftCase; capability?: string }[] = [
      ...emittedObjectCases(client, NAMESPACE).map((drift) => ({ drift })),
      ...[CLOUDNATIVE_PG, REDIS_OPERATOR, CERT_MANAGER].map((entry) => ({
        drift: releaseUninstalled(client, helm, entry),
        capability: entry.name,
      })),
    ];
    for (let run = 1; run <= RUNS; run++) {
      for (const { drift, capability } of cases) {
        log(`[bench] disturbing: ${drift.name}`);
        const disturbed = await drift.disturb();
        log(`[bench] disturbed at ${Math.round(disturbed.at)}: ${drift.name}`);
        if (capability) {
          // The installer's first line for it (`[cloudnative-pg] install …`): the operator has decided.
          const decided = async () =>
            said.some((s) => s.at >= disturbed.at && s.line.startsWith(`[${capability}] install `));
          record(
            `${drift.name}: reinstall decided`,
            await timeToCorrect(
              { at: disturbed.at, corrected: decided },
              { timeoutMs: GIVE_UP_MS, intervalMs: POLL_MS },
            ),
          );
        }
        if (disturbed.started) {
          record(
            `${drift.name}: reinstall started`,
            await timeToCorrect(
              { at: disturbed.at, corrected: disturbed.started },
              { timeoutMs: GIVE_UP_MS, intervalMs: POLL_MS },
            ),
          );
        }
        const label = disturbed.started ? `${drift.name}: deployed again` : drift.name;
        record(label, await timeToCorrect(disturbed, { timeoutMs: GIVE_UP_MS, intervalMs: POLL_MS }));
        await bothReady();
      }
      process.stderr.write(`[drift] run ${run}/${RUNS} done (load ${load()})\n`);
    }
  } finally {
    // Finalized by the operator before it stops, so that a kept plane holds nothing waiting on it.
    await deleteNamespaceAndWait(client, NAMESPACE);
    stopPlaying();
    operator.child.kill("SIGTERM");
    await new Promise((resolve) => operator.child.once("exit", resolve));
    logFile?.end();
    if (!values["keep-plane"]) await plane.stop();
  }
  const rows = [...times.entries()].map(([name, ms]) => {
    const sorted = [...ms].sort((a, b) => a - b);
    const cell = (value: number) => `${Math.round(value)} ms`;
    return `| ${name} | ${sorted.length} | ${cell(percentile(sorted, 50))} | ${cell(percentile(sorted, 99))} | ${cell(sorted.at(-1) ?? Number.NaN)} | ${missed.get(name) ?? 0} |`;
  });
  process.stdout.write(
    [
      `Drift corrected by \`navique operator\` at its default resync (30 s), ${RUNS} runs, polled every ${POLL_MS} ms`,
      `load average (1 / 5 / 15 min) before: ${loadBefore}, after: ${load()}`,
      "",
      "| disturbed | n | p50 | p99 | max | not corrected within 60 s |",
      "| --- | --- | --- | --- | --- | --- |",
      ...rows,
      "",
    ].join("\n"),
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
