/**
 * The cost of `navique plan` over many resources: API requests and time of one run over N declared
 * managed PostgresClusters that are not stored yet (Community: 2 planned, the others refused by the cap),
 * with the fixture charts, on the shared local control plane (started or reused). A plan writes nothing,
 * so the shared plane is not disturbed beyond its reads. Each N runs RUNS times; the median and the
 * fastest time are printed with the requests of the last run. Prints a table; asserts nothing (figures
 * belong in docs/plan.md, not in tests).
 *
 *   npx tsx bench/plan-run.ts
 */
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { parseChartSource } from "../lib/catalog/chart-source.js";
import { HelmCli } from "../lib/cluster/helm-cli.js";
import type { EngineResource } from "../lib/engine/kind-module.js";
import { planClient, planInputs } from "../lib/engine/plan-run.js";
import { REGISTRY } from "../lib/kinds/registry.js";
import { LocalControlPlane } from "../lib/local-plane/plane.js";
import { toolchainPaths } from "../lib/local-plane/toolchain-paths.js";
import { createReconcileContext } from "../lib/reconcile/context.js";

const SIZES = [1, 10, 100];
const RUNS = 5;
const NAMESPACE = "bench-plan-run";

function declared(n: number) {
  const module = REGISTRY.kinds.find((m) => m.definition.kind === "PostgresCluster");
  if (!module) throw new Error("PostgresCluster is not registered");
  return Array.from({ length: n }, (_, i) => ({
    where: `bench document ${i + 1}`,
    resource: module.schema.parse({
      apiVersion: "core.navique.com/v1alpha1",
      kind: "PostgresCluster",
      metadata: { name: `pg-${String(i + 1).padStart(3, "0")}`, namespace: NAMESPACE },
      spec: { databases: [{ name: "app" }] },
    }) as EngineResource,
  }));
}

async function main(): Promise<void> {
  const connection = await new LocalControlPlane().ensureRunning();
  const helm = new HelmCli({ binary: (await toolchainPaths()).helm, kubeconfig: connection.kubeconfig });
  const source = parseChartSource(`dir:${join(import.meta.dirname, "..", "test", "fixtures", "charts")}`);
  const rows: string[] = [];
  for (const n of SIZES) {
    const times: number[] = [];
    let requests = 0;
    let outcomes = "";
    for (let run = 0; run < RUNS; run++) {
      // A new client per run, as a new `navique plan` process makes it.
      const client = planClient(connection.kubeconfig);
      const context = createReconcileContext({ client, helm, source });
      const start = performance.now();
      const result = await planInputs(context, REGISTRY, {
        resources: declared(n),
        grants: [],
        problems: [],
        notes: [],
      });
      times.push(performance.now() - start);
      requests = client.requests;
      const count = (o: string) => result.resources.filter((r) => r.outcome === o).length;
      outcomes = `${count("changes")} planned, ${count("refused")} refused`;
    }
    times.sort((a, b) => a - b);
    const median = times[Math.floor(times.length / 2)] ?? 0;
    rows.push(
      `${String(n).padStart(4)} resources  ${String(requests).padStart(5)} requests  ${(requests / n).toFixed(1).padStart(6)} per resource  median ${(median / 1000).toFixed(2)} s  min ${((times[0] ?? 0) / 1000).toFixed(2)} s  (${outcomes})`,
    );
  }
  process.stdout.write(`navique plan over N declared managed PostgresClusters (Community), ${RUNS} runs each\n`);
  process.stdout.write(`${rows.join("\n")}\n`);
}

await main();
