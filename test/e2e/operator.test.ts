import type { ChildProcess } from "node:child_process";
import { FINALIZER, OWNERSHIP_MARKS } from "../../lib/api/group.js";
import { CERT_MANAGER } from "../../lib/catalog/cert-manager.js";
import { CLOUDNATIVE_PG } from "../../lib/catalog/cloudnative-pg.js";
import type { HelmCli } from "../../lib/cluster/helm-cli.js";
import type { KubeClient } from "../../lib/cluster/kube-client.js";
import { CNPG_CLUSTERS, CNPG_GROUP, CNPG_VERSION } from "../../lib/kinds/postgres-cluster/cnpg.js";
import { createReconcileContext } from "../../lib/reconcile/context.js";
import {
  CAPABILITY_SUITE_SETUP_MS,
  FIXTURE_SOURCE,
  lockCapabilities,
  releaseRecords,
  resetCapabilities,
  testClient,
  testHelm,
} from "../support/capabilities.js";
import { condition, createTestNamespace, eventually } from "../support/cluster.js";
import { adoptingPostgresCluster, naviqueCrdsServed } from "../support/failing-step.js";
import { discardNamespace } from "../support/namespace-content.js";
import { startOperatorProcess, stopOperatorProcess } from "../support/operator-process.js";
import {
  createPostgresCluster,
  deletePostgresCluster,
  eventsAbout,
  playCnpgClusterReady,
  readCnpgCluster,
  readPostgresCluster,
} from "../support/postgres.js";

// The operator as users run it: `navique operator` in its own process against a kubeconfig, with the
// fixture chart mirror. CloudNativePG cannot run here: the test plays its controller, writing the
// Cluster status it would write whenever a Cluster exists without one.
describe("the operator", () => {
  let client: KubeClient;
  let helm: HelmCli;
  let unlock: (() => Promise<void>) | undefined;
  let operator: ChildProcess | undefined;
  let output: () => string = () => "";
  let playing: NodeJS.Timeout | undefined;
  /** Empty until the setup created it. */
  let ns = "";

  beforeAll(async () => {
    client = testClient();
    helm = await testHelm();
    unlock = await lockCapabilities();
    // Served, not only applied: a CRD whose schema changed answers 429 while its storage re-initialises.
    await naviqueCrdsServed(client);
    await resetCapabilities(client, helm, [CLOUDNATIVE_PG, CERT_MANAGER], { crds: false });
    ns = (await createTestNamespace("operator")).name;
    const started = startOperatorProcess();
    operator = started.process;
    output = started.output;
    playing = setInterval(() => {
      void (async () => {
        const cluster = (await readCnpgCluster(client, ns, "drift")) as { status?: unknown } | undefined;
        if (cluster && !cluster.status) await playCnpgClusterReady(client, ns, "drift");
      })().catch(() => undefined);
    }, 300);
  }, CAPABILITY_SUITE_SETUP_MS);

  afterAll(async () => {
    // Tolerates its own failed setup, and releases the lock on every path.
    if (!unlock) return;
    try {
      clearInterval(playing);
      if (operator) {
        expect(await stopOperatorProcess(operator)).toBe(0);
        expect(output()).toContain("[operator] stopped");
      }
      if (ns) await discardNamespace(client, ns);
      if (helm) await resetCapabilities(client, helm, [CLOUDNATIVE_PG, CERT_MANAGER], { crds: false });
    } finally {
      await unlock();
    }
  });

  const cnpgUid = async () => (await readCnpgCluster(client, ns, "drift"))?.metadata as { uid?: string } | undefined;

  it("reconciles a new PostgresCluster to Ready, with its finalizer", async () => {
    await createPostgresCluster(client, ns, "drift", {
      databases: [{ name: "app1" }],
      managed: { deletionPolicy: "Delete" },
    });
    const ready = await eventually(
      "the operator to report the PostgresCluster Ready",
      async () => {
        const resource = await readPostgresCluster(client, ns, "drift");
        return resource?.status?.conditions.find((c) => c.type === "Ready")?.status === "True" ? resource : undefined;
      },
      { timeoutMs: 120_000 },
    );
    expect(ready.metadata.finalizers).toContain(FINALIZER);
    expect(ready.status?.capabilities.map((c) => c.name)).toEqual(["cert-manager", "cloudnative-pg"]);
  });

  it("restores the emitted CNPG Cluster when it is deleted", async () => {
    const before = (await cnpgUid())?.uid;
    await client.custom.deleteNamespacedCustomObject({
      group: CNPG_GROUP,
      version: CNPG_VERSION,
      plural: CNPG_CLUSTERS,
      namespace: ns,
      name: "drift",
    });
    const restored = await eventually("the CNPG Cluster to be recreated", async () => {
      const uid = (await cnpgUid())?.uid;
      return uid && uid !== before ? uid : undefined;
    });
    expect(restored).not.toBe(before);
  });

  it("restores the emitted CNPG Cluster when it is edited", async () => {
    await client.custom.patchNamespacedCustomObject(
      {
        group: CNPG_GROUP,
        version: CNPG_VERSION,
        plural: CNPG_CLUSTERS,
        namespace: ns,
        name: "drift",
        body: [{ op: "replace", path: "/spec/instances", value: 5 }],
      },
      undefined,
    );
    const instances = await eventually("spec.instances to be restored to 1", async () => {
      const value = (await readCnpgCluster(client, ns, "drift"))?.spec?.instances;
      return value === 1 ? value : undefined;
    });
    expect(instances).toBe(1);
  });

  it("reinstalls its capability release when it is removed by hand while still needed", async () => {
    const before = await releaseRecords(client, "cnpg-system", "cloudnative-pg");
    expect(before.length).toBeGreaterThan(0);
    const uids = new Set(before.map((r) => r.metadata?.uid));
    await helm.uninstall("cloudnative-pg", "cnpg-system");
    const records = await eventually("cloudnative-pg to be installed again", async () => {
      const found = await releaseRecords(client, "cnpg-system", "cloudnative-pg");
      return found.length > 0 ? found : undefined;
    });
    // Uninstalled for real and installed anew: none of the old records is left (helm keeps none of a release
    // it removed), and the release starts again at its first revision, in a record that did not exist before.
    expect(records.map((r) => r.metadata?.labels?.version)).toEqual(["1"]);
    expect(uids.has(records[0]?.metadata?.uid)).toBe(false);
    expect(records[0]?.metadata?.labels).toMatchObject(OWNERSHIP_MARKS);
  });

  it("on deletion, deletes what it owns (deletionPolicy Delete), releases the operators and lets the resource go", async () => {
    await deletePostgresCluster(client, ns, "drift");
    await eventually("the PostgresCluster to be finalized and gone", async () =>
      (await readPostgresCluster(client, ns, "drift")) === undefined ? true : undefined,
    );
    expect(await readCnpgCluster(client, ns, "drift")).toBeUndefined();
    await eventually("cloudnative-pg to be uninstalled", async () =>
      (await releaseRecords(client, "cnpg-system", "cloudnative-pg")).length === 0 ? true : undefined,
    );
  });

  it("reports a failing step on the resource once, logs it in one line and retries with backoff", async () => {
    // The CNPG CRDs stay after the release above: adopting needs nothing more. A Secret of the copy's name,
    // immutable and someone else's, makes the apiserver refuse every apply of the copy (a real 422).
    const context = createReconcileContext({ client, helm, source: FIXTURE_SOURCE });
    await adoptingPostgresCluster(context, ns, "blocked", { blocked: true });
    const failed = "reconcile failed (attempt 3, retrying in 4s): PostgresCluster";
    await eventually(
      "the operator to retry the failing PostgresCluster a third time",
      async () => (output().includes(`[operator] PostgresCluster/${ns}/blocked: ${failed}`) ? true : undefined),
      { timeoutMs: 60_000 },
    );
    const resource = await readPostgresCluster(client, ns, "blocked");
    expect(condition(resource, "DatastoreReady")).toMatchObject({ status: "False", reason: "ApplyRejected" });
    expect((await eventsAbout(client, ns, "blocked")).map((e) => `${e.type} ${e.reason}`)).toEqual([
      "Warning ApplyRejected",
    ]);
    const line = output()
      .split("\n")
      .find((l) => l.includes(`[operator] PostgresCluster/${ns}/blocked: ${failed}`));
    expect(line).toBe(
      `[operator] PostgresCluster/${ns}/blocked: ${failed} ${ns}/blocked: DatastoreReady False (ApplyRejected): ${condition(resource, "DatastoreReady")?.message}`,
    );
    // Deleted while the operator runs, so that its finalizer does not hold the namespace.
    await deletePostgresCluster(client, ns, "blocked");
    await eventually("the failing PostgresCluster to be finalized and gone", async () =>
      (await readPostgresCluster(client, ns, "blocked")) === undefined ? true : undefined,
    );
  });
});
