import type { KubeClient } from "../../lib/cluster/kube-client.js";
import { createReconcileContext, type ReconcileContext } from "../../lib/reconcile/context.js";
import { create, destroy } from "../../providers/pulumi/runtime.js";
import {
  CAPABILITY_SUITE_SETUP_MS,
  FIXTURE_CHARTS,
  FIXTURE_SOURCE,
  lockCapabilities,
  resetCapabilities,
  testClient,
  testHelm,
} from "../support/capabilities.js";
import { removeLicence } from "../support/licence.js";
import { suiteNamespaces } from "../support/namespace-content.js";
import { createConnectionSecret, createPostgresCluster, readPostgresCluster } from "../support/postgres.js";

// Pulumi records nothing of a create that fails: what the provider wrote into the cluster for it must go
// again, or it is a resource no state knows of — here a PostgresCluster with the product's finalizer,
// holding a seat of the Community cap. The provider's own code, called in-process as Pulumi's provider
// process calls it.
describe("a Pulumi create that fails", () => {
  let client: KubeClient;
  let context: ReconcileContext;
  let unlock: (() => Promise<void>) | undefined;
  const namespaces = suiteNamespaces();

  beforeAll(async () => {
    unlock = await lockCapabilities();
    client = testClient();
    const helm = await testHelm();
    // No licence (Community: 2 PostgresClusters) and nothing of the product left from another suite.
    await removeLicence(client);
    await resetCapabilities(client, helm, [], { crds: false });
    context = createReconcileContext({ client, helm, source: FIXTURE_SOURCE });
  }, CAPABILITY_SUITE_SETUP_MS);
  afterAll(async () => {
    if (context) await namespaces.discard(context);
    await unlock?.();
  });

  const inputs = (namespace: string, name: string) => ({
    kind: "PostgresCluster",
    namespace,
    name,
    spec: { mode: "external", external: { connectionSecretRef: { name: "pg" } } },
    kubeconfig: process.env.NAVIQUE_TEST_KUBECONFIG ?? "",
    chartSource: `dir:${FIXTURE_CHARTS}`,
    timeoutSeconds: 60,
  });

  it("removes the custom resource it recorded, so that no seat stays taken; one that existed before stays", async () => {
    const ns = await namespaces.create("failed-create");
    await createConnectionSecret(client, ns);
    await create(inputs(ns, "first"));
    await create(inputs(ns, "second"));

    // The third is refused by the Community cap: the create fails, and leaves nothing behind.
    const refused = create(inputs(ns, "third"));
    await expect(refused).rejects.toThrow(`PostgresCluster ${ns}/third refused by the licence`);
    await expect(refused).rejects.toThrow(
      `(the PostgresCluster ${ns}/third this create recorded was removed: nothing is left in the cluster)`,
    );
    expect(await readPostgresCluster(client, ns, "third")).toBeUndefined();

    // A seat freed, the same create succeeds.
    await destroy(inputs(ns, "second"));
    await expect(create(inputs(ns, "third"))).resolves.toMatchObject({ id: `${ns}/third` });

    // One created before by another front end (kubectl here), refused too, is not the create's to remove.
    await createPostgresCluster(client, ns, "fourth", inputs(ns, "fourth").spec as never);
    await expect(create(inputs(ns, "fourth"))).rejects.toThrow(
      `(PostgresCluster ${ns}/fourth existed before this create: left as it is)`,
    );
    expect(await readPostgresCluster(client, ns, "fourth")).toBeDefined();
  });
});
