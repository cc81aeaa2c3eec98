import { API_GROUP, API_GROUP_VERSION } from "../../lib/api/group.js";
import type { KubeClient } from "../../lib/cluster/kube-client.js";
import { observeOptions, planContext, type ReconcileContext } from "../../lib/engine/context.js";
import { DEPENDENCIES_READY } from "../../lib/engine/dependencies.js";
import type { EngineResource } from "../../lib/engine/kind-module.js";
import { observeResource } from "../../lib/engine/observe.js";
import { planResource } from "../../lib/engine/plan.js";
import { previewDecisions } from "../../lib/engine/preview.js";
import type { ObservedGrant } from "../../lib/engine/reference-grants.js";
import { createReconcileContext } from "../../lib/reconcile/context.js";
import {
  CAPABILITY_SUITE_SETUP_MS,
  FIXTURE_SOURCE,
  lockCapabilities,
  testClient,
  testHelm,
} from "../support/capabilities.js";
import { CONSUMER } from "../support/consumer-kind.js";
import { applyLicence, removeLicence, TEST_TRUSTED_KEYS, testLicenceToken } from "../support/licence.js";
import { suiteNamespaces } from "../support/namespace-content.js";
import { createConnectionSecret, createPostgresCluster, reconcileUntil } from "../support/postgres.js";

// The engine's dependencies on the real apiserver: a consumer (test/support/consumer-kind.ts, a ManagementPlane
// kind planned and observed, never stored) referencing a PostgresCluster in another namespace. What it
// reads of the target, and when, comes from the cluster: no grant, nothing read; granted, the target as
// stored, first not Ready, then Ready with its connection once the real engine reconciled it. The grant
// itself cannot be stored: the apiserver refuses a grant from a kind it does not serve (it could never
// match). It is handed as `navique plan -f` hands the grants of its file, counted as applied.
describe("a resource that depends on a PostgresCluster in another namespace", () => {
  let client: KubeClient;
  let context: ReconcileContext | undefined;
  let unlock: (() => Promise<void>) | undefined;
  const namespaces = suiteNamespaces();

  beforeAll(async () => {
    // PostgresClusters count against the cluster-wide caps: the lock, and a licence with room.
    unlock = await lockCapabilities();
    client = testClient();
    const helm = await testHelm();
    await applyLicence(client, testLicenceToken({ caps: { PostgresCluster: 50 }, features: ["auto-wiring"] }));
    context = createReconcileContext({ client, helm, source: FIXTURE_SOURCE, trustedKeys: TEST_TRUSTED_KEYS });
  }, CAPABILITY_SUITE_SETUP_MS);

  afterAll(async () => {
    try {
      if (context) {
        await namespaces.discard(context);
        await removeLicence(client);
      }
    } finally {
      await unlock?.();
    }
  });

  it("reads it only under a grant, gates on it until it is Ready with its connection, then wires from it", async () => {
    if (!context) throw new Error("no context");
    const reconcile = context;
    const apps = await namespaces.create("deps-apps");
    const data = await namespaces.create("deps-data");
    const gateway: EngineResource = {
      apiVersion: API_GROUP_VERSION,
      kind: "ManagementPlane",
      metadata: { name: "gw", namespace: apps, uid: "u-gw", generation: 1 },
      spec: { databaseRef: { name: "shared", namespace: data } },
      status: { conditions: [], admitted: true },
    };
    let pendingGrants: ObservedGrant[] = [];
    const pass = async () => {
      const view = await observeResource(client, reconcile.installer, CONSUMER, gateway, {
        ...observeOptions(reconcile),
        pendingGrants,
        // Nothing of the consumer kind is stored: its cap counts this one alone.
        instances: () => ({ list: [], ahead: () => 0 }),
      });
      return { view, plan: planResource(CONSUMER, gateway, view, planContext(reconcile)) };
    };

    await createConnectionSecret(client, data);
    await createPostgresCluster(client, data, "shared", {
      mode: "external",
      external: { connectionSecretRef: { name: "pg" } },
    });
    const ungranted = await pass();
    expect(ungranted.view.dependencies).toBeUndefined();
    expect(ungranted.plan.conditions[1]).toMatchObject({
      type: DEPENDENCIES_READY,
      status: "False",
      reason: "ReferenceNotPermitted",
    });

    pendingGrants = [
      {
        namespace: data,
        spec: {
          from: [{ group: API_GROUP, kind: "ManagementPlane", namespace: apps }],
          to: [{ group: API_GROUP, kind: "PostgresCluster", name: "shared" }],
        },
      },
    ];
    const notReady = await pass();
    expect(notReady.view.dependencies?.["spec.databaseRef"]?.metadata.name).toBe("shared");
    expect(notReady.plan.steps).toEqual([]);
    expect(notReady.plan.conditions[1]).toMatchObject({
      type: DEPENDENCIES_READY,
      status: "False",
      reason: "DependencyNotReady",
      message: `waiting for what it depends on: spec.databaseRef: PostgresCluster ${data}/shared is not Ready yet. Nothing of it is applied until then`,
    });

    await reconcileUntil(context, data, "shared", (o) => o.plan.conditions[0]?.status === "True");
    const ready = await pass();
    expect(ready.plan.conditions[1]).toMatchObject({ type: DEPENDENCIES_READY, status: "True" });
    expect(ready.plan.steps.map((s) => (s as { object?: { data?: unknown } }).object?.data)).toEqual([
      { host: "pg.internal" },
    ]);

    // What `navique plan` and `pulumi preview` print of it: the step, and how the reference is wired.
    const withConsumer: ReconcileContext = {
      ...reconcile,
      registry: [...reconcile.registry, CONSUMER],
      instances: (kind) => (kind === CONSUMER.definition.kind ? { list: [], ahead: () => 0 } : undefined),
    };
    const preview = await previewDecisions(withConsumer, gateway, { pendingGrants });
    expect(preview.lines).toEqual([
      `ManagementPlane ${apps}/gw: apply ConfigMap`,
      `ManagementPlane ${apps}/gw: spec.databaseRef → PostgresCluster ${data}/shared: auto-wired`,
    ]);
  });
});
