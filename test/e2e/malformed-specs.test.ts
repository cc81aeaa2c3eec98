import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { App, Chart } from "cdk8s";
import fc from "fast-check";
import { stringify } from "yaml";
import {
  ClickHouseCluster as ClickHouseClusterConstruct,
  Gateway as GatewayConstruct,
  MeilisearchInstance as MeilisearchInstanceConstruct,
  MongoCluster as MongoClusterConstruct,
  NaviqueLicense,
  PostgresCluster as PostgresClusterConstruct,
  RedisInstance as RedisInstanceConstruct,
  ReferenceGrant as ReferenceGrantConstruct,
  SecretsManagement as SecretsManagementConstruct,
  Stack as StackConstruct,
} from "../../constructs/index.js";
import { API_GROUP, API_VERSION } from "../../lib/api/group.js";
import { ensureNaviqueCrds } from "../../lib/apply/navique-crds.js";
import type { KubeClient } from "../../lib/cluster/kube-client.js";
import { run, runUnchecked } from "../../lib/cluster/process.js";
import { CLICKHOUSE_CLUSTER_DEFINITION } from "../../lib/kinds/clickhouse-cluster/schema.js";
import { GATEWAY_DEFINITION } from "../../lib/kinds/gateway/schema.js";
import { LICENSE_DEFINITION, LICENSE_NAME } from "../../lib/kinds/license/schema.js";
import { MEILISEARCH_INSTANCE_DEFINITION } from "../../lib/kinds/meilisearch-instance/schema.js";
import { MONGO_CLUSTER_DEFINITION } from "../../lib/kinds/mongo-cluster/schema.js";
import { POSTGRES_CLUSTER_DEFINITION } from "../../lib/kinds/postgres-cluster/schema.js";
import { REDIS_INSTANCE_DEFINITION } from "../../lib/kinds/redis-instance/schema.js";
import { REFERENCE_GRANT_DEFINITION } from "../../lib/kinds/registry.js";
import { SECRETS_MANAGEMENT_DEFINITION } from "../../lib/kinds/secrets-management/schema.js";
import { STACK_DEFINITION } from "../../lib/kinds/stack/schema.js";
import { pulumiEnvironment } from "../../lib/local-plane/pulumi-environment.js";
import { CAPABILITY_SUITE_SETUP_MS, lockCapabilities, testClient } from "../support/capabilities.js";
import { createTestNamespace } from "../support/cluster.js";
import { KIND_SAMPLES } from "../support/kind-samples.js";
import { type MalformedSpec, malformedSpecs, unjudgedStrings } from "../support/malformed-specs.js";
import { discardNamespace } from "../support/namespace-content.js";
import { REPOSITORY } from "../support/repository.js";
import { TYPESCRIPT_SOURCES_ENV } from "../support/typescript-sources.js";

const TSX = join(process.cwd(), "node_modules", ".bin", "tsx");
const CLI = join(process.cwd(), "lib", "cli", "main.ts");
/** A fixed seed and a bounded number of cases: the same specs every run. */
const SEED = 20;
const CASES_PER_BREAKAGE = 2;

/** The Pulumi program handing each case to its component (test/fixtures/pulumi/fuzz-program). */
const PULUMI_PROGRAM = join(REPOSITORY, "test", "fixtures", "pulumi", "fuzz-program");
/**
 * The kinds without a Pulumi component, whose cases no component judges: the licence is applied by the
 * operator's install or `navique license apply`, a grant belongs to the namespace granting, not to a
 * program's platform. Every other kind's component must exist: the program fails on a missing one.
 */
const NO_PULUMI_COMPONENT = new Set(["License", "ReferenceGrant"]);
const judgedByPulumi = (malformed: MalformedSpec) => !NO_PULUMI_COMPONENT.has(malformed.kind);
/** How many cases one preview hands its components through outputs. */
const OUTPUT_CASES = 24;

interface FuzzedKind {
  readonly definition: typeof POSTGRES_CLUSTER_DEFINITION;
  readonly cluster: boolean;
  /** Valid specs, one per mode, each holding every field of its mode. */
  readonly bases: readonly Record<string, unknown>[];
  /** The kind's construct for `spec`, in `chart`; undefined where its props cannot carry the fault. */
  readonly construct: (chart: Chart, id: string, spec: Record<string, unknown>, malformed: MalformedSpec) => boolean;
}

const KINDS: readonly FuzzedKind[] = [
  {
    definition: POSTGRES_CLUSTER_DEFINITION,
    cluster: false,
    bases: KIND_SAMPLES.PostgresCluster,
    construct: (chart, id, spec) => {
      new PostgresClusterConstruct(chart, id, { namespace: "apps", spec: spec as never, grantedInCluster: true });
      return true;
    },
  },
  {
    definition: REDIS_INSTANCE_DEFINITION,
    cluster: false,
    bases: KIND_SAMPLES.RedisInstance,
    construct: (chart, id, spec) => {
      new RedisInstanceConstruct(chart, id, { namespace: "apps", spec: spec as never, grantedInCluster: true });
      return true;
    },
  },
  {
    definition: STACK_DEFINITION,
    cluster: false,
    bases: KIND_SAMPLES.Stack,
    construct: (chart, id, spec) => {
      new StackConstruct(chart, id, { namespace: "apps", spec: spec as never });
      return true;
    },
  },
  {
    definition: MEILISEARCH_INSTANCE_DEFINITION,
    cluster: false,
    bases: KIND_SAMPLES.MeilisearchInstance,
    construct: (chart, id, spec) => {
      new MeilisearchInstanceConstruct(chart, id, { namespace: "apps", spec: spec as never });
      return true;
    },
  },
  {
    definition: GATEWAY_DEFINITION,
    cluster: false,
    bases: KIND_SAMPLES.Gateway,
    construct: (chart, id, spec) => {
      new GatewayConstruct(chart, id, { namespace: "apps", spec: spec as never, grantedInCluster: true });
      return true;
    },
  },
  {
    definition: CLICKHOUSE_CLUSTER_DEFINITION,
    cluster: false,
    bases: KIND_SAMPLES.ClickHouseCluster,
    construct: (chart, id, spec) => {
      new ClickHouseClusterConstruct(chart, id, { namespace: "apps", spec: spec as never, grantedInCluster: true });
      return true;
    },
  },
  {
    definition: MONGO_CLUSTER_DEFINITION,
    cluster: false,
    bases: KIND_SAMPLES.MongoCluster,
    construct: (chart, id, spec) => {
      new MongoClusterConstruct(chart, id, { namespace: "apps", spec: spec as never, grantedInCluster: true });
      return true;
    },
  },
  {
    definition: SECRETS_MANAGEMENT_DEFINITION,
    cluster: false,
    bases: KIND_SAMPLES.SecretsManagement,
    construct: (chart, id, spec) => {
      new SecretsManagementConstruct(chart, id, { namespace: "apps", spec: spec as never });
      return true;
    },
  },
  {
    definition: REFERENCE_GRANT_DEFINITION,
    cluster: false,
    bases: KIND_SAMPLES.ReferenceGrant,
    construct: (chart, id, spec) => {
      new ReferenceGrantConstruct(chart, id, { namespace: "data", spec: spec as never });
      return true;
    },
  },
  {
    definition: LICENSE_DEFINITION as typeof POSTGRES_CLUSTER_DEFINITION,
    cluster: true,
    bases: KIND_SAMPLES.License,
    // The construct takes the token alone: a field beside it cannot be written.
    construct: (chart, id, spec, malformed) => {
      if (malformed.unknownField) return false;
      new NaviqueLicense(chart, id, { token: spec.token as string });
      return true;
    },
  },
];

/** The cases, the same every run: CASES_PER_BREAKAGE of each way to break each field of each kind, distinct. */
function cases(): MalformedSpec[] {
  const all = KINDS.flatMap(({ definition, bases }) =>
    malformedSpecs(definition.kind, definition.spec, bases).flatMap((breakage) =>
      fc.sample(breakage, { seed: SEED, numRuns: CASES_PER_BREAKAGE }),
    ),
  );
  return [
    ...new Map(all.map((malformed) => [`${malformed.what}|${JSON.stringify(malformed.spec)}`, malformed])).values(),
  ];
}

const kindOf = (malformed: MalformedSpec) => KINDS.find((k) => k.definition.kind === malformed.kind) as FuzzedKind;
const nameOf = (malformed: MalformedSpec, index: number) =>
  kindOf(malformed).cluster ? LICENSE_NAME : `fuzz-${index}`;

/** What a front end said of each case: its refusal's text, or undefined when it accepted it. */
type Verdicts = Map<number, string | undefined>;

/** Each malformed spec in the real apiserver, against the CRDs generated from the schemas: a dry-run create. */
async function apiserverVerdicts(
  client: KubeClient,
  namespace: string,
  all: readonly MalformedSpec[],
): Promise<Verdicts> {
  const verdicts: Verdicts = new Map();
  for (const [index, malformed] of all.entries()) {
    const { definition, cluster } = kindOf(malformed);
    const body = {
      apiVersion: `${API_GROUP}/${API_VERSION}`,
      kind: definition.kind,
      metadata: { name: nameOf(malformed, index), ...(cluster ? {} : { namespace }) },
      spec: malformed.spec,
    };
    // What kubectl sends: a field the schema does not declare is an error (--validate=strict), not pruned.
    const common = {
      group: API_GROUP,
      version: API_VERSION,
      plural: definition.plural,
      body,
      dryRun: "All",
      fieldValidation: "Strict",
    };
    const outcome = await (cluster
      ? client.custom.createClusterCustomObject(common)
      : client.custom.createNamespacedCustomObject({ ...common, namespace })
    ).then(
      () => undefined,
      (error: unknown) => String((error as { body?: unknown }).body ?? error),
    );
    verdicts.set(index, outcome);
  }
  return verdicts;
}

/** `navique plan` on one file holding every case, run once: its exit code and what it said of each document. */
async function planVerdicts(work: string, namespace: string, all: readonly MalformedSpec[]) {
  const file = join(work, "malformed.yaml");
  const documents = all.map((malformed, index) => {
    const { definition, cluster } = kindOf(malformed);
    return stringify(
      {
        apiVersion: `${API_GROUP}/${API_VERSION}`,
        kind: definition.kind,
        metadata: { name: nameOf(malformed, index), ...(cluster ? {} : { namespace }) },
        spec: malformed.spec,
        // A list grown past its bound repeats one item: written out, not as YAML aliases, of which the
        // parser allows 100 (a bound on alias expansion).
      },
      { aliasDuplicateObjects: false },
    );
  });
  await writeFile(file, documents.join("---\n"));
  const plan = await runUnchecked(TSX, [
    CLI,
    "plan",
    "-f",
    file,
    "--kubeconfig",
    process.env.NAVIQUE_TEST_KUBECONFIG ?? "",
  ]);
  const verdicts: Verdicts = new Map();
  const text = `${plan.stdout}\n${plan.stderr}`;
  for (const [index] of all.entries()) {
    // `malformed.yaml document N (line L) is invalid:` then its problems, each on a line of its own.
    const header = new RegExp(`malformed\\.yaml document ${index + 1} \\(line \\d+\\) is invalid:\\n((?:  .*\\n?)*)`);
    verdicts.set(index, header.exec(text)?.[1]);
  }
  return { code: plan.code, text, verdicts };
}

/** The Pulumi components' verdicts: one `pulumi preview` of the fuzz program, each case a plain value. */
async function pulumiVerdicts(work: string, env: NodeJS.ProcessEnv, all: readonly MalformedSpec[]): Promise<Verdicts> {
  const casesFile = join(work, "pulumi-cases.json");
  const verdictsFile = join(work, "pulumi-verdicts.json");
  const judged = [...all.entries()].filter(([, malformed]) => judgedByPulumi(malformed));
  await writeFile(
    casesFile,
    JSON.stringify(judged.map(([index, malformed]) => ({ index, kind: malformed.kind, spec: malformed.spec }))),
  );
  await run("pulumi", ["preview", "--non-interactive"], {
    cwd: PULUMI_PROGRAM,
    env: { ...env, NAVIQUE_TEST_FUZZ_CASES: casesFile, NAVIQUE_TEST_FUZZ_VERDICTS: verdictsFile },
  });
  const written = JSON.parse(await readFile(verdictsFile, "utf8")) as Record<string, string | null>;
  return new Map(judged.map(([index]) => [index, written[index] ?? undefined]));
}

/**
 * What `pulumi preview` printed on each component (`  <type> (<name>):` then its diagnostics, indented),
 * by the component's name.
 */
function diagnosticsByResource(output: string): Map<string, string> {
  const byResource = new Map<string, string>();
  const headers = [...output.matchAll(/^ {2}\S+ \((\S+)\):$/gm)];
  for (const [i, header] of headers.entries()) {
    const end = headers[i + 1]?.index ?? output.length;
    const name = header[1] ?? "";
    byResource.set(name, `${byResource.get(name) ?? ""}${output.slice((header.index ?? 0) + header[0].length, end)}`);
  }
  return byResource;
}

/** Each case as its construct in an app of its own, synthesized: cdk8s's collected problems, or undefined. */
function constructVerdicts(all: readonly MalformedSpec[]): Verdicts {
  const verdicts: Verdicts = new Map();
  for (const [index, malformed] of all.entries()) {
    const chart = new Chart(new App({ outdir: join(tmpdir(), "navique-fuzz-never-written") }), "fuzz");
    if (!kindOf(malformed).construct(chart, `fuzz-${index}`, malformed.spec, malformed)) continue;
    try {
      App.of(chart).synthYaml();
      verdicts.set(index, undefined);
    } catch (error) {
      verdicts.set(index, (error as Error).message);
    }
  }
  return verdicts;
}

describe("malformed specs generated from the schemas, refused alike by every front end", () => {
  let client: KubeClient;
  let namespace = "";
  let work = "";
  let unlock: (() => Promise<void>) | undefined;
  let pulumiEnv: NodeJS.ProcessEnv = {};
  const all = cases();

  beforeAll(async () => {
    // The CRDs are cluster-wide: this suite's, generated from these schemas, stay applied while it runs.
    unlock = await lockCapabilities();
    client = testClient();
    await ensureNaviqueCrds(client);
    namespace = (await createTestNamespace("malformed")).name;
    work = await mkdtemp(join(tmpdir(), "navique-malformed-"));
    const environment = await pulumiEnvironment({ stateDir: join(work, "state"), passphrase: "fuzz" });
    pulumiEnv = {
      ...environment.env,
      KUBECONFIG: process.env.NAVIQUE_TEST_KUBECONFIG,
      NAVIQUE_TEST_NAMESPACE: namespace,
      ...TYPESCRIPT_SOURCES_ENV,
    };
    // A salt left beside the program by a run with another passphrase would refuse this one.
    await rm(join(PULUMI_PROGRAM, "Pulumi.fuzz.yaml"), { force: true });
    await run("pulumi", ["stack", "init", "fuzz", "--non-interactive"], { cwd: PULUMI_PROGRAM, env: pulumiEnv });
  }, CAPABILITY_SUITE_SETUP_MS);

  afterAll(async () => {
    if (namespace) await discardNamespace(client, namespace);
    if (work) await rm(work, { recursive: true, force: true });
    await rm(join(PULUMI_PROGRAM, "Pulumi.fuzz.yaml"), { force: true });
    await unlock?.();
  });

  it("reports each case arriving through an output on its component, in one message, all in one preview", async () => {
    // One case per field broken, the kinds in turn, to bound the preview's time: what matters is that
    // every component of a run is refused, each on its own, and that the run ends.
    const byKind = new Map<string, { index: number; malformed: MalformedSpec }[]>();
    const fields = new Set<string>();
    for (const [index, malformed] of all.entries()) {
      if (!judgedByPulumi(malformed) || fields.has(`${malformed.kind} ${malformed.field}`)) continue;
      fields.add(`${malformed.kind} ${malformed.field}`);
      byKind.set(malformed.kind, [...(byKind.get(malformed.kind) ?? []), { index, malformed }]);
    }
    const turns = Math.max(...[...byKind.values()].map((cases) => cases.length));
    const sample = Array.from({ length: turns }, (_, turn) => [...byKind.values()].flatMap((c) => c[turn] ?? []))
      .flat()
      .slice(0, OUTPUT_CASES);
    expect(new Set(sample.map(({ malformed }) => malformed.kind)).size).toBe(byKind.size);
    const casesFile = join(work, "pulumi-output-cases.json");
    await writeFile(
      casesFile,
      JSON.stringify(sample.map(({ index, malformed }) => ({ index, kind: malformed.kind, spec: malformed.spec }))),
    );
    const preview = await runUnchecked("pulumi", ["preview", "--non-interactive"], {
      cwd: PULUMI_PROGRAM,
      env: { ...pulumiEnv, NAVIQUE_TEST_FUZZ_CASES: casesFile, NAVIQUE_TEST_FUZZ_THROUGH_OUTPUTS: "1" },
    });
    const output = `${preview.stdout}\n${preview.stderr}`;
    expect(preview.code).not.toBe(0);
    const diagnostics = diagnosticsByResource(output);
    const wrong = sample.flatMap(({ index, malformed }) => {
      const said = diagnostics.get(`fuzz-${index}`) ?? "";
      const refusals = said.split(`${malformed.kind} fuzz-${index} is invalid:`).length - 1;
      return refusals === 1 && said.includes(malformed.field)
        ? []
        : [`${malformed.kind} ${malformed.what}: ${refusals} refusal(s) on fuzz-${index}: ${said.slice(0, 300)}`];
    });
    expect(wrong).toEqual([]);
    expect(output).not.toMatch(/\n\s+at .*\.(js|ts):\d+/);
    expect(output).not.toContain("unhandled exception");
  });

  it("leaves no string of any kind's spec unbounded or free of a pattern", () => {
    for (const { definition } of KINDS)
      expect([definition.kind, unjudgedStrings(definition.spec)]).toEqual([definition.kind, []]);
  });

  it("generates cases of every kind, each breaking one field", () => {
    const kinds = new Set(all.map((malformed) => malformed.kind));
    expect([...kinds].sort()).toEqual(KINDS.map((k) => k.definition.kind).sort());
    expect(all.length).toBeGreaterThanOrEqual(KINDS.length * 10);
  });

  it("is refused by the apiserver, navique plan, the Pulumi components and the cdk8s constructs, each naming the field", async () => {
    const apiserver = await apiserverVerdicts(client, namespace, all);
    const plan = await planVerdicts(work, namespace, all);
    const components = await pulumiVerdicts(work, pulumiEnv, all);
    const constructs = constructVerdicts(all);
    // Every kind with a component had its cases judged by it.
    const componentKinds = new Set([...components.keys()].map((index) => all[index]?.kind));
    expect([...componentKinds].sort()).toEqual(
      KINDS.map((k) => k.definition.kind)
        .filter((kind) => !NO_PULUMI_COMPONENT.has(kind))
        .sort(),
    );
    // A refusal fails the plan as a CI gate (docs/plan.md).
    expect(plan.code).toBe(1);
    const frontEnds: Record<string, Verdicts> = {
      apiserver,
      plan: plan.verdicts,
      component: components,
      construct: constructs,
    };
    const disagreements: string[] = [];
    for (const [index, malformed] of all.entries()) {
      // A front end with no verdict for a case cannot carry it (no component for the kind, a prop it lacks).
      for (const [frontEnd, verdicts] of Object.entries(frontEnds).filter(([, v]) => v.has(index))) {
        const verdict = verdicts.get(index);
        if (verdict === undefined) disagreements.push(`${malformed.kind} ${malformed.what}: accepted by ${frontEnd}`);
        else if (!verdict.includes(malformed.field))
          disagreements.push(
            `${malformed.kind} ${malformed.what}: ${frontEnd} does not name ${malformed.field}: ${verdict.slice(0, 400)}`,
          );
      }
    }
    expect(disagreements).toEqual([]);
  });
});
