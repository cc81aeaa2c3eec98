/**
 * What a Pulumi user feels: a no-op `pulumi up` and a `pulumi preview` of a program with two
 * PostgresClusters (external: no pod runs here), from the package as users install it (packed, installed
 * into a project outside the repository, compiled by tsc, the plain Node.js language host), beside a
 * no-op `helm upgrade --wait` of two charts (cert-manager and cloudnative-pg, from the fixture charts) on
 * the same cluster. Also counts the helm invocations during the no-op up (a PATH shim logs them). Prints
 * the figures and the ratios to Pulumi's own floor with two dynamic resources of a provider that does
 * nothing (up and preview) and to helm, and where the time goes (the up without its preview; Pulumi's
 * floor with no resource; the cost of loading the package's entry points in a fresh process); asserts
 * nothing. The measurements run in interleaved rounds (each round: the product's up, the floor's up,
 * helm, the previews, …), so that the machine's load changing during the run biases no ratio; beside each
 * wall time, the CPU of every process of the run (Pulumi's engine and plugins, the programs), which the
 * machine's load moves far less. Runs on a control plane of its own (plane name `bench-pulumi-noop`,
 * stopped at the end). The projects: bench/pulumi-noop-projects.ts; bench/budgets.ts runs the same `up`
 * and floor as its `pulumi` leg.
 *
 *   npx tsx bench/pulumi-noop.ts [--runs N]
 */
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import { LocalControlPlane } from "../lib/local-plane/plane.js";
import { noopProjects, type Timed } from "./pulumi-noop-projects.js";

const { values } = parseArgs({ options: { runs: { type: "string", default: "3" } } });
const RUNS = Number(values.runs);
const NAMESPACE = "bench-pulumi-noop";

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

async function main(): Promise<void> {
  const plane = new LocalControlPlane({ name: "bench-pulumi-noop" });
  const { kubeconfig } = await plane.ensureRunning();
  try {
    const projects = await noopProjects(kubeconfig, NAMESPACE, (line) =>
      process.stderr.write(`[pulumi-noop] ${line}\n`),
    );
    // Rounds interleaved — the product, its floors and helm one after another in each round — so that a
    // change of the machine's load during the run weighs on every figure alike, not on one block.
    const ups: Timed[] = [];
    const previews: Timed[] = [];
    const skipping: Timed[] = [];
    const floors: Timed[] = [];
    const dynamicFloors: Timed[] = [];
    const dynamicPreviews: Timed[] = [];
    const helms: Timed[] = [];
    let helmCalls = 0;
    const loadBefore = loadavg()[0] ?? 0;
    try {
      for (let i = 0; i < RUNS; i++) {
        process.stderr.write(`[pulumi-noop] round ${i + 1} of ${RUNS}\n`);
        await projects.helmCalls();
        ups.push(await projects.product("up", "--yes"));
        helmCalls = Math.max(helmCalls, await projects.helmCalls());
        dynamicFloors.push(await projects.dynamicFloor("up", "--yes"));
        helms.push(await projects.helmUpgrade());
        previews.push(await projects.product("preview"));
        dynamicPreviews.push(await projects.dynamicFloor("preview"));
        skipping.push(await projects.product("up", "--yes", "--skip-preview"));
        floors.push(await projects.emptyFloor("up", "--yes"));
      }
    } catch (error) {
      await projects.tearDown();
      throw error;
    }
    // Loading the package's entry points in a fresh Node.js process, as the program and each
    // dynamic-provider process do.
    const load = async (specifier: string) => {
      const times: number[] = [];
      for (let i = 0; i < RUNS; i++) times.push(await projects.importSeconds(specifier));
      return times;
    };
    const loadComponents = await load("@navique/ai-core/pulumi");
    const loadRuntime = await load("@navique/ai-core/pulumi/runtime");
    const loadSdk = await load("@pulumi/pulumi");
    await projects.tearDown();

    const fixed = (n: number) => n.toFixed(2);
    const wall = (runs: readonly Timed[]) => runs.map((r) => r.seconds);
    const cpu = (runs: readonly Timed[]) => runs.map((r) => r.cpuSeconds);
    // Each round's ratio is of two runs made one after the other, under about the same load: their median
    // is the figure; the ratio of the medians, which a load changing between rounds moves, is beside it.
    const ratios = (product: readonly number[], reference: readonly number[]) => {
      const perRound = product.map((value, i) => value / (reference[i] ?? Number.NaN));
      return `${fixed(median(perRound))}x per round (median)  [${perRound.map(fixed).join(", ")}]; of the medians ${fixed(median(product) / median(reference))}x`;
    };
    const all = (values: readonly number[]) => `${fixed(median(values))} s  [${values.map(fixed).join(", ")}]`;
    process.stdout.write(
      [
        `rounds interleaved: ${RUNS}; medians, every run in brackets; load average ${loadBefore.toFixed(1)} → ${loadavg()[0]?.toFixed(1)}`,
        `no-op pulumi up, two PostgresClusters, installed package:          ${all(wall(ups))}`,
        `pulumi preview, same program:                                      ${all(wall(previews))}`,
        `Pulumi's floor with a dynamic provider, up of two no-op resources: ${all(wall(dynamicFloors))}`,
        `Pulumi's floor with a dynamic provider, preview:                   ${all(wall(dynamicPreviews))}`,
        `no-op helm upgrade --wait of two charts:                           ${all(wall(helms))}`,
        `helm invocations during a no-op pulumi up (max over the runs):     ${helmCalls}`,
        `  no-op pulumi up --skip-preview:                                  ${all(wall(skipping))}`,
        `  Pulumi's floor, up of a program with no resource:                ${all(wall(floors))}`,
        `  CPU of the no-op pulumi up, every process:                       ${all(cpu(ups))}`,
        `  CPU of the dynamic-provider floor's up, every process:           ${all(cpu(dynamicFloors))}`,
        `  node + import @navique/ai-core/pulumi, fresh process:            ${fixed(median(loadComponents))} s`,
        `  node + import @navique/ai-core/pulumi/runtime, fresh process:    ${fixed(median(loadRuntime))} s`,
        `  node + import @pulumi/pulumi, fresh process:                     ${fixed(median(loadSdk))} s`,
        `ratio no-op pulumi up / the dynamic-provider floor's up:           ${ratios(wall(ups), wall(dynamicFloors))}`,
        `  the same, CPU of every process:                                  ${ratios(cpu(ups), cpu(dynamicFloors))}`,
        `ratio pulumi preview / the dynamic-provider floor's preview:       ${ratios(wall(previews), wall(dynamicPreviews))}`,
        `ratio no-op pulumi up / helm upgrade:                              ${ratios(wall(ups), wall(helms))}`,
        "goal (issue 19): a no-op pulumi up <= 1.1x the dynamic-provider floor, and no helm call when nothing changed",
        "",
      ].join("\n"),
    );
  } finally {
    await plane.stop();
  }
}

await main();
