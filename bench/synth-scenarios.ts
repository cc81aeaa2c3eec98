/**
 * The apps the synth benchmarks build (bench/synth.ts, bench/budgets.ts): PostgresClusters under a licence
 * made for the run or under the Community cap, a mix of Stacks, grants and adoptions, and the reference,
 * cdk8s-plus-28 ConfigMaps. One place, so that every bench measures the same apps.
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

/** Adds an app's constructs to its chart. */
export type BuildApp = (chart: Chart) => void;

const licensed = (chart: Chart) => new NaviqueLicense(chart, "licence", { token, trustedKeys });
const teamOf = (i: number) => `team-${i % NAMESPACES}`;

/** `count` managed PostgresClusters in 20 namespaces, under a licence that admits them all, or none (Community). */
export function postgresClusters(count: number, withLicence: boolean): BuildApp {
  return (chart) => {
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
export function mix(chart: Chart): void {
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

/** The reference: `count` cdk8s-plus-28 ConfigMaps of one key each, in 20 namespaces. */
export function configMaps(count: number): BuildApp {
  return (chart) => {
    for (let i = 0; i < count; i++) {
      new ConfigMap(chart, `cm-${i}`, { metadata: { namespace: teamOf(i) }, data: { key: `value-${i}` } });
    }
  };
}

/**
 * One app built, then synthesized (`app.synthYaml()`): the time of each, the CPU time of the synth (this
 * process's, its garbage collector's threads included: less moved than the time by other work on the
 * machine), and what synth gave.
 */
export function buildAndSynth(build: BuildApp): {
  buildMs: number;
  synthMs: number;
  synthCpuMs: number;
  outcome: string;
} {
  const outdir = mkdtempSync(join(tmpdir(), "navique-bench-synth-"));
  try {
    const started = performance.now();
    const app = new App({ outdir });
    build(new Chart(app, "bench"));
    const built = performance.now();
    const cpu = process.cpuUsage();
    let outcome: string;
    try {
      const yaml = app.synthYaml();
      outcome = `${(yaml.length / 1024 / 1024).toFixed(1)} MiB of YAML`;
    } catch (error) {
      const refusals = (error as Error).message.split("\n").length - 1;
      outcome = `validation failed: ${refusals} problem(s)`;
    }
    const synthesized = performance.now();
    const { user, system } = process.cpuUsage(cpu);
    return { buildMs: built - started, synthMs: synthesized - built, synthCpuMs: (user + system) / 1000, outcome };
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}
