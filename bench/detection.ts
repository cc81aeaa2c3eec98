/**
 * Detection cost: API requests and time per capability detection, on the local control plane, in every
 * state detection meets (test/support/detection-states.ts: nothing installed, our release, orphaned CRDs,
 * a release of the expected name without our marks, a controller matched by its labels, by its image),
 * for every catalog entry, on a cluster without noise and with 1,000 unrelated Secrets and 500 foreign
 * Helm release records. The states are set up with the fixture charts and the real helm of the
 * toolchain, under the capability lock the cluster suites share (it waits for them, and they for it).
 * Prints a table; asserts nothing (figures belong in docs/provenance.md, not in tests).
 *
 * In each state the noise is added and removed so that the detections alternate empty, noisy, noisy,
 * empty (BLOCK runs each, after a pause and WARMUP unrecorded ones): whatever else the machine runs at
 * the time weighs on both sides alike.
 * "requests" is the first detection of a state and then every later one (they differ when a release's
 * latest revision is read for the first time); "ms" is the median of the runs and "min" the fastest,
 * the least disturbed (the load average is printed with the table).
 *
 *   npx tsx bench/detection.ts
 */
import { loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import { observeCapability } from "../lib/capabilities/observe.js";
import { detectProvenance } from "../lib/capabilities/provenance.js";
import type { CapabilityEntry } from "../lib/catalog/capability.js";
import { HelmCli } from "../lib/cluster/helm-cli.js";
import { KubeClient } from "../lib/cluster/kube-client.js";
import { LocalControlPlane } from "../lib/local-plane/plane.js";
import { toolchainPaths } from "../lib/local-plane/toolchain-paths.js";
import { lockCapabilities, resetCapabilities } from "../test/support/capabilities.js";
import { DETECTION_ENTRIES, DETECTION_STATES, type DetectionStateContext } from "../test/support/detection-states.js";
import { deleteNamespaceAndWait } from "./namespace.js";

const BLOCK = 15;
/**
 * Before each block that follows writes: a pause for the apiserver to settle (helm installs, 1,500
 * creations or one deletion of them all keep it busy for seconds after they return, and the detections
 * right after them are slower whether the noise is there or not); before every block, unrecorded
 * detections.
 */
const SETTLE_AFTER_SETUP_MS = 15_000;
const SETTLE_AFTER_NOISE_MS = 15_000;
const WARMUP = 3;
const NOISE_NAMESPACE = "bench-detection-noise";
const FOREIGN_NAMESPACE = "bench-detection-foreign";
const UNRELATED_SECRETS = 1_000;
const FOREIGN_RELEASES = 500;
const BATCH = 50;

type Condition = "empty" | "noisy";

function geometricMean(values: readonly number[]): number {
  return Math.exp(values.reduce((sum, v) => sum + Math.log(v), 0) / values.length);
}

/** The detections of one entry in one state under one condition. */
class Samples {
  readonly took: number[] = [];
  readonly requests: number[] = [];
  readonly verdicts = new Set<string>();
  /** Requests of the first detection of the state, before any warm-up. */
  first = 0;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

async function detect(client: KubeClient, entry: CapabilityEntry, samples: Samples, runs: number): Promise<void> {
  for (let run = 0; run < runs; run++) {
    const before = client.requests;
    const started = performance.now();
    const observation = await observeCapability(client, entry);
    samples.took.push(performance.now() - started);
    samples.requests.push(client.requests - before);
    samples.verdicts.add(detectProvenance(entry, observation).state);
  }
}

async function inBatches(count: number, make: (i: number) => Promise<unknown>): Promise<void> {
  for (let start = 0; start < count; start += BATCH) {
    await Promise.all(Array.from({ length: Math.min(BATCH, count - start) }, (_, k) => make(start + k)));
  }
}

/** Adds or removes the noise: Secrets of a namespace of the bench's own, which stays. */
async function setNoise(client: KubeClient, present: boolean): Promise<void> {
  if (!present) {
    await client.core.deleteCollectionNamespacedSecret({ namespace: NOISE_NAMESPACE });
    while ((await client.core.listNamespacedSecret({ namespace: NOISE_NAMESPACE, limit: 1 })).items.length > 0)
      await new Promise((r) => setTimeout(r, 200));
    return;
  }
  await inBatches(UNRELATED_SECRETS, (i) =>
    client.core.createNamespacedSecret({
      namespace: NOISE_NAMESPACE,
      body: { metadata: { name: `unrelated-${i}` }, stringData: { value: `v${i}` } },
    }),
  );
  // Records shaped as helm stores releases (type, labels), for 500 releases that are not ours.
  await inBatches(FOREIGN_RELEASES, (i) =>
    client.core.createNamespacedSecret({
      namespace: NOISE_NAMESPACE,
      body: {
        metadata: {
          name: `sh.helm.release.v1.foreign-${i}.v1`,
          labels: { owner: "helm", name: `foreign-${i}`, status: "deployed", version: "1" },
        },
        type: "helm.sh/release.v1",
        stringData: { release: "H4sIAAAAAAAA/6quVkrLz1eyUoIBAAD//wMAQxFSqBAAAAA=" },
      },
    }),
  );
}

type Figures = Map<string, Record<Condition, Samples>>;
type StateSamples = Map<string, Record<Condition, Samples>>;

/** The requests of each entry's first detection in a state, before any warm-up. */
async function firstDetections(client: KubeClient, samples: StateSamples): Promise<void> {
  for (const entry of DETECTION_ENTRIES) {
    const before = client.requests;
    await observeCapability(client, entry);
    const of = samples.get(entry.name);
    if (of) of.empty.first = client.requests - before;
  }
}

/** One block: a pause, unrecorded detections, then BLOCK recorded ones per entry. */
async function block(client: KubeClient, samples: StateSamples, condition: Condition, settleMs: number) {
  await new Promise((r) => setTimeout(r, settleMs));
  for (const entry of DETECTION_ENTRIES) {
    const of = samples.get(entry.name);
    if (!of) continue;
    await detect(client, entry, new Samples(), WARMUP);
    await detect(client, entry, of[condition], BLOCK);
  }
}

/** Every state in turn, each entry detected BLOCK times empty, noisy, noisy, empty; the noise removed after. */
async function measureStates(context: DetectionStateContext): Promise<Figures> {
  const figures: Figures = new Map();
  for (const state of DETECTION_STATES) {
    await state.setUp(context);
    const samples: StateSamples = new Map(
      DETECTION_ENTRIES.map((e) => [e.name, { empty: new Samples(), noisy: new Samples() }]),
    );
    await firstDetections(context.client, samples);
    await block(context.client, samples, "empty", SETTLE_AFTER_SETUP_MS);
    await setNoise(context.client, true);
    await block(context.client, samples, "noisy", SETTLE_AFTER_NOISE_MS);
    await block(context.client, samples, "noisy", 0);
    await setNoise(context.client, false);
    await block(context.client, samples, "empty", SETTLE_AFTER_NOISE_MS);
    for (const [name, of] of samples) figures.set(`${state.state}, ${state.name}\t${name}`, of);
    process.stderr.write(`measured: ${state.state}, ${state.name}\n`);
  }
  return figures;
}

/** The first detection of a state, then the most any later one made: `4/3`, or `3` when they agree. */
function counts(empty: Samples, noisy: Samples): string {
  const later = Math.max(...empty.requests);
  const shown = empty.first === later ? `${later}` : `${empty.first}/${later}`;
  const noisyMost = Math.max(...noisy.requests);
  // The counts never depend on the noise; should they one day, both are shown.
  return noisyMost === later ? shown : `${shown}|noisy ${noisyMost}`;
}

function print(figures: Figures): void {
  const widths = [50, 16, 9, 10, 9, 9, 7, 10, 10, 7];
  const line = (cells: readonly string[]) =>
    `${cells.map((cell, i) => (i < 3 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0))).join("")}\n`;
  const load = loadavg()
    .map((l) => l.toFixed(1))
    .join(" ");
  process.stdout.write(
    `\ndetection per state, ${2 * BLOCK} runs empty and ${2 * BLOCK} noisy (${UNRELATED_SECRETS} unrelated Secrets, ${FOREIGN_RELEASES} foreign release records) each; load average ${load}\n`,
  );
  process.stdout.write(
    line([
      "state",
      "capability",
      "verdict",
      "requests",
      "ms empty",
      "ms noisy",
      "ratio",
      "min empty",
      "min noisy",
      "ratio",
    ]),
  );
  const ratios = { median: [] as number[], fastest: [] as number[] };
  for (const [key, { empty, noisy }] of figures) {
    const [state = "", name = ""] = key.split("\t");
    const verdicts = [...new Set([...empty.verdicts, ...noisy.verdicts])].join("/");
    const [emptyMs, noisyMs] = [median(empty.took), median(noisy.took)];
    const [emptyMin, noisyMin] = [Math.min(...empty.took), Math.min(...noisy.took)];
    ratios.median.push(noisyMs / emptyMs);
    ratios.fastest.push(noisyMin / emptyMin);
    process.stdout.write(
      line([
        state.slice(0, (widths[0] ?? 0) - 1),
        name,
        verdicts,
        counts(empty, noisy),
        emptyMs.toFixed(1),
        noisyMs.toFixed(1),
        (noisyMs / emptyMs).toFixed(2),
        emptyMin.toFixed(1),
        noisyMin.toFixed(1),
        (noisyMin / emptyMin).toFixed(2),
      ]),
    );
  }
  process.stdout.write(
    `noisy / empty over every row (geometric mean): median ${geometricMean(ratios.median).toFixed(2)}, fastest ${geometricMean(ratios.fastest).toFixed(2)}\n`,
  );
}

async function main(): Promise<void> {
  const connection = await new LocalControlPlane().ensureRunning();
  const client = KubeClient.fromFile(connection.kubeconfig);
  const helm = new HelmCli({ binary: (await toolchainPaths()).helm, kubeconfig: connection.kubeconfig });
  process.stderr.write("waiting for the capability lock (held while cluster suites install capabilities)\n");
  const unlock = await lockCapabilities();
  try {
    for (const name of [NOISE_NAMESPACE, FOREIGN_NAMESPACE]) {
      await deleteNamespaceAndWait(client, name);
      await client.core.createNamespace({ body: { metadata: { name } } });
    }
    print(await measureStates({ client, helm, foreignNamespace: FOREIGN_NAMESPACE }));
  } finally {
    await deleteNamespaceAndWait(client, NOISE_NAMESPACE);
    await deleteNamespaceAndWait(client, FOREIGN_NAMESPACE);
    await resetCapabilities(client, helm, DETECTION_ENTRIES, { crds: false });
    await unlock();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
