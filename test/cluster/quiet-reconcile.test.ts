import { jest } from "@jest/globals";
import { API_GROUP, API_VERSION } from "../../lib/api/group.js";
import { CERT_MANAGER } from "../../lib/catalog/cert-manager.js";
import { CLOUDNATIVE_PG } from "../../lib/catalog/cloudnative-pg.js";
import type { HelmCli } from "../../lib/cluster/helm-cli.js";
import { KubeClient } from "../../lib/cluster/kube-client.js";
import { moduleOf, type ReconcileContext } from "../../lib/engine/context.js";
import { ownershipMarks } from "../../lib/engine/ownership.js";
import { previewResource } from "../../lib/engine/reconcile.js";
import { LICENSE_NAME, LICENSE_PLURAL } from "../../lib/kinds/license/schema.js";
import { POSTGRES_CLUSTER_PLURAL } from "../../lib/kinds/postgres-cluster/schema.js";
import { createReconcileContext } from "../../lib/reconcile/context.js";
import {
  CAPABILITY_SUITE_SETUP_MS,
  FIXTURE_SOURCE,
  lockCapabilities,
  resetCapabilities,
  testClient,
  testHelm,
} from "../support/capabilities.js";
import { condition, eventually } from "../support/cluster.js";
import { adoptingPostgresCluster, installCloudnativePg, naviqueCrdsServed } from "../support/failing-step.js";
import { applyLicence, removeLicence, TEST_TRUSTED_KEYS, testLicenceToken } from "../support/licence.js";
import { suiteNamespaces } from "../support/namespace-content.js";
import { inProcessOperator } from "../support/operator.js";
import {
  createPostgresCluster,
  eventsAbout,
  finalizePostgresClusters,
  playCnpgClusterReady,
  readCnpgCluster,
  readPostgresCluster,
  reconcilePostgresCluster,
  reconcileUntil,
} from "../support/postgres.js";

/** The resourceVersion of the License singleton as stored now. */
async function licenseVersion(client: KubeClient): Promise<string | undefined> {
  const license = (await client.custom.getClusterCustomObject({
    group: API_GROUP,
    version: API_VERSION,
    plural: LICENSE_PLURAL,
    name: LICENSE_NAME,
  })) as { metadata?: { resourceVersion?: string }; status?: unknown };
  return license.status ? license.metadata?.resourceVersion : undefined;
}

// Reconciles that find nothing to do change nothing: no status write, no Event, no log line; a status
// write is made only when the status changes, and an Event meant once is recorded once per cluster,
// whichever process plans it. Counted on the real apiserver: the client's write requests and the
// resourceVersions the apiserver assigns.
describe("quiet reconciles", () => {
  let client: KubeClient;
  let helm: HelmCli;
  let context: ReconcileContext;
  let unlock: (() => Promise<void>) | undefined;
  const namespaces = suiteNamespaces();
  const namespace = (suite: string) => namespaces.create(suite);

  beforeAll(async () => {
    client = testClient();
    helm = await testHelm();
    unlock = await lockCapabilities();
    await naviqueCrdsServed(client);
    await resetCapabilities(client, helm, [CLOUDNATIVE_PG, CERT_MANAGER], { crds: false });
    context = createReconcileContext({ client, helm, source: FIXTURE_SOURCE, trustedKeys: TEST_TRUSTED_KEYS });
    await installCloudnativePg(context);
  }, CAPABILITY_SUITE_SETUP_MS);
  afterAll(async () => {
    // A setup that never got the lock has nothing to clean up.
    if (!unlock) return;
    try {
      await removeLicence(client).catch(() => undefined);
      await namespaces.discard(context);
      await resetCapabilities(client, helm, [CLOUDNATIVE_PG, CERT_MANAGER], { crds: false });
    } finally {
      await unlock();
    }
  });

  it("a pass over a Ready PostgresCluster makes no status write, records no Event and logs nothing", async () => {
    const ns = await namespace("quiet-ready");
    await adoptingPostgresCluster(context, ns, "chat", { blocked: false });
    await reconcileUntil(context, ns, "chat", (outcome) => !outcome.requeue);
    const lines: string[] = [];
    const quiet = createReconcileContext({
      client,
      helm,
      source: FIXTURE_SOURCE,
      trustedKeys: TEST_TRUSTED_KEYS,
      report: (line) => lines.push(line),
    });
    const before = await readPostgresCluster(client, ns, "chat");
    expect(condition(before, "Ready")).toMatchObject({ status: "True" });
    const copy = await client.core.readNamespacedSecret({ name: "chat-adopted-credentials", namespace: ns });
    const events = await eventsAbout(client, ns, "chat");
    const writes = client.writes;

    if (!before) throw new Error("PostgresCluster chat is gone");
    await reconcilePostgresCluster(quiet, before);

    const made = client.recentWrites.slice(client.recentWrites.length - (client.writes - writes));
    // Not even the apply of the unchanged copy of the credentials: written with stringData, it is compared
    // as stored, in data (lib/engine/stored-secret.ts), and found unchanged (its resourceVersion stays).
    expect(made).toEqual([]);
    const after = await readPostgresCluster(client, ns, "chat");
    expect(after?.metadata.resourceVersion).toBe(before.metadata.resourceVersion);
    expect(
      (await client.core.readNamespacedSecret({ name: "chat-adopted-credentials", namespace: ns })).metadata
        ?.resourceVersion,
    ).toBe(copy.metadata?.resourceVersion);
    expect(await eventsAbout(client, ns, "chat")).toEqual(events);
    expect(lines).toEqual([]);
  });

  it("a pass asks the kind for its desired state once; a status that lost what it emitted is asked again, and judged from what exists", async () => {
    const ns = await namespace("quiet-desired");
    await createPostgresCluster(client, ns, "pg", { managed: { deletionPolicy: "Delete" } });
    // No CNPG pod runs here: the test writes the status its controller would (playCnpgClusterReady).
    const playCnpg = async () => {
      if (await readCnpgCluster(client, ns, "pg")) await playCnpgClusterReady(client, ns, "pg");
    };
    await reconcileUntil(context, ns, "pg", (outcome) => !outcome.requeue, playCnpg);
    const asked = jest.spyOn(moduleOf(context, "PostgresCluster"), "desired");
    try {
      const ready = await readPostgresCluster(client, ns, "pg");
      if (!ready) throw new Error("PostgresCluster pg is gone");
      await reconcilePostgresCluster(context, ready);
      expect(asked).toHaveBeenCalledTimes(1);

      // WHEN its status no longer records what it made (a status written behind, or restored from a
      // backup without it): the objects exist under its names, with its marks.
      await client.custom.patchNamespacedCustomObjectStatus(
        {
          group: API_GROUP,
          version: API_VERSION,
          plural: POSTGRES_CLUSTER_PLURAL,
          namespace: ns,
          name: "pg",
          body: [{ op: "replace", path: "/status/emitted", value: [] }],
        },
        undefined,
      );
      const lost = await readPostgresCluster(client, ns, "pg");
      if (!lost) throw new Error("PostgresCluster pg is gone");
      expect(lost.status?.emitted).toEqual([]);
      asked.mockClear();
      const { plan } = await previewResource(context, lost);
      // Asked without them, then again once they were found: judged from the Cluster CNPG made Ready, as
      // its own (no NameTaken), and recorded again.
      expect(asked).toHaveBeenCalledTimes(2);
      expect(asked.mock.calls[1]?.[1].objects.size).toBeGreaterThan(0);
      expect(plan.conditions.find((c) => c.type === "Ready")).toMatchObject({ status: "True" });
      expect(plan.status.emitted).toEqual(
        expect.arrayContaining([expect.objectContaining({ kind: "Cluster", name: "pg", namespace: ns })]),
      );
    } finally {
      asked.mockRestore();
      // Gone, so that the suite's later PostgresClusters stay within Community's two.
      await finalizePostgresClusters(context, ns);
    }
  });

  it("two processes reconciling one PostgresCluster record its once-only Event once and never flip its lastTransitionTime", async () => {
    const ns = await namespace("quiet-two");
    await adoptingPostgresCluster(context, ns, "chat", { blocked: false });
    await reconcileUntil(context, ns, "chat", (outcome) => !outcome.requeue);
    // Then someone changes its copy and makes it immutable: every apply of the copy is refused (422).
    await client.core.deleteNamespacedSecret({ name: "chat-adopted-credentials", namespace: ns });
    await client.core.createNamespacedSecret({
      namespace: ns,
      body: {
        metadata: {
          name: "chat-adopted-credentials",
          ...ownershipMarks({ kind: "PostgresCluster", metadata: { name: "chat", namespace: ns } }),
        },
        type: "kubernetes.io/basic-auth",
        immutable: true,
        stringData: { username: "someone", password: "else" },
      },
    });
    // A second process: its own client, its own context.
    const other = createReconcileContext({
      client: KubeClient.fromFile(process.env.NAVIQUE_TEST_KUBECONFIG ?? ""),
      helm,
      source: FIXTURE_SOURCE,
      trustedKeys: TEST_TRUSTED_KEYS,
    });
    // Both read the resource before either writes, as two operators woken by the same watch event do.
    const stale = await readPostgresCluster(client, ns, "chat");
    if (!stale) throw new Error("PostgresCluster chat is gone");
    await expect(reconcilePostgresCluster(context, stale)).rejects.toThrow(/DatastoreReady False \(ApplyRejected\)/);
    const settled = await readPostgresCluster(client, ns, "chat");
    const readySince = (r: typeof settled) => r?.status?.conditions.find((c) => c.type === "Ready")?.lastTransitionTime;
    const since = readySince(settled);
    expect(since).toBeDefined();
    expect(condition(settled, "Ready")).toMatchObject({ status: "False", reason: "ApplyRejected" });
    // The second process decides from the same stale read, later: its Event is the one already recorded,
    // and its status write (with a later lastTransitionTime) is refused, the resource having changed.
    await expect(reconcilePostgresCluster(other, stale)).rejects.toThrow(/DatastoreReady False \(ApplyRejected\)/);
    expect(readySince(await readPostgresCluster(client, ns, "chat"))).toBe(since);

    for (const pass of [context, other, context, other]) {
      const resource = await readPostgresCluster(client, ns, "chat");
      if (!resource) throw new Error("PostgresCluster chat is gone");
      await reconcilePostgresCluster(pass, resource).catch(() => undefined);
    }

    const last = await readPostgresCluster(client, ns, "chat");
    expect(readySince(last)).toBe(since);
    expect(last?.metadata.resourceVersion).toBe(settled?.metadata.resourceVersion);
    expect((await eventsAbout(client, ns, "chat")).map((e) => e.reason)).toEqual(["ApplyRejected"]);
  });

  it("a running operator writes the License's status once, then leaves it alone", async () => {
    const ns = await namespace("quiet-licence");
    // A License without a status: the first status the operator writes is the one sampled from.
    await removeLicence(client);
    await applyLicence(client, testLicenceToken({ caps: { PostgresCluster: 50 } }));
    const operator = inProcessOperator(client, helm, { watchNamespaces: [ns] });
    try {
      await operator.start();
      const written = await eventually("the operator to write the License's status", () => licenseVersion(client));
      // Sampled for a few seconds while the operator runs (resyncs every 300 ms): every resourceVersion seen.
      const seen = new Set<string>([written]);
      const until = Date.now() + 5_000;
      while (Date.now() < until) {
        const version = await licenseVersion(client);
        if (version) seen.add(version);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect([...seen]).toEqual([written]);
    } finally {
      await operator.stop();
    }
  });
});
