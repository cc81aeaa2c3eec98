/**
 * Synth cost of the cdk8s constructs, in-process: builds an app of N constructs, then synthesizes it
 * with `app.synthYaml()` (dependencies, every construct's validation — the synth-time licence and grant
 * checks included — and the YAML), and prints the time to build and to synthesize. Scenarios: 500, 2,500
 * and 5,000 PostgresClusters under a licence that admits them all; 2,500 under the Community cap (2
 * admitted, 2,498 refused: synth fails listing them); a mix of 2,500 (PostgresClusters, a third of them
 * adopting across namespaces, Stacks with their members, ReferenceGrants); and, as the reference,
 * 5,000 cdk8s-plus-28 ConfigMaps. Goal (issue 9): 2,500 constructs of our kinds in at most 1 s.
 * Asserts nothing. Words given as arguments select the scenarios whose name contains one of them.
 *
 *   npx tsx bench/synth.ts [WORD...]      e.g. npx tsx bench/synth.ts "x 500 " mix
 */
import type { Chart } from "cdk8s";
import { buildAndSynth, configMaps, mix, postgresClusters } from "./synth-scenarios.js";

const GOAL_MS = 1_000;

interface Scenario {
  readonly name: string;
  /** Constructs of our kinds, or ConfigMaps for the reference. */
  readonly constructs: number;
  readonly build: (chart: Chart) => void;
  /** Whether synth is expected to fail validation (the cap refusals are what is measured). */
  readonly refused?: boolean;
  /** Whether the 1 s goal applies (2,500 constructs of our kinds). */
  readonly goal?: boolean;
}

const SCENARIOS: readonly Scenario[] = [
  { name: "PostgresCluster x 500 (licensed)", constructs: 500, build: postgresClusters(500, true) },
  { name: "PostgresCluster x 2,500 (licensed)", constructs: 2_500, build: postgresClusters(2_500, true), goal: true },
  { name: "PostgresCluster x 5,000 (licensed)", constructs: 5_000, build: postgresClusters(5_000, true) },
  {
    name: "PostgresCluster x 2,500 (Community: 2,498 refused)",
    constructs: 2_500,
    build: postgresClusters(2_500, false),
    refused: true,
    goal: true,
  },
  { name: "mix x 2,500 (Stacks, grants, adoptions)", constructs: 2_500, build: mix, goal: true },
  { name: "reference: cdk8s-plus-28 ConfigMap x 5,000", constructs: 5_000, build: configMaps(5_000) },
];

const run = (scenario: Scenario) => buildAndSynth(scenario.build);

const only = process.argv.slice(2);
const pad = (text: string, width: number) => text.padEnd(width);
// Warm-up (module loading, JIT) on a small app of each kind, not measured.
run({ name: "warm-up", constructs: 0, build: postgresClusters(50, true) });
run({ name: "warm-up", constructs: 0, build: configMaps(200) });
process.stdout.write(
  `${pad("scenario", 52)} ${pad("build", 10)} ${pad("synth", 10)} ${pad("per construct", 14)} outcome\n`,
);
for (const scenario of SCENARIOS) {
  if (only.length > 0 && !only.some((word) => scenario.name.includes(word))) continue;
  const { buildMs, synthMs, outcome } = run(scenario);
  const goal = scenario.goal ? (synthMs <= GOAL_MS ? "  (goal ≤ 1 s: met)" : "  (goal ≤ 1 s: MISSED)") : "";
  process.stdout.write(
    `${pad(scenario.name, 52)} ${pad(`${buildMs.toFixed(0)} ms`, 10)} ${pad(`${synthMs.toFixed(0)} ms`, 10)} ${pad(`${((synthMs * 1000) / scenario.constructs).toFixed(0)} µs`, 14)} ${outcome}${goal}\n`,
  );
}
