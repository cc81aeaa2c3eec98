import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { OWNED_BY_LABEL } from "../../lib/api/group.js";
import { ensureNaviqueCrds } from "../../lib/apply/navique-crds.js";
import { CERT_MANAGER } from "../../lib/catalog/cert-manager.js";
import { CLOUDNATIVE_PG } from "../../lib/catalog/cloudnative-pg.js";
import type { HelmCli } from "../../lib/cluster/helm-cli.js";
import type { KubeClient } from "../../lib/cluster/kube-client.js";
import { run, runUnchecked } from "../../lib/cluster/process.js";
import { previewDesired } from "../../lib/engine/preview.js";
import { Stack } from "../../lib/kinds/stack/schema.js";
import { pulumiEnvironment } from "../../lib/local-plane/pulumi-environment.js";
import { toolchainPaths } from "../../lib/local-plane/toolchain-paths.js";
import { createReconcileContext } from "../../lib/reconcile/context.js";
import type { NaviqueOperator } from "../../providers/operator/operator.js";
import { destroy, up } from "../../providers/pulumi/stack-runtime.js";
import {
  CAPABILITY_SUITE_SETUP_MS,
  FIXTURE_CHARTS,
  FIXTURE_SOURCE,
  lockCapabilities,
  resetCapabilities,
  testClient,
  testHelm,
} from "../support/capabilities.js";
import { condition, createTestNamespace, eventually } from "../support/cluster.js";
import { applyLicence, removeLicence, TEST_TRUSTED_KEYS, testLicenceToken } from "../support/licence.js";
import { discardNamespace } from "../support/namespace-content.js";
import { inProcessOperator } from "../support/operator.js";
import {
  createConnectionSecret,
  createPostgresCluster,
  deletePostgresCluster,
  eventsAbout,
  playCnpgClusterReady,
  readCnpgCluster,
  readPostgresCluster,
  replaceSpec,
} from "../support/postgres.js";
import { createStack, deleteStack, readStack } from "../support/stack.js";
import { TYPESCRIPT_SOURCES_ENV } from "../support/typescript-sources.js";

const PROGRAM = join(process.cwd(), "test", "fixtures", "pulumi", "stack-program");
const HOW =
  "ask your navique account contact for a licence that includes it, then apply it as the License named `navique`";

/** No CloudNativePG pod runs here: the test plays its controller for the members' CNPG Clusters. */
function playCnpg(client: KubeClient, namespace: () => string, names: readonly string[]): NodeJS.Timeout {
  return setInterval(() => {
    void (async () => {
      for (const name of names) {
        const cluster = (await readCnpgCluster(client, namespace(), name)) as { status?: unknown } | undefined;
        if (cluster && !cluster.status) await playCnpgClusterReady(client, namespace(), name);
      }
    })().catch(() => undefined);
  }, 300);
}

// The licensed feature `stack`, enforced by the operator: skipped under Community (condition + Event,
// nothing created), admitted under a licence that has it (members created, owned, reconciled), refused
// beyond the Stack cap, and downgraded at expiry (injected clock) without touching what runs.
describe("a Stack under the operator, across the licence", () => {
  let client: KubeClient;
  let helm: HelmCli;
  let unlock: () => Promise<void>;
  let operator: NaviqueOperator;
  let playing: NodeJS.Timeout;
  let ns = "";
  let clock = new Date("2027-01-10T00:00:00Z");

  beforeAll(async () => {
    unlock = await lockCapabilities();
    client = testClient();
    helm = await testHelm();
    await ensureNaviqueCrds(client);
    await resetCapabilities(client, helm, [CLOUDNATIVE_PG, CERT_MANAGER], { crds: false });
    await removeLicence(client);
    ns = (await createTestNamespace("stack")).name;
    playing = playCnpg(client, () => ns, ["team-postgres"]);
    operator = inProcessOperator(client, helm, { now: () => clock });
    await operator.start();
  }, CAPABILITY_SUITE_SETUP_MS);

  afterAll(async () => {
    await operator?.stop();
    clearInterval(playing);
    if (ns) await discardNamespace(client, ns);
    if (helm) await resetCapabilities(client, helm, [CLOUDNATIVE_PG, CERT_MANAGER], { crds: false });
    if (client) await removeLicence(client);
    await unlock?.();
  });

  it("under Community: skipped with a condition and one Event naming the feature and how to get it; nothing created", async () => {
    await createStack(client, ns, "team");
    const skipped = await eventually("the operator to skip the Stack", async () => {
      const stack = await readStack(client, ns, "team");
      return condition(stack, "Licensed")?.status === "False" ? stack : undefined;
    });
    const message = `Stack ${ns}/team uses feature "stack", which the Community edition does not include; it is skipped. To use it, ${HOW}`;
    expect(condition(skipped, "Licensed")).toMatchObject({ reason: "FeatureNotLicensed", message });
    expect(condition(skipped, "Ready")).toMatchObject({ status: "False", reason: "FeatureNotLicensed" });
    // Several resyncs later (every 300 ms), still one Event: a refusal already reported is not repeated.
    await sleep(1_500);
    expect(await eventsAbout(client, ns, "team")).toEqual([
      { type: "Warning", reason: "FeatureNotLicensed", note: message },
    ]);
    expect(await readPostgresCluster(client, ns, "team-postgres")).toBeUndefined();
  });

  it("under a licence with `stack`: the member is created, owned, reconciled to Ready; a Stack beyond the cap is refused", async () => {
    await applyLicence(
      client,
      testLicenceToken({
        features: ["stack"],
        caps: { Stack: 1, PostgresCluster: 4 },
        notBefore: "2027-01-01T00:00:00Z",
        expiresAt: "2027-01-11T00:00:00Z",
      }),
    );
    const ready = await eventually(
      "the Stack to be Ready",
      async () => {
        const stack = await readStack(client, ns, "team");
        return condition(stack, "Ready")?.status === "True" ? stack : undefined;
      },
      { timeoutMs: 150_000 },
    );
    expect(condition(ready, "Licensed")).toMatchObject({ status: "True", message: "admitted under licence lic-test" });
    expect(ready?.status?.members).toEqual([
      { kind: "PostgresCluster", name: "team-postgres", namespace: ns, ready: true },
    ]);

    const member = await readPostgresCluster(client, ns, "team-postgres");
    expect(member?.metadata.labels?.[OWNED_BY_LABEL]).toBe(`stack.${ns}.team`);
    expect((member?.metadata as { ownerReferences?: unknown[] } | undefined)?.ownerReferences).toEqual([
      expect.objectContaining({ kind: "Stack", name: "team", uid: ready?.metadata.uid, controller: true }),
    ]);
    expect(member?.spec.databases).toEqual([{ name: "litellm" }, { name: "langfuse" }]);
    expect(condition(member, "Ready")?.status).toBe("True");

    // A member edited by hand is put back by its Stack (the member's change wakes the Stack up): what the
    // Stack sets is restored; what someone added beside it (an extra database) is theirs and stays.
    await replaceSpec(client, ns, "team-postgres", {
      mode: "managed",
      managed: { instances: 3 },
      databases: [{ name: "other" }],
    });
    const restored = await eventually("the Stack to restore its member's spec", async () => {
      const current = await readPostgresCluster(client, ns, "team-postgres");
      return current?.spec.managed?.instances === 1 ? current : undefined;
    });
    expect(restored.spec.databases.map((d) => d.name).sort()).toEqual(["langfuse", "litellm", "other"]);

    await createStack(client, ns, "second");
    const refused = await eventually("the second Stack to be refused", async () => {
      const stack = await readStack(client, ns, "second");
      return condition(stack, "Licensed")?.status === "False" ? stack : undefined;
    });
    expect(condition(refused, "Licensed")).toMatchObject({
      reason: "InstanceCapExceeded",
      message: `Stack ${ns}/second is refused: licence lic-test allows 1 Stack instance(s) and 1 come before it (admitted earlier or created first); nothing was created for it. Delete an unused Stack, or ${HOW}`,
    });
    expect(await eventsAbout(client, ns, "second")).toEqual([
      expect.objectContaining({ type: "Warning", reason: "InstanceCapExceeded" }),
    ]);
    expect(await readPostgresCluster(client, ns, "second-postgres")).toBeUndefined();
    await deleteStack(client, ns, "second");
  });

  it("at expiry: downgraded, the Stack skipped with an Event, its running member left exactly as it was", async () => {
    const before = await readPostgresCluster(client, ns, "team-postgres");
    const cnpgBefore = (await readCnpgCluster(client, ns, "team-postgres"))?.metadata as { uid?: string } | undefined;
    expect(cnpgBefore?.uid).toBeDefined();
    clock = new Date("2027-01-12T00:00:00Z");
    const skipped = await eventually("the Stack to be skipped after expiry", async () => {
      const stack = await readStack(client, ns, "team");
      return condition(stack, "Licensed")?.status === "False" ? stack : undefined;
    });
    expect(condition(skipped, "Licensed")?.message).toContain(
      'uses feature "stack", which the Community edition (expired: licence lic-test expired at 2027-01-11T00:00:00Z',
    );
    expect(condition(skipped, "Ready")?.message).toContain(
      `Its members (PostgresCluster ${ns}/team-postgres) keep running as they are; the Stack no longer changes them.`,
    );
    expect(await eventsAbout(client, ns, "team")).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          type: "Warning",
          reason: "FeatureNotLicensed",
          note: expect.stringContaining("keep running as they are"),
        }),
      ]),
    );
    const after = await readPostgresCluster(client, ns, "team-postgres");
    expect(after?.metadata.generation).toBe(before?.metadata.generation);
    expect(after?.spec).toEqual(before?.spec);
    expect(condition(after, "Ready")?.status).toBe("True");
    expect(condition(after, "Licensed")?.status).toBe("True");
    expect(((await readCnpgCluster(client, ns, "team-postgres"))?.metadata as { uid?: string } | undefined)?.uid).toBe(
      cnpgBefore?.uid,
    );
  });

  it("deleted: the Stack deletes its member, which the operator finalizes (its data retained), and goes last", async () => {
    expect((await readStack(client, ns, "team"))?.metadata.finalizers).toEqual(["core.navique.com/finalizer"]);
    await deleteStack(client, ns, "team");
    await eventually(
      "the Stack and its member to be deleted and finalized",
      async () =>
        (await readPostgresCluster(client, ns, "team-postgres")) === undefined &&
        (await readStack(client, ns, "team")) === undefined
          ? true
          : undefined,
      { timeoutMs: 120_000 },
    );
    // deletionPolicy Retain (the curated default): the CNPG Cluster is released to the user, not deleted.
    const cnpg = await readCnpgCluster(client, ns, "team-postgres");
    expect(cnpg).toBeDefined();
    expect(cnpg?.metadata.labels?.[OWNED_BY_LABEL]).toBeUndefined();
    expect(await eventsAbout(client, ns, "team-postgres")).toEqual(
      expect.arrayContaining([expect.objectContaining({ type: "Warning", reason: "DatastoreRetained" })]),
    );
  });
});

// The Pulumi front end: through the real CLI and engine under the Community edition, then — since a
// Pulumi program cannot be handed the test's licence key (licences are verified with the product's own
// keys) — the same provider code called in-process with it, for a licensed up and destroy.
describe("the Pulumi front end of a Stack", () => {
  let client: KubeClient;
  let work = "";
  let helm: HelmCli;
  let unlock: () => Promise<void>;
  let playing: NodeJS.Timeout;
  let ns = "";

  beforeAll(async () => {
    unlock = await lockCapabilities();
    client = testClient();
    helm = await testHelm();
    await resetCapabilities(client, helm, [CLOUDNATIVE_PG, CERT_MANAGER], { crds: false });
    ns = (await createTestNamespace("stack-pulumi")).name;
    playing = playCnpg(client, () => ns, ["bundle-postgres"]);
    work = await mkdtemp(join(tmpdir(), "navique-stack-"));
  }, CAPABILITY_SUITE_SETUP_MS);

  afterAll(async () => {
    clearInterval(playing);
    if (ns) await discardNamespace(client, ns);
    if (helm) await resetCapabilities(client, helm, [CLOUDNATIVE_PG, CERT_MANAGER], { crds: false });
    if (client) await removeLicence(client);
    if (work) await rm(work, { recursive: true, force: true });
    await unlock?.();
  });

  const inputs = async (name: string) => ({
    namespace: ns,
    name,
    spec: {},
    kubeconfig: process.env.NAVIQUE_TEST_KUBECONFIG ?? "",
    helm: (await toolchainPaths()).helm,
    chartSource: `dir:${FIXTURE_CHARTS}`,
    timeoutSeconds: 120,
  });

  it("through the real engine: preview reports the skip before anything exists; up fails naming the feature and leaves no Stack the state does not know", async () => {
    await removeLicence(client);
    const environment = await pulumiEnvironment({ stateDir: join(work, "state"), passphrase: "stack" });
    const env = {
      ...environment.env,
      KUBECONFIG: process.env.NAVIQUE_TEST_KUBECONFIG,
      NAVIQUE_TEST_NAMESPACE: ns,
      NAVIQUE_TEST_CHART_SOURCE: `dir:${FIXTURE_CHARTS}`,
      ...TYPESCRIPT_SOURCES_ENV,
    };
    const skip = `Stack ${ns}/bundle uses feature "stack", which the Community edition does not include; it is skipped. To use it, ${HOW}`;
    await run("pulumi", ["stack", "init", "skipped", "--non-interactive"], { cwd: PROGRAM, env });
    const preview = (await run("pulumi", ["preview", "--non-interactive"], { cwd: PROGRAM, env })).stdout;
    expect(preview).toContain(`Stack ${ns}/bundle: skipped by the licence: ${skip}`);
    expect(await readStack(client, ns, "bundle")).toBeUndefined();

    const up = await runUnchecked("pulumi", ["up", "--yes", "--skip-preview", "--non-interactive"], {
      cwd: PROGRAM,
      env,
    });
    expect(up.code).not.toBe(0);
    expect(up.stdout).toContain(`Stack ${ns}/bundle: skipped by the licence: ${skip}`);
    // Pulumi records nothing of a failed create: the Stack it wrote is gone again (test/e2e/failed-create),
    // the refusal it was given stays told, as its Event.
    expect(up.stdout).toContain(
      `(the Stack ${ns}/bundle this create recorded was removed: nothing is left in the cluster)`,
    );
    expect(await readStack(client, ns, "bundle")).toBeUndefined();
    expect(await eventsAbout(client, ns, "bundle")).toContainEqual(
      expect.objectContaining({ type: "Warning", reason: "FeatureNotLicensed" }),
    );
    expect(await readPostgresCluster(client, ns, "bundle-postgres")).toBeUndefined();
  });

  it("with it, up reconciles the Stack and its member to Ready; destroy deletes both", async () => {
    await applyLicence(client, testLicenceToken({ features: ["stack"], caps: { Stack: 1 } }));
    // What `pulumi preview` and `navique plan` print for an admitted Stack: its member, then the member's
    // own decisions (capability operators with their evidence, the objects to create).
    const context = createReconcileContext({ client, helm, source: FIXTURE_SOURCE, trustedKeys: TEST_TRUSTED_KEYS });
    const desired = Stack.parse({
      apiVersion: "core.navique.com/v1alpha1",
      kind: "Stack",
      metadata: { name: "bundle", namespace: ns },
      spec: {},
    });
    const preview = await previewDesired(context, desired);
    expect(preview.refusal).toBeUndefined();
    expect(preview.lines).toEqual(
      expect.arrayContaining([
        `Stack ${ns}/bundle: apply PostgresCluster ${ns}/bundle-postgres (member of the Stack)`,
        expect.stringMatching(new RegExp(`^PostgresCluster ${ns}/bundle-postgres: capability cloudnative-pg: install`)),
        expect.stringMatching(
          new RegExp(`^PostgresCluster ${ns}/bundle-postgres: apply CNPG Cluster ${ns}/bundle-postgres`),
        ),
      ]),
    );
    expect(await readPostgresCluster(client, ns, "bundle-postgres")).toBeUndefined();

    const { outs } = await up(await inputs("bundle"), TEST_TRUSTED_KEYS);
    expect((await readStack(client, ns, "bundle"))?.metadata.finalizers).toEqual(["core.navique.com/finalizer"]);
    expect(outs.members).toEqual([{ kind: "PostgresCluster", namespace: ns, name: "bundle-postgres" }]);
    const member = await readPostgresCluster(client, ns, "bundle-postgres");
    expect(outs.postgres).toEqual({
      host: member?.status?.host,
      port: 5432,
      credentialsSecret: { name: "bundle-postgres-credentials", namespace: ns },
    });
    expect((outs.postgres as { host: string }).host).toMatch(/^bundle-postgres-rw\./);
    expect(condition(await readStack(client, ns, "bundle"), "Ready")?.status).toBe("True");
    expect(condition(await readPostgresCluster(client, ns, "bundle-postgres"), "Ready")?.status).toBe("True");

    await destroy(await inputs("bundle"), TEST_TRUSTED_KEYS);
    expect(await readStack(client, ns, "bundle")).toBeUndefined();
    expect(await readPostgresCluster(client, ns, "bundle-postgres")).toBeUndefined();
  });

  it("never takes over a resource that holds a member's name: up fails saying so, the resource untouched", async () => {
    await createConnectionSecret(client, ns);
    await createPostgresCluster(client, ns, "taken-postgres", {
      mode: "external",
      external: { connectionSecretRef: { name: "pg" } },
    });
    await expect(up(await inputs("taken"), TEST_TRUSTED_KEYS)).rejects.toThrow(
      `Stack ${ns}/taken: PostgresCluster ${ns}/taken-postgres already exists and is not this Stack's: it is left alone. Rename the Stack, or delete or rename that resource`,
    );
    const untouched = await readPostgresCluster(client, ns, "taken-postgres");
    expect(untouched?.spec.mode).toBe("external");
    expect(untouched?.metadata.labels).toBeUndefined();
    expect(untouched?.status).toBeUndefined();
    await destroy(await inputs("taken"), TEST_TRUSTED_KEYS);
    expect(await readStack(client, ns, "taken")).toBeUndefined();
    expect(await readPostgresCluster(client, ns, "taken-postgres")).toBeDefined();
    await deletePostgresCluster(client, ns, "taken-postgres");
  });
});
