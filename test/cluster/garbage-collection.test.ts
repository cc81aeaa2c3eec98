import { CoreV1Api } from "@kubernetes/client-node";
import { apiStatus, createTestNamespace, eventually, testKubeConfig } from "../support/cluster.js";

// kube-controller-manager's garbage collector is what deletes dependents once their owner is gone;
// an apiserver alone (envtest) never does. This proves the plane runs it.
describe("owner-reference garbage collection on the local control plane", () => {
  const core = testKubeConfig().makeApiClient(CoreV1Api);
  let namespace: Awaited<ReturnType<typeof createTestNamespace>>;

  beforeAll(async () => {
    namespace = await createTestNamespace("smoke-gc");
  });
  afterAll(async () => {
    await namespace?.cleanup();
  });

  it("deletes a Secret whose owner is deleted, and keeps one without an owner", async () => {
    const owner = await core.createNamespacedConfigMap({
      namespace: namespace.name,
      body: { metadata: { name: "owner" }, data: { role: "owner" } },
    });
    const uid = owner.metadata?.uid;
    if (!uid) throw new Error("the apiserver returned a ConfigMap without a uid");
    await core.createNamespacedSecret({
      namespace: namespace.name,
      body: {
        metadata: {
          name: "dependent",
          ownerReferences: [{ apiVersion: "v1", kind: "ConfigMap", name: "owner", uid, blockOwnerDeletion: true }],
        },
        stringData: { token: "generated" },
      },
    });
    await core.createNamespacedSecret({
      namespace: namespace.name,
      body: { metadata: { name: "bystander" }, stringData: { token: "kept" } },
    });

    await core.deleteNamespacedConfigMap({ name: "owner", namespace: namespace.name, propagationPolicy: "Background" });

    const status = await eventually("the dependent Secret to be garbage-collected", async () => {
      const code = await core.readNamespacedSecret({ name: "dependent", namespace: namespace.name }).then(
        () => undefined,
        (error: unknown) => apiStatus(error),
      );
      return code === 404 ? code : undefined;
    });
    expect(status).toBe(404);
    const bystander = await core.readNamespacedSecret({ name: "bystander", namespace: namespace.name });
    expect(bystander.metadata?.name).toBe("bystander");
  });
});
