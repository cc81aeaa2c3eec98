import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { API_GROUP, API_VERSION } from "../../lib/api/group.js";
import { type KubeClient, orUndefined } from "../../lib/cluster/kube-client.js";
import { run, runUnchecked } from "../../lib/cluster/process.js";
import { pulumiEnvironment } from "../../lib/local-plane/pulumi-environment.js";
import { createReconcileContext, type ReconcileContext } from "../../lib/reconcile/context.js";
import {
  CAPABILITY_SUITE_SETUP_MS,
  FIXTURE_CHARTS,
  FIXTURE_SOURCE,
  lockCapabilities,
  resetCapabilities,
  testClient,
  testHelm,
} from "../support/capabilities.js";
import { eventually } from "../support/cluster.js";
import { discardNamespace, suiteNamespaces } from "../support/namespace-content.js";
import { createConnectionSecret, readPostgresCluster } from "../support/postgres.js";
import { REPOSITORY } from "../support/repository.js";
import { finalizeEveryKind, reconcileUntil } from "../support/resources.js";
import { TYPESCRIPT_SOURCES_ENV } from "../support/typescript-sources.js";
import { deleteProvisionedVolumes, provisionVolume } from "../support/volumes.js";

const PROGRAM = join(REPOSITORY, "test", "fixtures", "pulumi", "refresh-program");

/** What the volume this suite provisions is labelled with. */
const SUITE = "pulumi-refresh";

/** The state's outputs of one dynamic resource, by its name. */
function outputsOf(state: string, name: string): Record<string, unknown> | undefined {
  const resources = (JSON.parse(state) as { deployment: { resources?: { urn: string; outputs?: object }[] } })
    .deployment.resources;
  return resources?.find((r) => r.urn.endsWith(`$pulumi-nodejs:dynamic/navique:PostgresCluster::${name}`))?.outputs as
    | Record<string, unknown>
    | undefined;
}

// What users of pulumi-kubernetes expect of a Pulumi component, through the real pulumi CLI and engine,
// the TypeScript program test/fixtures/pulumi/refresh-program run from the sources, the dynamic provider
// in its own process, the Kubernetes resource plugin for the program's own Secret and Namespace, a local
// file backend, workload charts from the fixture mirror. No storage provisioner runs: the test binds the
// MeilisearchInstance's claim to a volume as one would (test/support/volumes.ts).
// Two PostgresClusters and two RedisInstances count against the cluster-wide Community caps: the lock.
describe("Pulumi components as pulumi-kubernetes users expect them", () => {
  let client: KubeClient;
  let context: ReconcileContext | undefined;
  let unlock: (() => Promise<void>) | undefined;
  let work = "";
  let env: NodeJS.ProcessEnv = {};
  let namespace = "";
  const suffix = randomBytes(3).toString("hex");
  /** Namespaces no one made before the program: its RedisInstances create them. */
  const kept = `refresh-kept-${suffix}`;
  const emptied = `refresh-emptied-${suffix}`;
  /** The program's own Namespace resource: its MeilisearchInstance is there, under deletionPolicy Retain. */
  const own = `refresh-own-${suffix}`;
  const namespaces = suiteNamespaces();

  const pulumi = async (args: readonly string[], extra: NodeJS.ProcessEnv = {}) =>
    (await run("pulumi", [...args, "--non-interactive"], { cwd: PROGRAM, env: { ...env, ...extra } })).stdout;

  /** Plays External Secrets: the RedisInstances' connection Secret, once their namespace exists. */
  const redisSecretOnceThere = (ns: string) =>
    eventually(
      `namespace ${ns} made by its RedisInstance`,
      async () => {
        if (!(await orUndefined(client.core.readNamespace({ name: ns })))) return undefined;
        await client.core.createNamespacedSecret({
          namespace: ns,
          body: { metadata: { name: "redis-conn" }, stringData: { host: `redis.${ns}.internal`, password: "pw" } },
        });
        return true;
      },
      { timeoutMs: 120_000 },
    );

  beforeAll(async () => {
    unlock = await lockCapabilities();
    client = testClient();
    const helm = await testHelm();
    // PostgresClusters left by a run that died count against the Community cap: finalized first.
    await resetCapabilities(client, helm, [], { crds: false });
    context = createReconcileContext({ client, helm, source: FIXTURE_SOURCE });
    namespace = await namespaces.create("refresh");
    await createConnectionSecret(client, namespace);
    // Bound to the claim the MeilisearchInstance will make, once there (its claimRef names it).
    await provisionVolume(client, SUITE, own, "search-data");
    await client.core.createNamespacedSecret({
      namespace,
      body: { metadata: { name: "pg-other" }, stringData: { host: "other.internal", username: "o", password: "po" } },
    });
    work = await mkdtemp(join(tmpdir(), "navique-refresh-"));
    const environment = await pulumiEnvironment({ stateDir: join(work, "state"), passphrase: "refresh" });
    env = {
      ...environment.env,
      KUBECONFIG: process.env.NAVIQUE_TEST_KUBECONFIG,
      NAVIQUE_TEST_NAMESPACE: namespace,
      NAVIQUE_TEST_NEW_NAMESPACE_A: kept,
      NAVIQUE_TEST_NEW_NAMESPACE_B: emptied,
      NAVIQUE_TEST_PROGRAM_NAMESPACE: own,
      NAVIQUE_CHART_SOURCE: `dir:${FIXTURE_CHARTS}`,
      ...TYPESCRIPT_SOURCES_ENV,
    };
    // A salt left beside the program by a run with another passphrase would refuse this one.
    await rm(join(PROGRAM, "Pulumi.refresh.yaml"), { force: true });
    await pulumi(["stack", "init", "refresh"]);
  }, CAPABILITY_SUITE_SETUP_MS);

  afterAll(async () => {
    if (context) {
      for (const ns of [kept, emptied, own]) {
        if (!(await orUndefined(client.core.readNamespace({ name: ns })))) continue;
        await finalizeEveryKind(context, ns);
        await discardNamespace(client, ns);
      }
      await namespaces.discard(context);
    }
    await rm(join(PROGRAM, "Pulumi.refresh.yaml"), { force: true });
    if (client) await deleteProvisionedVolumes(client, SUITE);
    if (work) await rm(work, { recursive: true, force: true });
    await unlock?.();
  });

  it("preview: the Secret the program creates is waited for, not reported missing; what Retain would keep in the program's own Namespace is warned of; a bad value arriving through an output is one message on its component", async () => {
    const preview = await pulumi(["preview"]);
    expect(preview).toContain(
      `PostgresCluster ${namespace}/made-db: decided once Secret ${namespace}/made-here exists: the same run creates it first`,
    );
    expect(preview).not.toContain("made-here (spec.external.connectionSecretRef) does not exist");
    // Its namespace a Namespace resource of the program: what Retain would keep there is warned of.
    expect(preview).toContain(
      `warning: MeilisearchInstance ${own}/search: deletionPolicy Retain keeps PersistentVolumeClaim ${own}/search-data when it is deleted, but not when its namespace is: namespace ${own} is a Namespace resource of this program, which \`pulumi destroy\` deletes after it: deleting it deletes everything in it, the data on the volumes of its claims included unless their PersistentVolumes' reclaim policy is Retain. If the data must outlive it, give that Namespace resource the option retainOnDelete: true, and Pulumi leaves it in the cluster`,
    );
    expect(preview).toContain(
      `PostgresCluster ${namespace}/db: create it, nothing else: Secret ${namespace}/pg holds host, username and password: consumers are sent to pg.internal:5432 (no port key: 5432), which the product does not contact`,
    );

    const bad = await runUnchecked("pulumi", ["preview", "--non-interactive"], {
      cwd: PROGRAM,
      env: { ...env, NAVIQUE_TEST_BAD_OUTPUT: "1" },
    });
    const output = `${bad.stdout}\n${bad.stderr}`;
    expect(bad.code).not.toBe(0);
    expect(output).toContain("navique:index:PostgresCluster (bad):\n    error: PostgresCluster bad is invalid:");
    expect(output).toContain("- namespace: must be a lowercase RFC 1123 label");
    expect(output.split("- namespace: must be a lowercase RFC 1123 label").length).toBe(2);
    expect(output).not.toMatch(/\n\s+at .*\.(js|ts):\d+/);
    expect(output).not.toContain("unhandled exception");
  });

  it("up: every component Ready, the program's Secret made first, the namespaces no one made created", async () => {
    const up = pulumi(["up", "--yes", "--skip-preview"]);
    await Promise.all([redisSecretOnceThere(kept), redisSecretOnceThere(emptied)]);
    await up;
    expect(JSON.parse(await pulumi(["stack", "output", "--json"]))).toEqual({
      host: "pg.internal",
      madeHost: "made.internal",
    });
  });

  it("a no-op preview prints no decision line", async () => {
    const preview = await pulumi(["preview", "--expect-no-changes"]);
    for (const subject of [
      `${namespace}/db`,
      `${namespace}/made-db`,
      `${kept}/cache-kept`,
      `${emptied}/cache-emptied`,
      `${own}/search`,
    ]) {
      expect(preview).not.toContain(subject);
    }
    expect(preview).toContain("unchanged");
  });

  it("refresh brings back the live spec and outputs after drift; the next preview shows the change, up writes the program's spec back", async () => {
    // Drift, as `kubectl patch` makes it: another connection Secret; then the operator's pass writes the
    // status from it (reconciled here in-process, as the operator would).
    await client.custom.patchNamespacedCustomObject(
      {
        group: API_GROUP,
        version: API_VERSION,
        plural: "postgresclusters",
        namespace,
        name: "db",
        // As `kubectl patch --type json` sends it.
        body: [{ op: "replace", path: "/spec/external/connectionSecretRef/name", value: "pg-other" }],
      },
      undefined,
    );
    await reconcileUntil(
      context as ReconcileContext,
      "PostgresCluster",
      namespace,
      "db",
      (_o, resource) => (resource.status as { host?: string } | undefined)?.host === "other.internal",
    );

    // Before the refresh the state knows nothing of it: Pulumi sees no change (the engine's line, which
    // plans against the live object, names it already).
    const change = `PostgresCluster ${namespace}/db: change spec.external.connectionSecretRef.name from "pg-other" to "pg"`;
    expect(await pulumi(["preview", "--expect-no-changes"])).toContain(change);
    const refresh = await pulumi(["refresh", "--yes", "--skip-preview"]);
    expect(refresh).toMatch(/~ +pulumi-nodejs:dynamic\/navique:PostgresCluster +db +updated/);
    const state = await pulumi(["stack", "export"]);
    expect(outputsOf(state, "db")).toMatchObject({
      spec: { mode: "external", external: { connectionSecretRef: { name: "pg-other" } } },
      host: "other.internal",
    });
    expect(outputsOf(state, "made-db")).toMatchObject({ host: "made.internal" });
    // The password refreshed stays a secret in the state.
    expect(state).not.toContain('"po"');
    expect(state).not.toContain("made-password");

    // Pulumi's diff, from the refreshed state; the engine's line in the preview's diagnostics (which
    // `--diff` output does not always list).
    const diff = await pulumi(["preview", "--diff"]);
    expect(diff).toMatch(/~ +pulumi-nodejs:dynamic\/navique:PostgresCluster: \(update\)/);
    expect(diff).toContain('~ name: "pg-other" => "pg"');
    expect(await pulumi(["preview"])).toContain(change);

    await pulumi(["up", "--yes", "--skip-preview"]);
    const live = await readPostgresCluster(client, namespace, "db");
    expect(live?.spec.external?.connectionSecretRef.name).toBe("pg");
    expect(live?.status?.host).toBe("pg.internal");
    expect(JSON.parse(await pulumi(["stack", "output", "--json"]))).toMatchObject({ host: "pg.internal" });
  });

  it("destroy deletes a namespace a component created once nothing is left in it, says why it leaves the other, never touches one it found; warns of what Retain kept in the program's own Namespace, which it deletes next", async () => {
    // The user's Secret taken out of one of them: nothing left there after the destroy.
    await client.core.deleteNamespacedSecret({ name: "redis-conn", namespace: emptied });
    const destroy = await pulumi(["destroy", "--yes", "--skip-preview"]);
    expect(destroy).toContain(
      `RedisInstance ${emptied}/cache-emptied: namespace ${emptied}, which its create made, deleted`,
    );
    expect(destroy).toContain(
      `RedisInstance ${kept}/cache-kept: namespace ${kept}, which its create made, is left: it still holds Secret ${kept}/redis-conn`,
    );
    const gone = await orUndefined(client.core.readNamespace({ name: emptied }));
    expect(gone === undefined || gone.metadata?.deletionTimestamp !== undefined).toBe(true);
    expect((await client.core.readNamespace({ name: kept })).metadata?.deletionTimestamp).toBeUndefined();
    // The program's own Namespace goes after its MeilisearchInstance, and what Retain kept there with it:
    // said as warnings, what Retain kept and where, then what the namespace takes with it.
    expect(destroy).toContain(
      `warning: MeilisearchInstance ${own}/search: PersistentVolumeClaim ${own}/search-data may hold data and was kept (deletionPolicy Retain) (MeilisearchInstance ${own}/search deleted), with its master key Secret ${own}/search-master-key; they are released to you and no longer managed: dump its data and delete them yourself when safe. Deleting namespace ${own} deletes them all the same, and the data on their volumes unless their PersistentVolumes' reclaim policy is Retain`,
    );
    expect(destroy).toContain(
      `warning: MeilisearchInstance ${own}/search: namespace ${own} is a Namespace resource of this program: this destroy deletes it next, and with it `,
    );
    const next = destroy.slice(destroy.indexOf(`namespace ${own} is a Namespace resource of this program`));
    expect(next).toMatch(/^[^\n]*Secret \S+\/search-master-key/);
    expect(next).toMatch(/^[^\n]*PersistentVolumeClaim \S+\/search-data/);
    expect(next).toMatch(/^[^\n]*To keep the namespace, give that Namespace resource the option retainOnDelete: true/);
    expect(next).toMatch(/^[^\n]*kubectl patch pv VOLUME/);
    const ownGone = await orUndefined(client.core.readNamespace({ name: own }));
    expect(ownGone === undefined || ownGone.metadata?.deletionTimestamp !== undefined).toBe(true);
    // The test's own namespace, which the program found, stays with the user's Secrets.
    expect((await client.core.readNamespace({ name: namespace })).metadata?.deletionTimestamp).toBeUndefined();
    expect(await readPostgresCluster(client, namespace, "db")).toBeUndefined();
  });
});
