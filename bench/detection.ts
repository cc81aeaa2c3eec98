/**
 * Detection cost: API requests and time per capability detection, on the local control plane, first as
 * it is, then with 1,000 unrelated Secrets and 500 foreign Helm release records added. Prints a table;
 * asserts nothing (figures belong in docs/provenance.md, not in tests).
 *
 *   npm run bench
 */
import { performance } from "node:perf_hooks";
import { CATALOG } from "../lib/catalog/catalog.js";
import { KubeClient } from "../lib/cluster/kube-client.js";
import { LocalControlPlane } from "../lib/local-plane/plane.js";
import { observeCapability } from "../lib/observe/capability.js";
import { detectProvenance } from "../lib/plan/provenance.js";
import { deleteNamespaceAndWait } from "./namespace.js";

const RUNS = 20;
const NOISE_NAMESPACE = "bench-detection-noise";
const UNRELATED_SECRETS = 1_000;
const FOREIGN_RELEASES = 500;
const BATCH = 50;

async function measure(client: KubeClient): Promise<{ name: string; state: string; requests: number; ms: number }[]> {
  const rows = [];
  for (const entry of CATALOG.values()) {
    let requests = 0;
    let elapsed = 0;
    let state = "";
    for (let run = 0; run < RUNS; run++) {
      const before = client.requests;
      const started = performance.now();
      const observation = await observeCapability(client, entry);
      elapsed += performance.now() - started;
      requests = client.requests - before;
      state = detectProvenance(entry, observation).state;
    }
    rows.push({ name: entry.name, state, requests, ms: elapsed / RUNS });
  }
  return rows;
}

async function inBatches(count: number, make: (i: number) => Promise<unknown>): Promise<void> {
  for (let start = 0; start < count; start += BATCH) {
    await Promise.all(Array.from({ length: Math.min(BATCH, count - start) }, (_, k) => make(start + k)));
  }
}

async function addNoise(client: KubeClient): Promise<void> {
  await client.core.createNamespace({ body: { metadata: { name: NOISE_NAMESPACE } } });
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

function print(title: string, rows: Awaited<ReturnType<typeof measure>>): void {
  process.stdout.write(`\n${title}\n`);
  process.stdout.write(
    `${"capability".padEnd(16)}${"state".padEnd(10)}${"requests".padStart(9)}${"ms/detection".padStart(14)}\n`,
  );
  for (const row of rows) {
    process.stdout.write(
      `${row.name.padEnd(16)}${row.state.padEnd(10)}${String(row.requests).padStart(9)}${row.ms.toFixed(1).padStart(14)}\n`,
    );
  }
}

async function main(): Promise<void> {
  const connection = await new LocalControlPlane().ensureRunning();
  const client = KubeClient.fromFile(connection.kubeconfig);
  await deleteNamespaceAndWait(client, NOISE_NAMESPACE);

  print(`detection on the cluster as it is (${RUNS} runs each)`, await measure(client));
  const started = performance.now();
  await addNoise(client);
  process.stdout.write(
    `\nadded ${UNRELATED_SECRETS} unrelated Secrets and ${FOREIGN_RELEASES} foreign release records in ${((performance.now() - started) / 1000).toFixed(1)} s\n`,
  );
  print(`detection with that noise (${RUNS} runs each)`, await measure(client));
  await client.core.deleteNamespace({ name: NOISE_NAMESPACE });
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
