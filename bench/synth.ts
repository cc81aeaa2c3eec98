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
import { generateKeyPairSync } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { App, Chart } from "cdk8s";
import { ConfigMap } from "cdk8s-plus-28";
import { NaviqueLicense, PostgresCluster, ReferenceGrant, Stack } from "../constructs/index.js";
import { signLicense } from "../lib/licence/token.js";

const GOAL_MS = 1_000;
const NAMESPACES = 20;
const GRANTED_NAMESPACES = 50;

const { privateKey, publicKey } = generateKeyPairSync("ed25519", {
  privateKeyEncoding: { type: "pkcs8", format: "pem" },
  publicKeyEncoding: { type: "spki", format: "pem" },
});
const trustedKeys = new Map([["bench-key", publicKey]]);
const token = signLicense(
  {
    licenseId: "bench",
    licensee: "Benchmark",
    issuedAt: "2026-01-01T00:00:00Z",
    notBefore: "2026-01-01T00:00:00Z",
    expiresAt: "2099-01-01T00:00:00Z",
    features: ["stack"],
    caps: { PostgresCluster: 100_000, Stack: 100_000 },
  },
  privateKey,
  "bench-key",
);

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

const licensed = (chart: Chart) => new NaviqueLicense(chart, "licence", { token, trustedKeys });
const teamOf = (i: number) => `team-${i % NAMESPACES}`;

function postgresClusters(count: number, withLicence: boolean) {
  return (chart: Chart) => {
    if (withLicence) licensed(chart);
    for (let i = 0; i < count; i++) {
      new PostgresCluster(chart, `db-${i}`, { namespace: teamOf(i), spec: { databases: [{ name: "app" }] } });
    }
  };
}

/**
 * 2,500 constructs: 250 Stacks (each declares a member PostgresCluster), 50 ReferenceGrants (namespace
 * data-g opens its `shared` Cluster and Secret to one team namespace), and 2,200 PostgresClusters, every
 * third adopting from the data namespace granted to its own namespace.
 */
function mix(chart: Chart): void {
  licensed(chart);
  for (let g = 0; g < GRANTED_NAMESPACES; g++) {
    new ReferenceGrant(chart, `grant-${g}`, {
      namespace: `data-${g}`,
      spec: {
        from: [{ group: "core.navique.com", kind: "PostgresCluster", namespace: teamOf(g) }],
        to: [
          { group: "postgresql.cnpg.io", kind: "Cluster", name: "shared" },
          { group: "", kind: "Secret", name: "shared-app" },
        ],
      },
    });
  }
  for (let s = 0; s < 250; s++) new Stack(chart, `stack-${s}`, { namespace: teamOf(s) });
  for (let i = 0; i < 2_200; i++) {
    // A data namespace granted to this team: g ≡ i (mod NAMESPACES) keeps teamOf(g) === teamOf(i).
    const g = (i % NAMESPACES) + NAMESPACES * (((i / NAMESPACES) % 2) | 0);
    const spec =
      i % 3 === 0
        ? {
            mode: "adopt" as const,
            adopt: {
              clusterRef: { name: "shared", namespace: `data-${g}` },
              credentialsSecretRef: { name: "shared-app", namespace: `data-${g}` },
            },
          }
        : { databases: [{ name: "app" }] };
    new PostgresCluster(chart, `db-${i}`, { namespace: teamOf(i), spec });
  }
}

function configMaps(count: number) {
  return (chart: Chart) => {
    for (let i = 0; i < count; i++) {
      new ConfigMap(chart, `cm-${i}`, { metadata: { namespace: teamOf(i) }, data: { key: `value-${i}` } });
    }
  };
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

function run(scenario: Scenario): { buildMs: number; synthMs: number; outcome: string } {
  const outdir = mkdtempSync(join(tmpdir(), "navique-bench-synth-"));
  try {
    const started = performance.now();
    const app = new App({ outdir });
    scenario.build(new Chart(app, "bench"));
    const built = performance.now();
    let outcome: string;
    try {
      const yaml = app.synthYaml();
      outcome = `${(yaml.length / 1024 / 1024).toFixed(1)} MiB of YAML`;
    } catch (error) {
      const refusals = (error as Error).message.split("\n").length - 1;
      outcome = `validation failed: ${refusals} problem(s)`;
    }
    const synthesized = performance.now();
    return { buildMs: built - started, synthMs: synthesized - built, outcome };
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

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
