import { ensureNaviqueCrds } from "../../lib/apply/navique-crds.js";
import { FIELD_MANAGER, type KubeClient } from "../../lib/cluster/kube-client.js";
import { applyChangesNothing } from "../../lib/engine/applied-fields.js";
import { testClient } from "../support/capabilities.js";
import { createTestNamespace } from "../support/cluster.js";

// The managed-fields comparison (lib/engine/applied-fields.ts) against the sets a real apiserver records:
// a built-in kind read through the typed client, and a CRD's object (structural schema, list of maps).
describe("applyChangesNothing on a real apiserver", () => {
  let client: KubeClient;
  let ns: { name: string; cleanup: () => Promise<void> };

  beforeAll(async () => {
    client = testClient();
    await ensureNaviqueCrds(client);
    ns = await createTestNamespace("applied-fields");
  });
  afterAll(async () => {
    await ns?.cleanup();
  });

  const read = async (object: { apiVersion: string; kind: string; metadata: { name: string; namespace: string } }) =>
    (await client.read(object)) as object | undefined;

  it("a ConfigMap: unchanged once applied; a key removed from the desired state, or changed by another writer, is a change", async () => {
    const namespace = ns.name;
    const desired = {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "cm", namespace, labels: { a: "1", b: "2" } },
      data: { one: "1", two: "2" },
    };
    expect(applyChangesNothing(desired, await read(desired), FIELD_MANAGER)).toBe(false);
    await client.apply(desired);
    expect(applyChangesNothing(desired, await read(desired), FIELD_MANAGER)).toBe(true);

    // Removed from the desired state: the object still holds every desired field, and the apply must run.
    const smaller = { ...desired, metadata: { ...desired.metadata, labels: { a: "1" } }, data: { one: "1" } };
    expect(applyChangesNothing(smaller, await read(desired), FIELD_MANAGER)).toBe(false);
    await client.apply(smaller);
    const after = (await read(desired)) as { metadata: { labels: object }; data: object };
    expect([after.metadata.labels, after.data]).toEqual([{ a: "1" }, { one: "1" }]);
    expect(applyChangesNothing(smaller, after, FIELD_MANAGER)).toBe(true);

    // Another writer changes a value the product applied (kubectl edit): it takes the field over.
    await client.core.patchNamespacedConfigMap(
      { name: "cm", namespace, body: [{ op: "replace", path: "/data/one", value: "edited" }], fieldManager: "kubectl" },
      undefined,
    );
    expect(applyChangesNothing(smaller, await read(desired), FIELD_MANAGER)).toBe(false);
    // Another writer adds a field of its own: not the product's, not compared.
    await client.apply(smaller);
    await client.core.patchNamespacedConfigMap(
      { name: "cm", namespace, body: [{ op: "add", path: "/data/theirs", value: "x" }], fieldManager: "kubectl" },
      undefined,
    );
    expect(applyChangesNothing(smaller, await read(desired), FIELD_MANAGER)).toBe(true);
  });

  it("a custom resource with a list of maps: unchanged once applied; a list member removed is a change", async () => {
    const namespace = ns.name;
    const desired = {
      apiVersion: "core.navique.com/v1alpha1",
      kind: "PostgresCluster",
      metadata: { name: "pg", namespace, annotations: { note: "x" } },
      spec: { databases: [{ name: "app1" }, { name: "app2" }] },
    };
    await client.apply(desired);
    const applied = await read(desired);
    // The apiserver's defaults (the schema's) are in the object, not in the product's set.
    expect(applyChangesNothing(desired, applied, FIELD_MANAGER)).toBe(true);
    const fewer = { ...desired, spec: { databases: [{ name: "app1" }] } };
    expect(applyChangesNothing(fewer, applied, FIELD_MANAGER)).toBe(false);
    await client.apply(fewer);
    expect(applyChangesNothing(fewer, await read(desired), FIELD_MANAGER)).toBe(true);
  });
});
