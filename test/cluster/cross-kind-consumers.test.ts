import { FINALIZER } from "../../lib/api/group.js";
import { ensureNaviqueCrds } from "../../lib/apply/navique-crds.js";
import type { KubeClient } from "../../lib/cluster/kube-client.js";
import type { ReconcileContext } from "../../lib/engine/context.js";
import type { KindModule } from "../../lib/engine/kind-module.js";
import { previewResource } from "../../lib/engine/reconcile.js";
import { REGISTRY } from "../../lib/kinds/registry.js";
import { createReconcileContext } from "../../lib/reconcile/context.js";
import {
  CAPABILITY_SUITE_SETUP_MS,
  FIXTURE_SOURCE,
  lockCapabilities,
  testClient,
  testHelm,
} from "../support/capabilities.js";
import { createTestNamespace } from "../support/cluster.js";
import { discardNamespace } from "../support/namespace-content.js";
import { deleteResource, finalizeResources, readStoredResource, registered } from "../support/resources.js";

/**
 * The capability consumers a release step counts come from every registered kind. RedisInstance needs no
 * cert-manager today; a kind that does (the ClickHouse operator's webhook will) is played here by the
 * RedisInstance module with cert-manager among its needs — the registry the engine is given, nothing else.
 */
function registryWhereRedisNeedsCertManager(): readonly KindModule[] {
  return REGISTRY.kinds.map((module) =>
    module.definition.kind === "RedisInstance" ? { ...module, needs: () => ["cert-manager"] } : module,
  );
}

describe("capability consumers across kinds", () => {
  let client: KubeClient;
  let context: ReconcileContext;
  let unlock: () => Promise<void>;
  let ns: string;

  beforeAll(async () => {
    // Other suites finalize every resource of every kind while they hold this lock.
    unlock = await lockCapabilities();
    client = testClient();
    await ensureNaviqueCrds(client);
    context = createReconcileContext({ client, helm: await testHelm(), source: FIXTURE_SOURCE });
    ns = (await createTestNamespace("cross-kind")).name;
  }, CAPABILITY_SUITE_SETUP_MS);
  afterAll(async () => {
    if (context) {
      await finalizeResources(context, "PostgresCluster", ns);
      await finalizeResources(context, "RedisInstance", ns);
      await discardNamespace(client, ns);
    }
    await unlock?.();
  }, CAPABILITY_SUITE_SETUP_MS);

  it("a PostgresCluster deleted keeps cert-manager while a resource of another kind needs it", async () => {
    await client.core.createNamespacedSecret({
      namespace: ns,
      body: { metadata: { name: "conn" }, stringData: { host: "h", password: "p", username: "u" } },
    });
    const external = { mode: "external", external: { connectionSecretRef: { name: "conn" } } };
    await client.custom.createNamespacedCustomObject({
      group: "core.navique.com",
      version: "v1alpha1",
      plural: "redisinstances",
      namespace: ns,
      body: {
        apiVersion: "core.navique.com/v1alpha1",
        kind: "RedisInstance",
        metadata: { name: "queue" },
        spec: external,
      },
    });
    // A PostgresCluster a pass of ours had reconciled in managed mode: it needed both operators.
    await client.custom.createNamespacedCustomObject({
      group: "core.navique.com",
      version: "v1alpha1",
      plural: "postgresclusters",
      namespace: ns,
      body: {
        apiVersion: "core.navique.com/v1alpha1",
        kind: "PostgresCluster",
        metadata: { name: "db", finalizers: [FINALIZER] },
        spec: external,
      },
    });
    await client.custom.patchNamespacedCustomObjectStatus(
      {
        group: "core.navique.com",
        version: "v1alpha1",
        plural: "postgresclusters",
        namespace: ns,
        name: "db",
        body: [{ op: "add", path: "/status", value: { conditions: [], needs: ["cert-manager", "cloudnative-pg"] } }],
      },
      undefined,
    );
    await deleteResource(client, "PostgresCluster", ns, "db");
    const deleting = await readStoredResource(client, "PostgresCluster", ns, "db");
    if (!deleting) throw new Error("the PostgresCluster vanished before its finalizer ran");
    expect(registered("PostgresCluster").definition.kind).toBe(deleting.kind);

    const releases = async (registry: readonly KindModule[]) =>
      (await previewResource({ ...context, registry }, deleting)).plan.steps.flatMap((s) =>
        s.kind === "release-capability" ? [[s.capability, s.consumers]] : [],
      );
    // Dependants first; cert-manager kept for the RedisInstance, whatever kind it is.
    expect(await releases(registryWhereRedisNeedsCertManager())).toEqual([
      ["cloudnative-pg", []],
      ["cert-manager", [`RedisInstance ${ns}/queue`]],
    ]);
    // With the registry as it is, nothing else needs cert-manager: both are released.
    expect(await releases(REGISTRY.kinds)).toEqual([
      ["cloudnative-pg", []],
      ["cert-manager", []],
    ]);
  });
});
