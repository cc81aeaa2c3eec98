import { ensureNaviqueCrds } from "../../lib/apply/navique-crds.js";
import type { HelmCli } from "../../lib/cluster/helm-cli.js";
import { FIELD_MANAGER, type KubeClient } from "../../lib/cluster/kube-client.js";
import { applyChangesNothing } from "../../lib/engine/applied-fields.js";
import { execute } from "../../lib/engine/execute.js";
import type { EngineResource } from "../../lib/engine/kind-module.js";
import { type KubeObject, keyOf } from "../../lib/engine/objects.js";
import type { EngineView } from "../../lib/engine/view.js";
import { communityEntitlements } from "../../lib/licence/entitlements.js";
import { createReconcileContext } from "../../lib/reconcile/context.js";
import { testClient, testHelm } from "../support/capabilities.js";
import { createTestNamespace } from "../support/cluster.js";
import { registered } from "../support/resources.js";

/** A Secret as a watch of metadata only shows it (PartialObjectMetadata): its metadata, no data. */
const METADATA_ONLY = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1";

// The managed-fields comparison (lib/engine/applied-fields.ts) against the sets a real apiserver records:
// a built-in kind read through the typed client, and a CRD's object (structural schema, list of maps).
describe("applyChangesNothing on a real apiserver", () => {
  let client: KubeClient;
  let helm: HelmCli;
  let ns: { name: string; cleanup: () => Promise<void> };

  beforeAll(async () => {
    client = testClient();
    helm = await testHelm();
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

  it("a Secret written with stringData: unchanged once applied, compared as stored; another writer's value is a change", async () => {
    const namespace = ns.name;
    const desired = {
      apiVersion: "v1",
      kind: "Secret",
      type: "Opaque",
      metadata: { name: "copy", namespace, labels: { a: "1" } },
      stringData: { url: "postgresql://u:p@db:5432/app" },
    };
    await client.apply(desired);
    const applied = await read(desired);
    // The apiserver records the manager's stringData keys; a read returns them in data alone.
    expect(JSON.stringify((applied as { metadata: { managedFields: unknown } }).metadata.managedFields)).toContain(
      '"f:stringData":{"f:url":{}}',
    );
    expect(applied).not.toHaveProperty("stringData");
    expect(applyChangesNothing(desired, applied, FIELD_MANAGER)).toBe(true);
    expect(
      applyChangesNothing({ ...desired, stringData: { url: "postgresql://u:q@db:5432/app" } }, applied, FIELD_MANAGER),
    ).toBe(false);
    await client.core.patchNamespacedSecret(
      {
        name: "copy",
        namespace,
        body: [{ op: "replace", path: "/data/url", value: "ZWRpdGVk" }],
        fieldManager: "kubectl",
      },
      undefined,
    );
    expect(applyChangesNothing(desired, await read(desired), FIELD_MANAGER)).toBe(false);
  });

  // GIVEN a Secret the view shows without its data, as a watch of metadata only holds it
  // WHEN the executor is asked to apply the same body again
  // THEN no request is sent while the Secret is at the version the process's own last apply left; a new
  //      body, a write by someone else, or a process that applied nothing yet (a restart) sends it.
  it("the executor sends no apply of an unchanged Secret seen without its data; a change is applied", async () => {
    const namespace = ns.name;
    const secret = (url: string): KubeObject =>
      ({
        apiVersion: "v1",
        kind: "Secret",
        type: "Opaque",
        metadata: { name: "unseen", namespace },
        stringData: { url },
      }) as KubeObject;
    const seen = async () => {
      const { body } = await client.get(`/api/v1/namespaces/${namespace}/secrets/unseen`, METADATA_ONLY);
      const partial = JSON.parse(body) as KubeObject & { data?: unknown };
      expect(partial.data).toBeUndefined();
      return { ...partial, apiVersion: "v1", kind: "Secret" } as KubeObject;
    };
    const view = (live?: KubeObject): EngineView => ({
      capabilities: [],
      consumers: [],
      objects: new Map(live ? [[keyOf(live), live]] : []),
      licence: { entitlements: communityEntitlements(), instances: [] },
    });
    const module = registered("Gateway");
    const resource = { apiVersion: "core.navique.com/v1alpha1", kind: "Gateway", metadata: { name: "llm", namespace } };
    const pass = (context: ReturnType<typeof createReconcileContext>, object: KubeObject, live?: KubeObject) =>
      execute(context, module, resource as EngineResource, { kind: "apply", object, description: "copy" }, view(live));
    const context = createReconcileContext({ client, helm });
    const sent = async (run: () => Promise<unknown>) => {
      const before = client.writes;
      await run();
      return client.writes - before;
    };

    expect(await sent(() => pass(context, secret("postgresql://a")))).toBe(1);
    expect(await pass(context, secret("postgresql://a"), await seen())).toBe("unchanged");
    expect(await sent(async () => pass(context, secret("postgresql://a"), await seen()))).toBe(0);
    // A restart: this process applied nothing yet, and the view shows no data to compare; the apply is sent
    // (and changes nothing on the server).
    const restarted = createReconcileContext({ client, helm });
    expect(await sent(async () => pass(restarted, secret("postgresql://a"), await seen()))).toBe(1);
    // A new body is applied.
    expect(await sent(async () => pass(context, secret("postgresql://b"), await seen()))).toBe(1);
    const stored = await client.core.readNamespacedSecret({ name: "unseen", namespace });
    expect(Buffer.from(stored.data?.url ?? "", "base64").toString()).toBe("postgresql://b");
    // Someone else writes it: another version, and the product's body is applied again.
    await client.core.patchNamespacedSecret(
      {
        name: "unseen",
        namespace,
        body: [{ op: "replace", path: "/data/url", value: "ZWRpdGVk" }],
        fieldManager: "kubectl",
      },
      undefined,
    );
    expect(await sent(async () => pass(context, secret("postgresql://b"), await seen()))).toBe(1);
    const restored = await client.core.readNamespacedSecret({ name: "unseen", namespace });
    expect(Buffer.from(restored.data?.url ?? "", "base64").toString()).toBe("postgresql://b");
  });
});
