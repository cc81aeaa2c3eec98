import { createHash } from "node:crypto";
import type { V1Secret } from "@kubernetes/client-node";
import { MANAGED_BY_LABEL, OPERATOR_NAME, OWNED_BY_LABEL } from "../../lib/api/group.js";
import { ensureNaviqueCrds } from "../../lib/apply/navique-crds.js";
import { CERT_MANAGER } from "../../lib/catalog/cert-manager.js";
import { CLOUDNATIVE_PG } from "../../lib/catalog/cloudnative-pg.js";
import type { HelmCli } from "../../lib/cluster/helm-cli.js";
import { type KubeClient, orUndefined } from "../../lib/cluster/kube-client.js";
import { moduleOf, type ReconcileContext } from "../../lib/engine/context.js";
import { execute } from "../../lib/engine/execute.js";
import { DELETION_POLICY_ANNOTATION } from "../../lib/engine/garbage.js";
import { previewResource } from "../../lib/engine/reconcile.js";
import type { PlannedEvent, PlanStep } from "../../lib/engine/steps.js";
import { CNPG_API_VERSION } from "../../lib/kinds/postgres-cluster/cnpg.js";
import type { PostgresClusterSpecInput } from "../../lib/kinds/postgres-cluster/schema.js";
import { createReconcileContext } from "../../lib/reconcile/context.js";
import {
  CAPABILITY_SUITE_SETUP_MS,
  FIXTURE_SOURCE,
  lockCapabilities,
  resetCapabilities,
  testClient,
  testHelm,
} from "../support/capabilities.js";
import { eventually } from "../support/cluster.js";
import { applyLicence, removeLicence, TEST_TRUSTED_KEYS, testLicenceToken } from "../support/licence.js";
import { suiteNamespaces } from "../support/namespace-content.js";
import {
  createPostgresCluster,
  deletePostgresCluster,
  eventsAbout,
  finalizePostgresClusters,
  playCnpgClusterReady,
  readCnpgCluster,
  readPostgresCluster,
  reconcileUntil,
  replaceSpec,
} from "../support/postgres.js";

/** Every mark of the product an object can carry; a released object carries none of them. */
interface Marks {
  readonly labels?: Record<string, string> | undefined;
  readonly annotations?: Record<string, string> | undefined;
  readonly ownerReferences?: readonly { kind: string }[] | undefined;
  readonly managedFields?: readonly { manager?: string | undefined }[] | undefined;
}

function expectNoMarkOfOurs(metadata: Marks | undefined): void {
  expect(metadata).toBeDefined();
  expect(Object.keys(metadata?.labels ?? {})).not.toContain(OWNED_BY_LABEL);
  expect(Object.keys(metadata?.labels ?? {})).not.toContain(MANAGED_BY_LABEL);
  expect(Object.keys(metadata?.annotations ?? {})).not.toContain(DELETION_POLICY_ANNOTATION);
  expect(Object.keys(metadata?.labels ?? {}).filter((k) => k.startsWith("core.navique.com/"))).toEqual([]);
  expect(Object.keys(metadata?.annotations ?? {}).filter((k) => k.startsWith("core.navique.com/"))).toEqual([]);
  expect((metadata?.ownerReferences ?? []).filter((o) => o.kind === "PostgresCluster")).toEqual([]);
  // Nor the apiserver's record of fields the product set: the user's own server-side apply meets no conflict.
  expect((metadata?.managedFields ?? []).map((m) => m.manager)).not.toContain(OPERATOR_NAME);
}

const SECRETS = ["main-credentials", "main-langfuse-credentials"];
const DATABASES = ["main-litellm", "main-langfuse"];
const withRole = (policy: "Retain" | "Delete"): PostgresClusterSpecInput => ({
  databases: [{ name: "litellm" }, { name: "langfuse", owner: "langfuse" }],
  managed: { deletionPolicy: policy },
});

// What a user relies on is never lost: a retained datastore keeps its credentials, released with it, and a
// deleted generated Secret comes back as a reported rotation that CNPG applies. No CloudNativePG pod runs
// on the local plane: the tests play its controller by writing the Cluster status it writes once Ready
// (playCnpgClusterReady); what CNPG does with a password Secret (ALTER ROLE) is asserted through the spec
// and labels that make it do so (docs/adr/0014-credentials-on-deletion-and-drift.md).
/**
 * How long the garbage collector may take to act. Its workers stay paused while it resyncs its monitors
 * with discovery (kube-controller-manager's garbagecollector.go, every 30 s), and a resync waits up to 30 s
 * per attempt for informers of CRDs that other suites install and delete at the same time: 90 s was seen
 * to run out on a busy machine.
 */
const GC_ACTS_WITHIN_MS = 240_000;

describe("credentials on deletion and drift", () => {
  let client: KubeClient;
  let helm: HelmCli;
  let context: ReconcileContext;
  let unlock: (() => Promise<void>) | undefined;
  const namespaces = suiteNamespaces();
  const namespace = (suite: string) => namespaces.create(suite);

  const readSecret = (ns: string, name: string): Promise<V1Secret | undefined> =>
    orUndefined(client.core.readNamespacedSecret({ name, namespace: ns }));
  const readDatabase = async (ns: string, name: string) =>
    (await client.read({ apiVersion: CNPG_API_VERSION, kind: "Database", metadata: { name, namespace: ns } })) as
      | { metadata: Marks }
      | undefined;

  const reconcileToReady = (ns: string, name: string) =>
    reconcileUntil(
      context,
      ns,
      name,
      (o) => !o.requeue,
      async () => {
        if (await readCnpgCluster(client, ns, name)) await playCnpgClusterReady(client, ns, name);
      },
    );

  /**
   * Waits until the garbage collector has acted on the deleted PostgresCluster: a ConfigMap owned by it
   * (created beforehand) is collected. Whatever the collector would delete with it is decided by then.
   */
  const gcSentinel = async (ns: string, name: string) => {
    const owner = await readPostgresCluster(client, ns, name);
    await client.core.createNamespacedConfigMap({
      namespace: ns,
      body: {
        metadata: {
          name: `${name}-gc-sentinel`,
          ownerReferences: [
            {
              apiVersion: "core.navique.com/v1alpha1",
              kind: "PostgresCluster",
              name,
              uid: owner?.metadata.uid ?? "",
            },
          ],
        },
      },
    });
    return () =>
      eventually(
        `the garbage collector to collect ConfigMap ${ns}/${name}-gc-sentinel`,
        async () =>
          (await orUndefined(client.core.readNamespacedConfigMap({ name: `${name}-gc-sentinel`, namespace: ns })))
            ? undefined
            : true,
        { timeoutMs: GC_ACTS_WITHIN_MS },
      );
  };

  /** A digest of each credentials Secret's data, absent when gone: compared, never printed in a failure. */
  const passwords = async (ns: string) =>
    Promise.all(
      SECRETS.map(async (name) => {
        const data = (await readSecret(ns, name))?.data;
        return data && createHash("sha256").update(JSON.stringify(data)).digest("hex");
      }),
    );

  const expectRetained = async (ns: string, before: unknown) => {
    const cluster = await readCnpgCluster(client, ns, "main");
    expect(cluster).toBeDefined();
    expectNoMarkOfOurs(cluster?.metadata as Marks | undefined);
    for (const name of SECRETS) expectNoMarkOfOurs((await readSecret(ns, name))?.metadata as Marks | undefined);
    for (const name of DATABASES) expectNoMarkOfOurs((await readDatabase(ns, name))?.metadata);
    // The same credentials: what the retained data accepts.
    expect(await passwords(ns)).toEqual(before);
    const retained = (await eventsAbout(client, ns, "main")).filter((e) => e.reason === "DatastoreRetained");
    expect(retained).toEqual([
      {
        type: "Warning",
        reason: "DatastoreRetained",
        note: expect.stringContaining(
          `with its credentials Secret(s) ${ns}/main-credentials, ${ns}/main-langfuse-credentials (passwords unchanged) and its Database object(s) ${ns}/main-litellm, ${ns}/main-langfuse; they are released to you and no longer managed`,
        ),
      },
    ]);
  };

  beforeAll(async () => {
    unlock = await lockCapabilities();
    client = testClient();
    helm = await testHelm();
    await ensureNaviqueCrds(client);
    // A CRD just updated answers 429 "storage is (re)initializing" for a while (a reused plane may hold
    // an older version of the product's CRDs): until it serves, try again.
    await eventually(
      "the product's CRDs to serve",
      async () => {
        await resetCapabilities(client, helm, [CLOUDNATIVE_PG, CERT_MANAGER], { crds: false });
        return true;
      },
      { timeoutMs: 300_000, intervalMs: 2_000 },
    );
    await applyLicence(client, testLicenceToken({ caps: { PostgresCluster: 50 } }));
    context = createReconcileContext({ client, helm, source: FIXTURE_SOURCE, trustedKeys: TEST_TRUSTED_KEYS });
  }, CAPABILITY_SUITE_SETUP_MS);
  afterAll(async () => {
    try {
      if (context) {
        await namespaces.discard(context);
        await resetCapabilities(client, helm, [CLOUDNATIVE_PG, CERT_MANAGER], { crds: false });
        await removeLicence(client);
      }
    } finally {
      await unlock?.();
    }
  });

  it(
    "deleting under Retain keeps the CNPG Cluster, its credentials Secrets (same passwords) and Databases, with no mark of ours, past the garbage collector",
    async () => {
      const ns = await namespace("pg-keep-creds");
      await createPostgresCluster(client, ns, "main", withRole("Retain"));
      await reconcileToReady(ns, "main");
      const before = await passwords(ns);
      expect(before.every((d) => d !== undefined)).toBe(true);
      const collected = await gcSentinel(ns, "main");

      await deletePostgresCluster(client, ns, "main");
      await finalizePostgresClusters(context, ns);
      expect(await readPostgresCluster(client, ns, "main")).toBeUndefined();
      await collected();

      await expectRetained(ns, before);
    },
    GC_ACTS_WITHIN_MS + 60_000,
  );

  it(
    "a foreground deletion under Retain (kubectl --cascade=foreground, Argo CD) leaves the garbage collector no credentials to take",
    async () => {
      const ns = await namespace("pg-fg-creds");
      await createPostgresCluster(client, ns, "main", withRole("Retain"));
      await reconcileToReady(ns, "main");
      const before = await passwords(ns);
      const collected = await gcSentinel(ns, "main");

      // In a foreground deletion the garbage collector deletes every dependent while the finalizer still
      // holds the PostgresCluster: once the sentinel is gone, it has acted — before any finalization pass.
      await client.custom.deleteNamespacedCustomObject({
        group: "core.navique.com",
        version: "v1alpha1",
        plural: "postgresclusters",
        namespace: ns,
        name: "main",
        propagationPolicy: "Foreground",
      });
      await collected();
      expect(await passwords(ns)).toEqual(before);
      await finalizePostgresClusters(context, ns);
      expect(await readPostgresCluster(client, ns, "main")).toBeUndefined();
      await expectRetained(ns, before);
    },
    GC_ACTS_WITHIN_MS + 60_000,
  );

  it("deleting under Delete deletes the CNPG Cluster, its credentials Secrets and Databases", async () => {
    const ns = await namespace("pg-delete-creds");
    await createPostgresCluster(client, ns, "main", withRole("Delete"));
    await reconcileToReady(ns, "main");
    await deletePostgresCluster(client, ns, "main");
    await finalizePostgresClusters(context, ns);

    expect(await readCnpgCluster(client, ns, "main")).toBeUndefined();
    for (const name of SECRETS) expect(await readSecret(ns, name)).toBeUndefined();
    for (const name of DATABASES) expect(await readDatabase(ns, name)).toBeUndefined();
  });

  it("managed → external under Retain keeps the credentials with the Cluster, released, and they outlive the PostgresCluster", async () => {
    const ns = await namespace("pg-move-creds");
    await createPostgresCluster(client, ns, "main", withRole("Retain"));
    await reconcileToReady(ns, "main");
    const before = await passwords(ns);
    await client.core.createNamespacedSecret({
      namespace: ns,
      body: {
        metadata: { name: "cloud-pg" },
        stringData: { host: "pg.example.internal", username: "u", password: "p" },
      },
    });
    await replaceSpec(client, ns, "main", {
      mode: "external",
      external: { connectionSecretRef: { name: "cloud-pg" } },
    });
    await reconcileUntil(context, ns, "main", (o) => !o.requeue);
    await expectRetained(ns, before);

    // No owner reference is left that would let the garbage collector take them with the PostgresCluster.
    const collected = await gcSentinel(ns, "main");
    await deletePostgresCluster(client, ns, "main");
    await finalizePostgresClusters(context, ns);
    await collected();
    expect(await passwords(ns)).toEqual(before);
    expect(await readCnpgCluster(client, ns, "main")).toBeDefined();
  });

  it("a deleted generated credentials Secret comes back as a rotation CNPG applies, reported once", async () => {
    const ns = await namespace("pg-rotate-creds");
    await createPostgresCluster(client, ns, "main", withRole("Retain"));
    await reconcileToReady(ns, "main");
    const old = await readSecret(ns, "main-credentials");
    await client.core.deleteNamespacedSecret({ name: "main-credentials", namespace: ns });

    await reconcileUntil(context, ns, "main", (o) => !o.requeue);
    const renewed = await readSecret(ns, "main-credentials");
    const decode = (s: V1Secret | undefined, key: string) => Buffer.from(s?.data?.[key] ?? "", "base64").toString();
    expect(decode(renewed, "username")).toBe("app");
    expect(decode(renewed, "password")).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(decode(renewed, "password")).not.toBe(decode(old, "password"));
    // What makes CNPG set the new password in the database (cloudnative-pg v1.30.0, instance manager
    // refreshCredentialsFromSecret): the Cluster takes the owner's password from this Secret, and the
    // label makes CNPG act on its change at once.
    expect(renewed?.metadata?.labels?.["cnpg.io/reload"]).toBe("true");
    const cluster = await readCnpgCluster(client, ns, "main");
    expect(cluster?.spec?.bootstrap).toEqual({
      initdb: { database: "app", owner: "app", secret: { name: "main-credentials" } },
    });
    const rotated = () =>
      eventsAbout(client, ns, "main").then((events) => events.filter((e) => e.reason === "CredentialsRotated"));
    expect(await rotated()).toEqual([
      {
        type: "Warning",
        reason: "CredentialsRotated",
        note: `Secret ${ns}/main-credentials was deleted and is re-created with a new generated password; CNPG sets it in the database for role app from that Secret (spec.bootstrap.initdb.secret of CNPG Cluster ${ns}/main): the old password stops working, every consumer must pick up the new one from the Secret`,
      },
    ]);
    expect(JSON.stringify(await rotated())).not.toContain(decode(renewed, "password"));

    // Once back, the Secret is left alone: no further change, no second Event.
    await reconcileUntil(context, ns, "main", (o) => !o.requeue);
    expect((await readSecret(ns, "main-credentials"))?.metadata?.resourceVersion).toBe(
      renewed?.metadata?.resourceVersion,
    );
    expect((await readCnpgCluster(client, ns, "main"))?.metadata.generation).toBe(cluster?.metadata.generation);
    expect(await rotated()).toHaveLength(1);
  });

  it("a generated Secret deleted between a pass's reads and its writes: that pass leaves it, the next re-creates it as a rotation", async () => {
    const ns = await namespace("pg-rotate-race");
    await createPostgresCluster(client, ns, "main", withRole("Retain"));
    await reconcileToReady(ns, "main");
    const resource = await readPostgresCluster(client, ns, "main");
    if (!resource) throw new Error(`PostgresCluster ${ns}/main is gone`);
    const module = moduleOf(context, "PostgresCluster");
    const stepOf = (plan: { steps: readonly PlanStep[] }) => {
      const step = plan.steps.find(
        (s) => s.kind === "generate-secret" && s.object.metadata.name === "main-credentials",
      );
      if (!step) throw new Error("the plan has no step for Secret main-credentials");
      return step;
    };
    // The pass has read the Secret present; someone deletes it before the pass writes.
    const stale = await previewResource(context, resource);
    expect(stepOf(stale.plan).description).not.toContain("re-create");
    await client.core.deleteNamespacedSecret({ name: "main-credentials", namespace: ns });
    const happened: PlannedEvent[] = [];
    expect(await execute(context, module, resource, stepOf(stale.plan), stale.view, happened)).toBe("unchanged");
    expect(happened).toEqual([]);
    expect(await readSecret(ns, "main-credentials")).toBeUndefined();

    // The next pass sees it gone: it re-creates it, and the pass that does says the rotation.
    const fresh = await previewResource(context, resource);
    const step = stepOf(fresh.plan);
    expect(step.description).toContain("re-create Secret");
    expect(await execute(context, module, resource, step, fresh.view, happened)).toBe("continue");
    expect(happened.map((e) => [e.type, e.reason, e.message])).toEqual([
      [
        "Warning",
        "CredentialsRotated",
        `Secret ${ns}/main-credentials was deleted and is re-created with a new generated password; CNPG sets it in the database for role app from that Secret (spec.bootstrap.initdb.secret of CNPG Cluster ${ns}/main): the old password stops working, every consumer must pick up the new one from the Secret`,
      ],
    ]);
    // Performed again on the same view (another process got there first): created once, said once.
    const again: PlannedEvent[] = [];
    expect(await execute(context, module, resource, step, fresh.view, again)).toBe("unchanged");
    expect(again).toEqual([]);
  });
});
