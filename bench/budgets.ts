/**
 * The budgets of issue 31, side by side in one run: each figure printed beside its budget with PASS or
 * MISS, and each leg's range of the machine's load average (1 min) as its rounds began. Every leg runs once per
 * round, the legs one after the other in each round, so that a change of the machine's load falls on
 * every leg alike. Asserts nothing.
 *
 *   plan   `navique plan -f` of the example platform (examples/cdk8s/app.ts synthesized) from the built
 *          package (dist/navique.js, the bundled CLI the package's bin runs: run `npm run build` first, or
 *          name another build with --cli), process start to exit, on the local control plane (started or
 *          reused; a plan writes nothing), with the fixture charts (the official ones need the network) and
 *          helm on PATH as a user has it. Budget: ≤ 1 s wall on a quiet machine. Its CPU (the process and
 *          the helm it runs) and the same command from the sources through tsx are shown beside it. Then,
 *          once, the requests of one run by path, through the client `navique plan` makes (planClient):
 *          budget, the CRDs read once.
 *   synth  cdk8s synth (`app.synthYaml()`), in this process, of 5,000 PostgresClusters under a licence
 *          that admits them all and of the reference, 5,000 cdk8s-plus-28 ConfigMaps (bench/synth.ts's
 *          apps), each round both, after a warm-up. Budget: ≤ 1.0× the ConfigMap's time per object, as
 *          the median of the rounds' own ratios. The build's time is shown beside it.
 *   pulumi a no-op `pulumi up --yes` of the package as users install it (packed from a fresh build,
 *          installed into a project outside the repository, compiled by tsc: two external
 *          PostgresClusters, nothing to change) and the floor it is held to, Pulumi's own dynamic provider
 *          (two dynamic resources of a provider doing nothing), one after the other in each round, on a
 *          control plane of its own (bench-budgets-pulumi, stopped at the end; --kubeconfig names another;
 *          bench/pulumi-noop-projects.ts). Budget: ≤ 1.1× the floor's wall time, as the median of the
 *          rounds' own ratios, beside load. The CPU of every process of each (Pulumi's engine and plugins,
 *          the programs) is shown beside it, and helm is never called. bench/pulumi-noop.ts says where the
 *          time goes.
 *
 * A leg is a function returning a BudgetLeg (LEGS below): another budget joins the run as one more.
 *
 *   npm run build && npx tsx bench/budgets.ts [--rounds N] [--legs plan,synth,pulumi] [--cli PATH] [--kubeconfig PATH]
 *     [--beside-load]      (runs `stress-ng --cpu 2` for the whole run, and says so)
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { buildApp } from "../examples/cdk8s/app.js";
import { parseChartSource } from "../lib/catalog/chart-source.js";
import { CRD_COLLECTION } from "../lib/cluster/crd-metadata.js";
import { HelmCli } from "../lib/cluster/helm-cli.js";
import { readPlanInputs } from "../lib/engine/plan-inputs.js";
import { planClient, planInputs } from "../lib/engine/plan-run.js";
import { REGISTRY } from "../lib/kinds/registry.js";
import { LocalControlPlane } from "../lib/local-plane/plane.js";
import { toolchainPaths } from "../lib/local-plane/toolchain-paths.js";
import { createReconcileContext } from "../lib/reconcile/context.js";
import { CLOCK_TICKS_PER_SECOND } from "./process-usage.js";
import { noopProjects, type Timed } from "./pulumi-noop-projects.js";
import { buildAndSynth, configMaps, postgresClusters } from "./synth-scenarios.js";

/** One figure of a leg: what was measured, its value, and the budget it is held to (none: shown beside). */
export interface Figure {
  readonly what: string;
  readonly value: string;
  readonly budget?: string;
  /** Whether the budget is met; undefined for a figure without one. */
  readonly met?: boolean;
}

/** A budget's measurement, set up once, then run once per round; its figures after the last round. */
export interface BudgetLeg {
  readonly name: string;
  round(): Promise<void>;
  figures(): Promise<readonly Figure[]>;
  tearDown?(): Promise<void>;
}

interface Options {
  readonly rounds: number;
  readonly cli: string;
  readonly kubeconfig: string | undefined;
}

const REPOSITORY = resolve(import.meta.dirname, "..");
const FIXTURE_CHARTS = join(REPOSITORY, "test", "fixtures", "charts");
const PLAN_BUDGET_MS = 1_000;
const SYNTH_BUDGET_RATIO = 1.0;
const SYNTH_OBJECTS = 5_000;
const PULUMI_BUDGET_RATIO = 1.1;

const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
};
const ms = (value: number) => `${value.toFixed(0)} ms`;
const list = (values: readonly number[], unit = "") => values.map((v) => `${v.toFixed(0)}${unit}`).join(", ");

/**
 * CPU time of this process's children waited for so far (Linux /proc: cutime + cstime), in ms: read before
 * and after a child ends, the difference is that child's, the processes it waited for (helm) included.
 */
function childrenCpuMs(): number {
  const text = readFileSync("/proc/self/stat", "utf8");
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  const ticks = Number(fields[16 - 3] ?? 0) + Number(fields[17 - 3] ?? 0);
  return (ticks * 1000) / CLOCK_TICKS_PER_SECOND;
}

/** A command run to its end: its wall time, process start to exit, and its CPU with its children's. */
function timed(command: string, args: readonly string[], env: NodeJS.ProcessEnv) {
  const cpuBefore = childrenCpuMs();
  const started = performance.now();
  const result = spawnSync(command, args, { env, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  const wallMs = performance.now() - started;
  const summary = result.stderr?.split("\n").find((line) => line.startsWith("plan: "));
  if (!summary)
    throw new Error(`${command} ${args.join(" ")} did not plan (exit ${result.status}):\n${result.stderr ?? ""}`);
  return { wallMs, cpuMs: childrenCpuMs() - cpuBefore, summary };
}

/** What a plan run's requests were (`METHOD path`, and with what each accepted), by what they read. */
function requestFigures(sent: readonly string[], reads: readonly string[]): Figure[] {
  const crds = sent.filter((r) => r.startsWith(`GET ${CRD_COLLECTION}`));
  const discovery = sent.filter((r) => /^GET \/(api(\/v1)?|apis(\/[^/?]+){0,2})$/.test(r));
  const repeated = reads.filter((r, i) => reads.indexOf(r) !== i);
  return [
    { what: "plan: requests of one run", value: `${sent.length}` },
    {
      what: "plan: reads of the CRDs (GET or LIST)",
      value: `${crds.length}${crds.length > 0 ? ` (${crds.join("; ")})` : ""}`,
      budget: "≤ 1",
      met: crds.length <= 1,
    },
    { what: "plan: discovery requests", value: `${discovery.length} (${discovery.join(", ")})` },
    { what: "plan: requests sent more than once (the same path and Accept)", value: `${repeated.length}` },
  ];
}

/** `navique plan` of the example platform: the installed CLI's wall time, its CPU, the tsx path, its requests. */
async function planLeg(options: Options): Promise<BudgetLeg> {
  if (!existsSync(options.cli))
    throw new Error(`${options.cli}: no built CLI. Run npm run build first, or name one with --cli PATH`);
  const kubeconfig = options.kubeconfig ?? (await new LocalControlPlane().ensureRunning()).kubeconfig;
  const helm = (await toolchainPaths()).helm;
  const work = mkdtempSync(join(tmpdir(), "navique-bench-budgets-"));
  buildApp(work).synth();
  const file = join(work, "navique-example.yaml");
  const planArgs = ["plan", "-f", file, "--kubeconfig", kubeconfig, "--chart-source", `dir:${FIXTURE_CHARTS}`];
  // helm on PATH, as a user who installed the package has it (the package has no toolchain of its own).
  const env = { ...process.env, PATH: `${dirname(helm)}:${process.env.PATH ?? ""}` };
  const installed: { wallMs: number; cpuMs: number }[] = [];
  const fromSources: number[] = [];
  let summary = "";
  return {
    name: "plan",
    async round() {
      const run = timed(process.execPath, [options.cli, ...planArgs], env);
      installed.push(run);
      summary = run.summary;
      fromSources.push(
        timed(process.execPath, ["--import", "tsx", join(REPOSITORY, "lib/cli/main.ts"), ...planArgs], env).wallMs,
      );
    },
    async figures() {
      // The requests of one run, by path, through the client `navique plan` makes: as the CLI sends them.
      const sent: string[] = [];
      const reads: string[] = [];
      const inputs = await readPlanInputs([file], REGISTRY);
      const context = createReconcileContext({
        client: planClient(kubeconfig, (method, path, accept) => {
          sent.push(`${method} ${path}`);
          reads.push(`${method} ${path} (${accept})`);
        }),
        helm: new HelmCli({ binary: helm, kubeconfig }),
        source: parseChartSource(`dir:${FIXTURE_CHARTS}`),
      });
      await planInputs(context, REGISTRY, inputs);
      const wall = median(installed.map((r) => r.wallMs));
      return [
        {
          what: `plan: wall, ${options.cli.replace(`${REPOSITORY}/`, "")} (median of ${installed.length})`,
          value: `${ms(wall)} (${list(installed.map((r) => r.wallMs))})`,
          budget: `≤ ${ms(PLAN_BUDGET_MS)}, quiet machine`,
          met: wall <= PLAN_BUDGET_MS,
        },
        {
          what: "plan: CPU, the process and its helm",
          value: `${ms(median(installed.map((r) => r.cpuMs)))} (${list(installed.map((r) => r.cpuMs))})`,
        },
        {
          what: "plan: wall, from the sources through tsx",
          value: `${ms(median(fromSources))} (${list(fromSources)})`,
        },
        { what: "plan: what it said", value: summary.replace(/ \(docs\/plan\.md\)$/, "") },
        ...requestFigures(sent, reads),
      ];
    },
    async tearDown() {
      rmSync(work, { recursive: true, force: true });
    },
  };
}

/** A full garbage collection, so that a measurement does not pay for the garbage of the one before. */
function collectGarbage(): void {
  setFlagsFromString("--expose-gc");
  (runInNewContext("gc") as () => void)();
}

/** cdk8s synth per object: PostgresClusters against the reference, cdk8s-plus-28 ConfigMaps. */
async function synthLeg(): Promise<BudgetLeg> {
  const product = postgresClusters(SYNTH_OBJECTS, true);
  const reference = configMaps(SYNTH_OBJECTS);
  // Warm-up (module loading, JIT) on small apps of each, not measured.
  for (let i = 0; i < 3; i++) {
    buildAndSynth(postgresClusters(500, true));
    buildAndSynth(configMaps(500));
  }
  const measured = (build: typeof product) => {
    collectGarbage();
    return buildAndSynth(build);
  };
  const rounds: { product: ReturnType<typeof buildAndSynth>; reference: ReturnType<typeof buildAndSynth> }[] = [];
  return {
    name: "synth",
    async round() {
      rounds.push({ product: measured(product), reference: measured(reference) });
      // Its apps' garbage collected now, not by the collector's threads during the next leg's measurement.
      collectGarbage();
    },
    async figures() {
      const perObject = (value: number) => `${((value * 1000) / SYNTH_OBJECTS).toFixed(0)} µs`;
      const ratios = rounds.map((r) => r.product.synthMs / r.reference.synthMs);
      const totals = rounds.map(
        (r) => (r.product.buildMs + r.product.synthMs) / (r.reference.buildMs + r.reference.synthMs),
      );
      const ratio = median(ratios);
      return [
        {
          what: `synth: PostgresCluster x ${SYNTH_OBJECTS.toLocaleString("en")} (licensed), per object`,
          value: `${perObject(median(rounds.map((r) => r.product.synthMs)))} (${rounds[0]?.product.outcome})`,
        },
        {
          what: `synth: cdk8s-plus-28 ConfigMap x ${SYNTH_OBJECTS.toLocaleString("en")}, per object`,
          value: perObject(median(rounds.map((r) => r.reference.synthMs))),
        },
        {
          what: `synth: per object, PostgresCluster / ConfigMap (median of ${rounds.length} rounds)`,
          value: `${ratio.toFixed(2)}× (${ratios.map((r) => r.toFixed(2)).join(", ")})`,
          budget: `≤ ${SYNTH_BUDGET_RATIO.toFixed(1)}×`,
          met: ratio <= SYNTH_BUDGET_RATIO,
        },
        {
          what: "synth: CPU per object, PostgresCluster / ConfigMap",
          value: `${median(rounds.map((r) => r.product.synthCpuMs / r.reference.synthCpuMs)).toFixed(2)}× (${rounds.map((r) => (r.product.synthCpuMs / r.reference.synthCpuMs).toFixed(2)).join(", ")})`,
        },
        {
          what: "synth: build + synth, PostgresCluster / ConfigMap",
          value: `${median(totals).toFixed(2)}× (build ${perObject(median(rounds.map((r) => r.product.buildMs)))} / ${perObject(median(rounds.map((r) => r.reference.buildMs)))})`,
        },
      ];
    },
  };
}

/** A no-op `pulumi up` of the installed package against Pulumi's own dynamic-provider floor, per round. */
async function pulumiLeg(options: Options): Promise<BudgetLeg> {
  // A control plane of its own unless one is named: on a shared one, another run deleting the product's
  // CRDs or resources would turn the no-op into a preview of changes.
  const plane = new LocalControlPlane({ name: "bench-budgets-pulumi" });
  const ownPlane = options.kubeconfig === undefined;
  const kubeconfig = options.kubeconfig ?? (await plane.ensureRunning()).kubeconfig;
  const stopPlane = async () => {
    if (ownPlane) await plane.stop();
  };
  // The budget is to Pulumi's floor: helm's no-op upgrade, bench/pulumi-noop.ts's reference, is not set up.
  const projects = await noopProjects(
    kubeconfig,
    "bench-budgets-pulumi",
    (line) => process.stderr.write(`[budgets: pulumi] ${line}\n`),
    { helmReference: false },
  ).catch(async (error: unknown) => {
    await stopPlane();
    throw error;
  });
  const ups: Timed[] = [];
  const floors: Timed[] = [];
  let helmCalls = 0;
  const seconds = (value: number) => `${value.toFixed(2)} s`;
  const perRound = (of: (t: Timed) => number) => ups.map((up, i) => of(up) / of(floors[i] as Timed));
  const ratios = (values: readonly number[]) =>
    `${median(values).toFixed(2)}× (${values.map((r) => r.toFixed(2)).join(", ")})`;
  return {
    name: "pulumi",
    async round() {
      await projects.helmCalls();
      ups.push(await projects.product("up", "--yes"));
      helmCalls = Math.max(helmCalls, await projects.helmCalls());
      floors.push(await projects.dynamicFloor("up", "--yes"));
    },
    async figures() {
      const wall = perRound((t) => t.seconds);
      return [
        {
          what: `pulumi: no-op up, two PostgresClusters (median of ${ups.length})`,
          value: `${seconds(median(ups.map((t) => t.seconds)))} (${ups.map((t) => t.seconds.toFixed(2)).join(", ")})`,
        },
        {
          what: "pulumi: the floor's up, two no-op dynamic resources",
          value: `${seconds(median(floors.map((t) => t.seconds)))} (${floors.map((t) => t.seconds.toFixed(2)).join(", ")})`,
        },
        {
          what: "pulumi: no-op up / the floor's, per round",
          value: ratios(wall),
          budget: "≤ 1.10×, beside load",
          met: median(wall) <= PULUMI_BUDGET_RATIO,
        },
        { what: "pulumi: CPU of every process, up / the floor's", value: ratios(perRound((t) => t.cpuSeconds)) },
        {
          what: "pulumi: helm invocations during a no-op up",
          value: `${helmCalls}`,
          budget: "0",
          met: helmCalls === 0,
        },
      ];
    },
    async tearDown() {
      try {
        await projects.tearDown();
      } finally {
        await stopPlane();
      }
    },
  };
}

/** Every leg, in the order each round runs them. */
const LEGS: Record<string, (options: Options) => Promise<BudgetLeg>> = {
  plan: planLeg,
  synth: synthLeg,
  pulumi: pulumiLeg,
};

/** `stress-ng --cpu 2`, for a run beside load; stopped at the end (by its pid: this run started it). */
function besideLoad(): ChildProcess {
  const stress = spawn("stress-ng", ["--cpu", "2", "--quiet"], { stdio: "ignore" });
  stress.on("error", (error) => {
    throw new Error(`stress-ng could not start (${error.message}): install it, or run without --beside-load`);
  });
  return stress;
}

/** The run's options from its arguments. */
function parsedOptions(): { options: Options; legs: string[]; besideLoad: boolean } {
  const { values } = parseArgs({
    options: {
      rounds: { type: "string", default: "5" },
      legs: { type: "string", default: Object.keys(LEGS).join(",") },
      cli: { type: "string", default: join(REPOSITORY, "dist", "navique.js") },
      kubeconfig: { type: "string" },
      "beside-load": { type: "boolean", default: false },
    },
  });
  const rounds = Number(values.rounds);
  if (!Number.isInteger(rounds) || rounds < 1)
    throw new Error(`--rounds ${values.rounds}: expected a whole number ≥ 1`);
  const legs = values.legs.split(",").filter(Boolean);
  const unknown = legs.filter((name) => !(name in LEGS));
  if (unknown.length > 0)
    throw new Error(`--legs: ${unknown.join(", ")} unknown; the legs are ${Object.keys(LEGS).join(", ")}`);
  return {
    options: { rounds, cli: resolve(values.cli), kubeconfig: values.kubeconfig },
    legs,
    besideLoad: values["beside-load"],
  };
}

/** Each figure on a line: what, the value, its budget and PASS or MISS when it has one. */
function printFigures(rows: readonly Figure[]): void {
  const width = Math.max(...rows.map((r) => r.what.length));
  for (const row of rows) {
    const verdict = row.met === undefined ? "" : row.met ? "  PASS" : "  MISS";
    process.stdout.write(
      `${row.what.padEnd(width)}  ${row.value}${row.budget ? `  [budget ${row.budget}]` : ""}${verdict}\n`,
    );
  }
}

async function main(): Promise<void> {
  const { options, legs: names, besideLoad: loaded } = parsedOptions();
  const legs: BudgetLeg[] = [];
  for (const name of names) legs.push(await (LEGS[name] as (o: Options) => Promise<BudgetLeg>)(options));
  const stress = loaded ? besideLoad() : undefined;
  try {
    // The load average (1 min) as each leg's round began: what each figure was measured beside.
    const loads = new Map<BudgetLeg, number[]>(legs.map((leg) => [leg, []]));
    for (let round = 0; round < options.rounds; round++) {
      for (const leg of legs) {
        loads.get(leg)?.push(loadavg()[0] ?? 0);
        await leg.round();
      }
    }
    const rows: Figure[] = [];
    for (const leg of legs) {
      const load = loads.get(leg) ?? [];
      rows.push(...(await leg.figures()), {
        what: `${leg.name}: load average (1 min) as its rounds began`,
        value: `${Math.min(...load).toFixed(1)}–${Math.max(...load).toFixed(1)}`,
      });
    }
    process.stdout.write(
      `budgets of issue 31, ${options.rounds} interleaved round(s)${stress ? ", beside stress-ng --cpu 2" : ""}\n`,
    );
    printFigures(rows);
  } finally {
    stress?.kill();
    for (const leg of legs) await leg.tearDown?.();
  }
}

await main();
