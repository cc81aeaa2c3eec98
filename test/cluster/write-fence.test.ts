import { KubeClient, orUndefined, WriteFencedError } from "../../lib/cluster/kube-client.js";
import { createTestNamespace, testKubeConfig } from "../support/cluster.js";

// An operator that lost the lead fences its client (lib/cli/operator-command.ts): from then on no write of
// its reaches the apiserver — typed calls, server-side applies and deletes alike — while its reads go on,
// and lifting the fence lets them through again. Checked against the real apiserver: what it stores.
describe("a client's write fence", () => {
  let namespace: Awaited<ReturnType<typeof createTestNamespace>>;
  beforeAll(async () => {
    namespace = await createTestNamespace("write-fence");
  });
  afterAll(async () => {
    await namespace?.cleanup();
  });

  it("refuses every write while fenced, lets reads through, and writes again once lifted", async () => {
    const ns = namespace.name;
    const client = new KubeClient(testKubeConfig());
    await client.core.createNamespacedConfigMap({
      namespace: ns,
      body: { metadata: { name: "kept" }, data: { a: "1" } },
    });
    let leading = false;
    client.fenceWrites(() => (leading ? undefined : "this operator does not hold the leader lease"));

    const configMap = {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "applied", namespace: ns },
      data: { b: "2" },
    };
    await expect(client.apply(configMap)).rejects.toThrow(
      new WriteFencedError(
        `PATCH /api/v1/namespaces/${ns}/configmaps/applied`,
        "this operator does not hold the leader lease",
      ),
    );
    await expect(
      client.core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: "created" } } }),
    ).rejects.toThrow(
      /POST \/api\/v1\/namespaces\/.*\/configmaps not sent: this operator does not hold the leader lease/,
    );
    await expect(
      client.delete({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "kept", namespace: ns } }),
    ).rejects.toThrow(WriteFencedError);
    // Reads go on.
    expect((await client.core.readNamespacedConfigMap({ name: "kept", namespace: ns })).data).toEqual({ a: "1" });

    // Nothing reached the apiserver, as an unfenced client sees.
    const other = new KubeClient(testKubeConfig());
    expect(await orUndefined(other.core.readNamespacedConfigMap({ name: "applied", namespace: ns }))).toBeUndefined();
    expect(await orUndefined(other.core.readNamespacedConfigMap({ name: "created", namespace: ns }))).toBeUndefined();
    expect(await orUndefined(other.core.readNamespacedConfigMap({ name: "kept", namespace: ns }))).toBeDefined();

    leading = true;
    await client.apply(configMap);
    expect((await other.core.readNamespacedConfigMap({ name: "applied", namespace: ns })).data).toEqual({ b: "2" });
  });
});
