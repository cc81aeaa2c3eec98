import { API_GROUP, API_VERSION, FINALIZER } from "../../lib/api/group.js";
import { ensureNaviqueCrds } from "../../lib/apply/navique-crds.js";
import { ensureFinalizer, removeFinalizer } from "../../lib/engine/finalizer.js";
import { writeStatus } from "../../lib/engine/report.js";
import { STACK_PLURAL } from "../../lib/kinds/stack/schema.js";
import { toolchainPaths } from "../../lib/local-plane/toolchain-paths.js";
import { destroy as destroyPostgresCluster } from "../../providers/pulumi/runtime.js";
import { destroy as destroyStack } from "../../providers/pulumi/stack-runtime.js";
import { FIXTURE_CHARTS, testClient } from "../support/capabilities.js";
import { createTestNamespace } from "../support/cluster.js";
import { TEST_TRUSTED_KEYS } from "../support/licence.js";
import { createStack, deleteStack, readStack } from "../support/stack.js";

// A resource finalized and removed by one front end (the operator) while another (`pulumi destroy`) still
// works from the copy it read: the second one's writes answer 404, and a resource gone is what a delete
// wants — success, never failure. Stacks stand for every kind here: the finalizer code is one for all.
describe("a resource that vanished meanwhile", () => {
  const client = testClient();
  let namespace: Awaited<ReturnType<typeof createTestNamespace>>;
  const ns = () => namespace.name;

  beforeAll(async () => {
    await ensureNaviqueCrds(client);
    namespace = await createTestNamespace("vanished");
  });
  afterAll(async () => {
    await namespace?.cleanup();
  });

  async function stackWithFinalizer(name: string) {
    await createStack(client, ns(), name);
    await client.custom.patchNamespacedCustomObject(
      {
        group: API_GROUP,
        version: API_VERSION,
        plural: STACK_PLURAL,
        namespace: ns(),
        name,
        body: [{ op: "add", path: "/metadata/finalizers", value: [FINALIZER] }],
      },
      undefined,
    );
    const stack = await readStack(client, ns(), name);
    if (!stack) throw new Error(`Stack ${ns()}/${name} was not created`);
    return stack;
  }

  // GIVEN a Stack with the product's finalizer, read by a second context (the stale copy), then deleted
  // WHEN the first context removes the finalizer (the Stack is gone) and the second then removes it too
  // THEN the second removal resolves: the finalizer's work is done, by whoever did it.
  it("removeFinalizer with a stale copy of a resource another context finalized resolves", async () => {
    const stale = await stackWithFinalizer("finalized-twice");
    await deleteStack(client, ns(), "finalized-twice");
    const fresh = await readStack(client, ns(), "finalized-twice");
    expect(fresh?.metadata.deletionTimestamp).toBeDefined();
    if (!fresh) return;
    await removeFinalizer(client, STACK_PLURAL, fresh);
    expect(await readStack(client, ns(), "finalized-twice")).toBeUndefined();

    await expect(removeFinalizer(client, STACK_PLURAL, stale)).resolves.toBeUndefined();
  });

  // GIVEN a Stack read (without the finalizer yet) and then deleted by someone else
  // WHEN the reconcile's first step ensures the finalizer on that copy
  // THEN it resolves, and says the resource is gone so that the caller can stop.
  it("ensureFinalizer on a resource deleted meanwhile resolves to false", async () => {
    await createStack(client, ns(), "deleted-before-finalizer");
    const stale = await readStack(client, ns(), "deleted-before-finalizer");
    expect(stale?.metadata.finalizers ?? []).toEqual([]);
    await deleteStack(client, ns(), "deleted-before-finalizer");
    expect(await readStack(client, ns(), "deleted-before-finalizer")).toBeUndefined();
    if (!stale) return;

    await expect(ensureFinalizer(client, STACK_PLURAL, stale)).resolves.toBe(false);
  });

  // GIVEN a Stack read by a pass before it had any finalizer, then given one by another controller
  // WHEN the pass ensures the product's finalizer from that copy
  // THEN both are there: the list is not written whole over the other controller's finalizer.
  it("ensureFinalizer from a copy read before another controller's finalizer keeps that one", async () => {
    const name = "two-finalizers";
    const patch = (body: object[]) =>
      client.custom.patchNamespacedCustomObject(
        { group: API_GROUP, version: API_VERSION, plural: STACK_PLURAL, namespace: ns(), name, body },
        undefined,
      );
    await createStack(client, ns(), name);
    const stale = await readStack(client, ns(), name);
    if (!stale) throw new Error("the Stack was not created");
    expect(stale.metadata.finalizers ?? []).toEqual([]);
    await patch([{ op: "add", path: "/metadata/finalizers", value: ["example.com/other-controller"] }]);
    try {
      await expect(ensureFinalizer(client, STACK_PLURAL, stale)).resolves.toBe(true);
      expect((await readStack(client, ns(), name))?.metadata.finalizers).toEqual([
        "example.com/other-controller",
        FINALIZER,
      ]);
    } finally {
      // Neither controller runs here: the finalizers go by hand, or the namespace could never be deleted.
      await patch([{ op: "replace", path: "/metadata/finalizers", value: [] }]);
      await deleteStack(client, ns(), name);
    }
  });

  // GIVEN a Stack read by a pass, then deleted by someone else before the pass ends
  // WHEN the pass writes the Stack's status from that copy
  // THEN the write resolves as "gone": nothing is left to report on, and that is not a failure.
  it("a status write for a resource deleted meanwhile resolves as gone", async () => {
    await createStack(client, ns(), "deleted-before-status");
    const stale = await readStack(client, ns(), "deleted-before-status");
    await deleteStack(client, ns(), "deleted-before-status");
    expect(await readStack(client, ns(), "deleted-before-status")).toBeUndefined();
    if (!stale) throw new Error("the Stack was not created");

    const status = { conditions: [{ type: "Ready", status: "False", reason: "Pending", message: "m" }] } as const;
    await expect(writeStatus(client, STACK_PLURAL, stale, status, new Date())).resolves.toEqual({ outcome: "gone" });
  });

  const inputs = async (name: string) => ({
    namespace: ns(),
    name,
    spec: {},
    kubeconfig: process.env.NAVIQUE_TEST_KUBECONFIG ?? "",
    helm: (await toolchainPaths()).helm,
    chartSource: `dir:${FIXTURE_CHARTS}`,
    timeoutSeconds: 60,
  });

  // GIVEN a Stack and a PostgresCluster that are already gone (finalized by the operator)
  // WHEN the Pulumi runtimes' delete runs for them, in-process as the dynamic provider runs it
  // THEN each resolves: nothing is left to delete.
  it("the Pulumi runtimes' delete of an already-gone resource resolves", async () => {
    await expect(destroyStack(await inputs("never-there"), TEST_TRUSTED_KEYS)).resolves.toBeUndefined();
    await expect(destroyPostgresCluster({ ...(await inputs("never-there")), spec: {} })).resolves.toBeUndefined();
  });

  // GIVEN a Stack with the finalizer, being deleted
  // WHEN two deletes run at once (a `pulumi destroy` while the operator finalizes it: each reads the Stack,
  //      each removes the finalizer from the copy it read)
  // THEN both resolve, whichever of them removed the finalizer first; repeated, since the interleaving varies.
  it("two Pulumi deletes racing on one resource both resolve", async () => {
    for (let round = 0; round < 5; round += 1) {
      const name = `raced-${round}`;
      await stackWithFinalizer(name);
      const racing = await inputs(name);
      const results = await Promise.allSettled([
        destroyStack(racing, TEST_TRUSTED_KEYS),
        destroyStack(racing, TEST_TRUSTED_KEYS),
      ]);
      expect(results.map((result) => (result.status === "rejected" ? String(result.reason) : "resolved"))).toEqual([
        "resolved",
        "resolved",
      ]);
      expect(await readStack(client, ns(), name)).toBeUndefined();
    }
  });
});
