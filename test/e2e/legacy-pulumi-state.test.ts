import { readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { FINALIZER } from "../../lib/api/group.js";
import type { KubeClient } from "../../lib/cluster/kube-client.js";
import { run } from "../../lib/cluster/process.js";
import { pulumiEnvironment } from "../../lib/local-plane/pulumi-environment.js";
import { toolchainPaths } from "../../lib/local-plane/toolchain-paths.js";
import { createReconcileContext } from "../../lib/reconcile/context.js";
import {
  CAPABILITY_SUITE_SETUP_MS,
  FIXTURE_SOURCE,
  lockCapabilities,
  resetCapabilities,
  testClient,
  testHelm,
} from "../support/capabilities.js";
import { condition, createTestNamespace } from "../support/cluster.js";
import {
  dynamicResources,
  SERIALIZED_PROVIDER_KEY,
  type StateResource,
  withValues,
} from "../support/legacy-pulumi-state.js";
import { createConnectionSecret, finalizePostgresClusters, readPostgresCluster } from "../support/postgres.js";
import { REPOSITORY } from "../support/repository.js";
import { TYPESCRIPT_SOURCES_ENV } from "../support/typescript-sources.js";

const PROGRAM = join(REPOSITORY, "test", "fixtures", "pulumi", "legacy-program");
const RECORDED = join(REPOSITORY, "test", "fixtures", "pulumi", "legacy-state", "postgres-cluster.json");
const RUN_RECORDED_PROVIDER = join(REPOSITORY, "test", "support", "run-recorded-provider.ts");
/** The passphrase the recorded state's secrets are encrypted with (its README). */
const PASSPHRASE = "legacy-state-passphrase";

/** The URNs of the recorded stack: each PostgresCluster is a component and its dynamic resource. */
const componentUrn = (name: string) => `urn:pulumi:legacy::legacy-program::navique:index:PostgresCluster::${name}`;
const dynamicUrn = (name: string) =>
  `urn:pulumi:legacy::legacy-program::navique:index:PostgresCluster$pulumi-nodejs:dynamic/navique:PostgresCluster::${name}`;
/** Kept by the program (and updated); removed from it. */
const KEPT = "legacy-db";
const DROPPED = "legacy-dropped";

interface Step {
  readonly op: string;
  readonly urn: string;
}

/** What `pulumi preview --json` prints: one document. */
interface PreviewReport {
  readonly steps: readonly Step[];
  readonly changeSummary: Readonly<Record<string, number>>;
  readonly diagnostics: readonly { readonly urn?: string; readonly message: string; readonly severity: string }[];
}

/** A step as an engine event describes it: with the state it starts from, as the provider is handed it. */
interface StepEvent extends Step {
  readonly old?: { readonly outputs?: Record<string, unknown> };
}

/**
 * What `pulumi up --json` prints, one engine event a line: each step as it starts, the steps that
 * completed, and the summary.
 */
function upReport(stdout: string): {
  started: StepEvent[];
  completed: Step[];
  result?: string;
  resourceChanges?: Record<string, number>;
} {
  const events = stdout
    .trim()
    .split("\n")
    .map(
      (line) =>
        JSON.parse(line) as {
          resourcePreEvent?: { metadata: StepEvent };
          resOutputsEvent?: { metadata: Step };
          summaryEvent?: { result: string; resourceChanges: Record<string, number> };
        },
    );
  const summary = events.find((event) => event.summaryEvent)?.summaryEvent;
  return {
    started: events.flatMap((event) => (event.resourcePreEvent ? [event.resourcePreEvent.metadata] : [])),
    completed: events.flatMap((event) => (event.resOutputsEvent ? [event.resOutputsEvent.metadata] : [])),
    ...(summary ? { result: summary.result, resourceChanges: summary.resourceChanges } : {}),
  };
}

function dynamicResource(state: unknown, name: string): StateResource & { readonly created?: string } {
  const found = dynamicResources(state).find((resource) => resource.urn === dynamicUrn(name));
  if (!found) throw new Error(`the state has no ${dynamicUrn(name)}`);
  return found;
}

function withoutSecrets(resource: StateResource): Record<string, unknown> {
  const hidden = new Set([...(resource.additionalSecretOutputs ?? []), SERIALIZED_PROVIDER_KEY]);
  return Object.fromEntries(Object.entries(resource.outputs ?? {}).filter(([key]) => !hidden.has(key)));
}

/** In URN order, to compare lists whatever order the engine or the state had them in. */
function inUrnOrder<T extends { readonly urn: string }>(items: readonly T[]): T[] {
  return [...items].sort((a, b) => (a.urn < b.urn ? -1 : a.urn > b.urn ? 1 : 0));
}

/** The steps that change something, in URN order. */
function changes(steps: readonly Step[]): Step[] {
  return inUrnOrder(steps.filter((step) => step.op !== "same").map(({ op, urn }) => ({ op, urn })));
}

// The compatibility promise of the Pulumi front end: a stack that an earlier version created keeps
// working with the code of today. The state is one that version made (test/fixtures/pulumi/legacy-state,
// README there), with this run's clone, kubeconfig, helm and namespace put in; the cluster objects it
// records are made by its own serialized provider, as the `up` that recorded it made them; then the real
// pulumi CLI and engine, with the program of today, preview it, update one resource, drop the other from
// the program and destroy the rest. PostgresClusters count against the cluster-wide Community cap that
// other suites assert on, hence the capability lock.
describe("a Pulumi stack recorded by an earlier version", () => {
  let client: KubeClient;
  let helm = "";
  let unlock: (() => Promise<void>) | undefined;
  let work = "";
  let namespace: Awaited<ReturnType<typeof createTestNamespace>> | undefined;
  const ns = () => namespace?.name ?? "";
  /** The recorded state with this run's values, as imported. */
  let recorded: unknown;
  /** What the recorded providers' create returned, per resource (secret outputs left out). */
  let realized: { urn: string; id: string; outputs: Record<string, unknown> }[] = [];
  let env: NodeJS.ProcessEnv = {};

  /** The real pulumi CLI on the imported stack with the program of today; `extra` adds to its environment. */
  const pulumi = async (args: readonly string[], extra: NodeJS.ProcessEnv = {}) =>
    (await run("pulumi", [...args, "--non-interactive"], { cwd: PROGRAM, env: { ...env, ...extra } })).stdout;

  // A file backend of its own holding the recorded stack `legacy`; a new namespace with the connection
  // Secret the state's resources read; and the cluster objects the state says exist, made by its provider.
  beforeAll(async () => {
    unlock = await lockCapabilities();
    client = testClient();
    helm = (await toolchainPaths()).helm;
    // PostgresClusters and Stacks left by a run that died count against the Community cap, which the two
    // recorded PostgresClusters fill: finalized first (with no capability named, that is all it does).
    await resetCapabilities(client, await testHelm(), [], { crds: false });
    work = await mkdtemp(join(tmpdir(), "navique-legacy-state-"));
    namespace = await createTestNamespace("legacy-pulumi");
    await createConnectionSecret(client, ns());
    const kubeconfig = process.env.NAVIQUE_TEST_KUBECONFIG ?? "";
    recorded = withValues(JSON.parse(readFileSync(RECORDED, "utf8")), {
      repoRoot: REPOSITORY,
      kubeconfig,
      helm,
      namespace: ns(),
    });
    const stateFile = join(work, "state.json");
    await writeFile(stateFile, JSON.stringify(recorded));

    const environment = await pulumiEnvironment({ stateDir: join(work, "backend"), passphrase: PASSPHRASE });
    env = { ...environment.env, KUBECONFIG: kubeconfig, NAVIQUE_TEST_NAMESPACE: ns(), ...TYPESCRIPT_SOURCES_ENV };
    // The stack settings beside the program hold a salt for the passphrase: one left by a run with another
    // passphrase would refuse this one.
    await rm(join(PROGRAM, "Pulumi.legacy.yaml"), { force: true });
    await pulumi(["stack", "init", "legacy"]);
    await pulumi(["stack", "import", "--file", stateFile]);

    const { stdout } = await run(process.execPath, [RUN_RECORDED_PROVIDER, stateFile], {
      env: { ...process.env, ...TYPESCRIPT_SOURCES_ENV },
    });
    realized = stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
  }, CAPABILITY_SUITE_SETUP_MS);

  afterAll(async () => {
    // A test that failed midway leaves PostgresClusters with their finalizer: finalized, the namespace can go.
    if (client && namespace) {
      const context = createReconcileContext({ client, helm: await testHelm(), source: FIXTURE_SOURCE });
      await finalizePostgresClusters(context, namespace.name);
      await namespace.cleanup();
    }
    if (work) await rm(work, { recursive: true, force: true });
    await unlock?.();
  });

  it("the recorded providers make, from the recorded inputs, the recorded outputs: Ready PostgresClusters with the finalizer", async () => {
    expect(inUrnOrder(realized)).toEqual(
      inUrnOrder(
        [KEPT, DROPPED].map((name) => ({
          urn: dynamicUrn(name),
          id: `${ns()}/${name}`,
          outputs: withoutSecrets(dynamicResource(recorded, name)),
        })),
      ),
    );
    for (const name of [KEPT, DROPPED]) {
      const resource = await readPostgresCluster(client, ns(), name);
      expect(resource?.metadata.finalizers).toEqual([FINALIZER]);
      expect(resource?.status?.host).toBe("pg.internal");
      expect(condition(resource, "Ready")?.status).toBe("True");
    }
    // The import kept each serialized provider as recorded: the earlier version's, importing the runtime of this clone.
    const imported = JSON.parse(await pulumi(["stack", "export"]));
    const runtimeUrl = pathToFileURL(join(REPOSITORY, "providers", "pulumi", "runtime.js")).href;
    for (const name of [KEPT, DROPPED]) {
      const provider = dynamicResource(recorded, name).inputs?.[SERIALIZED_PROVIDER_KEY];
      expect(dynamicResource(imported, name).inputs?.[SERIALIZED_PROVIDER_KEY]).toBe(provider);
      expect(provider).toContain(`"${runtimeUrl}"`);
    }
  });

  it("preview: every recorded resource is the program's, none to create, replace or delete; no decision, all in place", async () => {
    const preview = JSON.parse(await pulumi(["preview", "--json"])) as PreviewReport;
    // An update is allowed (a later version may record more inputs); anything else would touch the cluster.
    expect(changes(preview.steps).filter((step) => step.op !== "update")).toEqual([]);
    expect(Object.keys(preview.changeSummary).filter((op) => op !== "same" && op !== "update")).toEqual([]);
    // The stack, two components and two dynamic resources (the summary does not count the default provider).
    expect((preview.changeSummary.same ?? 0) + (preview.changeSummary.update ?? 0)).toBe(5);
    // Both in place: no decision line at all (decisions only where something would change).
    for (const name of [KEPT, DROPPED]) {
      expect(preview.diagnostics.filter((d) => d.urn === componentUrn(name))).toEqual([]);
    }
  });

  it("up: the resource whose spec changed is updated in place; the one the program dropped is finalized by its recorded provider", async () => {
    await client.core.createNamespacedSecret({
      namespace: ns(),
      body: { metadata: { name: "pg-moved" }, stringData: { host: "pg-moved.internal", username: "u", password: "p" } },
    });
    // The program no longer declares DROPPED: the engine deletes it with the provider its state holds, the
    // earlier version's, for there is no other.
    const up = upReport(
      await pulumi(["up", "--yes", "--skip-preview", "--json"], {
        NAVIQUE_TEST_CONNECTION_SECRET: "pg-moved",
        NAVIQUE_TEST_DROP: DROPPED,
      }),
    );
    expect(up.result).toBe("succeeded");
    expect(up.resourceChanges).toEqual({ same: 2, update: 1, delete: 2 });
    expect(changes(up.completed)).toEqual(
      inUrnOrder([
        { op: "delete", urn: componentUrn(DROPPED) },
        { op: "delete", urn: dynamicUrn(DROPPED) },
        { op: "update", urn: dynamicUrn(KEPT) },
      ]),
    );
    // The delete was handed the dropped resource's state, whose serialized provider is the recorded one:
    // the Node.js provider host runs the provider found in the properties it is handed.
    const deleted = up.started.find((step) => step.op === "delete" && step.urn === dynamicUrn(DROPPED));
    expect(deleted?.old?.outputs?.[SERIALIZED_PROVIDER_KEY]).toBe(
      dynamicResource(recorded, DROPPED).outputs?.[SERIALIZED_PROVIDER_KEY],
    );
    expect(await readPostgresCluster(client, ns(), DROPPED)).toBeUndefined();

    expect(JSON.parse(await pulumi(["stack", "output", "--json"]))).toEqual({ host: "pg-moved.internal" });
    const state = JSON.parse(await pulumi(["stack", "export"]));
    const before = dynamicResource(recorded, KEPT);
    expect(dynamicResource(state, KEPT)).toMatchObject({ id: before.id, created: before.created });
    expect(dynamicResources(state).map((resource) => resource.urn)).toEqual([dynamicUrn(KEPT)]);
    const kept = await readPostgresCluster(client, ns(), KEPT);
    expect(kept?.spec.external?.connectionSecretRef.name).toBe("pg-moved");
    expect(kept?.status?.host).toBe("pg-moved.internal");
    expect(condition(kept, "Ready")?.status).toBe("True");
  });

  it("destroy finalizes the PostgresCluster left: it and its finalizer are gone, the user's Secrets stay, the stack is empty", async () => {
    const destroy = await pulumi(["destroy", "--yes", "--skip-preview"]);
    expect(destroy).toContain(`pulumi-nodejs:dynamic/navique:PostgresCluster ${KEPT} deleted`);
    expect(await readPostgresCluster(client, ns(), KEPT)).toBeUndefined();
    const secrets = await client.core.listNamespacedSecret({ namespace: ns() });
    expect(secrets.items.map((secret) => secret.metadata?.name).sort()).toEqual(["pg", "pg-moved"]);
    const state = JSON.parse(await pulumi(["stack", "export"])) as { deployment: { resources?: unknown[] } };
    expect(state.deployment.resources ?? []).toEqual([]);
  });
});
