import { FINALIZER, OWNED_BY_LABEL, OWNERSHIP_MARKS } from "../../lib/api/group.js";
import { CERT_MANAGER } from "../../lib/catalog/cert-manager.js";
import { CLOUDNATIVE_PG } from "../../lib/catalog/cloudnative-pg.js";
import { type KubeClient, orUndefined } from "../../lib/cluster/kube-client.js";
import type { ReconcileContext } from "../../lib/engine/context.js";
import { CNPG_API_VERSION } from "../../lib/kinds/postgres-cluster/cnpg.js";
import { releaseRecords } from "../support/capabilities.js";
import { capabilitySuite } from "../support/capability-suite.js";
import { condition, eventually } from "../support/cluster.js";
import { expectPlantedNowhere, recordedEvents } from "../support/planted-secret.js";
import {
  createPostgresCluster,
  deletePostgresCluster,
  eventsAbout,
  playCnpgClusterReady,
  readCnpgCluster,
  readPostgresCluster,
  reconcilePostgresCluster,
  reconcileUntil,
  replaceSpec,
} from "../support/postgres.js";
import { createReferenceGrant } from "../support/resources.js";

/** Reconciles a deleted PostgresCluster until its finalizer is gone and the object with it. */
async function reconcileDeletion(context: ReconcileContext, namespace: string, name: string) {
  await eventually(`PostgresCluster ${namespace}/${name} to be finalized`, async () => {
    const resource = await readPostgresCluster(context.client, namespace, name);
    if (!resource) return true;
    await reconcilePostgresCluster(context, resource);
    return undefined;
  });
}

// The PostgresCluster core on the real plane: modes, readiness gates, migration garbage collection and
// the deletion guard. CloudNativePG cannot run here: the fixture chart carries its identity and the
// tests play its controller by writing the Cluster status it would write (playCnpgClusterReady).
describe("PostgresCluster modes and garbage collection", () => {
  // More PostgresClusters run at once here than the Community edition allows: a test licence.
  const suite = capabilitySuite({
    capabilities: [CLOUDNATIVE_PG, CERT_MANAGER],
    licence: { caps: { PostgresCluster: 50 } },
  });
  const { namespaces } = suite;
  let client: KubeClient;
  let context: ReconcileContext;
  beforeAll(() => {
    ({ client, context } = suite);
  });
  const namespace = (name: string) => namespaces.create(name);

  const reconcileOnce = async (ns: string, name: string) => {
    const resource = await readPostgresCluster(client, ns, name);
    if (!resource) throw new Error(`PostgresCluster ${ns}/${name} does not exist`);
    return reconcilePostgresCluster(context, resource);
  };

  it("managed: installs the operators, emits the CNPG Cluster, Databases and generated credentials, then reports Ready", async () => {
    const ns = await namespace("pg-managed");
    await createPostgresCluster(client, ns, "main", {
      databases: [{ name: "litellm" }, { name: "langfuse", owner: "langfuse" }],
    });

    const outcome = await reconcileUntil(
      context,
      ns,
      "main",
      (o) => !o.requeue,
      async () => {
        if (await readCnpgCluster(client, ns, "main")) await playCnpgClusterReady(client, ns, "main");
      },
    );
    expect(outcome.plan.status.host).toBe(`main-rw.${ns}.svc`);

    const resource = await readPostgresCluster(client, ns, "main");
    // Stored as the CRD declares it: the one connection shape, and the deprecated field beside it.
    expect(resource?.status?.connection).toEqual({
      host: `main-rw.${ns}.svc`,
      port: 5432,
      credentialsSecret: { name: "main-credentials", namespace: ns },
      url: `postgresql://main-rw.${ns}.svc:5432`,
    });
    expect(resource?.status?.host).toBe(`main-rw.${ns}.svc`);
    expect(resource?.metadata.finalizers).toContain(FINALIZER);
    expect(condition(resource, "Ready")).toMatchObject({
      status: "True",
      reason: "Ready",
      message: `PostgreSQL reachable at main-rw.${ns}.svc:5432`,
    });
    expect(condition(resource, "OperatorsReady")).toMatchObject({ status: "True", reason: "Ready" });
    expect(resource?.status?.provenance).toBe("owned");
    expect(resource?.status?.credentialsSecret).toEqual({ name: "main-credentials", namespace: ns });
    expect(resource?.status?.capabilities.map((c) => [c.name, c.provenance, c.chartVersion])).toEqual([
      ["cert-manager", "owned", "v1.21.1"],
      ["cloudnative-pg", "owned", "0.29.0"],
    ]);
    expect((await releaseRecords(client, "cnpg-system", "cloudnative-pg"))[0]?.metadata?.labels).toMatchObject(
      OWNERSHIP_MARKS,
    );

    const cluster = await readCnpgCluster(client, ns, "main");
    expect(cluster?.metadata.labels?.[OWNED_BY_LABEL]).toBe(`postgrescluster.${ns}.main`);
    expect(cluster?.spec).toMatchObject({
      instances: 1,
      storage: { size: "10Gi" },
      bootstrap: { initdb: { database: "app", owner: "app", secret: { name: "main-credentials" } } },
      managed: {
        roles: [
          { name: "langfuse", ensure: "present", login: true, passwordSecret: { name: "main-langfuse-credentials" } },
        ],
      },
    });
    const database = (await client.read({
      apiVersion: CNPG_API_VERSION,
      kind: "Database",
      metadata: { name: "main-litellm", namespace: ns },
    })) as { spec: unknown } | undefined;
    expect(database?.spec).toEqual({ name: "litellm", owner: "app", cluster: { name: "main" } });

    const secret = await client.core.readNamespacedSecret({ name: "main-credentials", namespace: ns });
    expect(secret.type).toBe("kubernetes.io/basic-auth");
    expect(Buffer.from(secret.data?.username ?? "", "base64").toString()).toBe("app");
    expect(Buffer.from(secret.data?.password ?? "", "base64").toString()).toMatch(/^[A-Za-z0-9_-]{32}$/);
    // Under the default Retain no owner reference: the garbage collector must not take the password of
    // data that is kept (docs/adr/0014-credentials-on-deletion-and-drift.md).
    expect(secret.metadata?.ownerReferences).toBeUndefined();
    // The generated password is never inlined: not in the CNPG Cluster, not in the PostgresCluster.
    const password = Buffer.from(secret.data?.password ?? "", "base64").toString();
    expectPlantedNowhere(password, {
      [`CNPG Cluster ${ns}/main`]: cluster,
      [`PostgresCluster ${ns}/main`]: resource,
      [`the Events of ${ns}`]: await recordedEvents(client, ns),
    });

    // A second pass changes nothing: same password, same Cluster generation.
    await reconcileUntil(context, ns, "main", (o) => !o.requeue);
    expect((await client.core.readNamespacedSecret({ name: "main-credentials", namespace: ns })).data?.password).toBe(
      secret.data?.password,
    );
    expect((await readCnpgCluster(client, ns, "main"))?.metadata.generation).toBe(cluster?.metadata.generation);

    // Leave no consumer behind for the reference-count tests below.
    await deletePostgresCluster(client, ns, "main");
    await reconcileDeletion(context, ns, "main");
  });

  it("adopt: references a CNPG Cluster in another namespace, copies its credentials, creates Databases beside it and never touches it", async () => {
    const data = await namespace("pg-data");
    const apps = await namespace("pg-apps");
    // The user's own cluster and credentials, made without the product.
    await client.apply(
      {
        apiVersion: CNPG_API_VERSION,
        kind: "Cluster",
        metadata: { name: "shared", namespace: data },
        spec: { instances: 3, storage: { size: "50Gi" } },
      } as never,
      { fieldManager: "kubectl" },
    );
    await playCnpgClusterReady(client, data, "shared");
    await client.core.createNamespacedSecret({
      namespace: data,
      body: {
        metadata: { name: "shared-app" },
        type: "kubernetes.io/basic-auth",
        stringData: { username: "owner", password: "s3cret-from-the-user" },
      },
    });
    const before = await readCnpgCluster(client, data, "shared");
    // The data namespace's owner lets PostgresClusters of apps adopt them (docs/reference-grants.md).
    await createReferenceGrant(client, data, "apps-may-adopt", {
      from: [{ group: "core.navique.com", kind: "PostgresCluster", namespace: apps }],
      to: [
        { group: "postgresql.cnpg.io", kind: "Cluster", name: "shared" },
        { group: "", kind: "Secret", name: "shared-app" },
      ],
    });

    await createPostgresCluster(client, apps, "chat-db", {
      mode: "adopt",
      adopt: {
        clusterRef: { name: "shared", namespace: data },
        credentialsSecretRef: { name: "shared-app", namespace: data },
      },
      databases: [{ name: "librechat" }],
    });
    await reconcileUntil(context, apps, "chat-db", (o) => !o.requeue);
    const resource = await readPostgresCluster(client, apps, "chat-db");
    expect(condition(resource, "Ready")?.status).toBe("True");
    expect(condition(resource, "OperatorsReady")).toMatchObject({ status: "True", reason: "NotRequired" });
    expect(resource?.status).toMatchObject({
      provenance: "adopted",
      host: `shared-rw.${data}.svc`,
      credentialsSecret: { name: "chat-db-adopted-credentials", namespace: apps },
    });
    const copy = await client.core.readNamespacedSecret({ name: "chat-db-adopted-credentials", namespace: apps });
    expect(Buffer.from(copy.data?.password ?? "", "base64").toString()).toBe("s3cret-from-the-user");
    expectPlantedNowhere("s3cret-from-the-user", { [`PostgresCluster ${apps}/chat-db`]: resource });
    const database = (await client.read({
      apiVersion: CNPG_API_VERSION,
      kind: "Database",
      metadata: { name: "shared-librechat", namespace: data },
    })) as { metadata: { labels: Record<string, string> }; spec: unknown } | undefined;
    expect(database?.spec).toEqual({ name: "librechat", owner: "owner", cluster: { name: "shared" } });
    expect(database?.metadata.labels[OWNED_BY_LABEL]).toBe(`postgrescluster.${apps}.chat-db`);

    await deletePostgresCluster(client, apps, "chat-db");
    await reconcileDeletion(context, apps, "chat-db");
    expect(
      await client.read({
        apiVersion: CNPG_API_VERSION,
        kind: "Database",
        metadata: { name: "shared-librechat", namespace: data },
      }),
    ).toBeUndefined();
    const after = await readCnpgCluster(client, data, "shared");
    expect(after?.metadata.resourceVersion).toBe(before?.metadata.resourceVersion);
  });

  it("external: wires the connection Secret only; a missing Secret is explained", async () => {
    const ns = await namespace("pg-external");
    await createPostgresCluster(client, ns, "cloud", {
      mode: "external",
      external: { connectionSecretRef: { name: "cloud-pg" } },
    });
    const waiting = await reconcileOnce(ns, "cloud");
    expect(waiting.requeue).toBe(true);
    expect(condition(waiting.plan.status, "DatastoreReady")).toMatchObject({
      status: "False",
      reason: "ConnectionSecretInvalid",
      message: `Secret ${ns}/cloud-pg (spec.external.connectionSecretRef) does not exist: create it with keys host, port, username and password`,
    });

    await client.core.createNamespacedSecret({
      namespace: ns,
      body: {
        metadata: { name: "cloud-pg" },
        stringData: { host: "pg.example.internal", port: "6432", username: "u", password: "p" },
      },
    });
    const ready = await reconcileUntil(context, ns, "cloud", (o) => !o.requeue);
    expect(ready.plan.status).toMatchObject({
      provenance: "external",
      host: "pg.example.internal",
      port: 6432,
      credentialsSecret: { name: "cloud-pg", namespace: ns },
    });
    expect(ready.plan.status.emitted).toEqual([]);
  });

  it("a type not implemented yet says so", async () => {
    const ns = await namespace("pg-zalando");
    await createPostgresCluster(client, ns, "z", {
      type: "zalando",
      mode: "external",
      external: { connectionSecretRef: { name: "x" } },
    });
    const outcome = await reconcileOnce(ns, "z");
    expect(condition(outcome.plan.status, "Ready")).toMatchObject({
      status: "False",
      reason: "NotImplemented",
      message: "spec.type zalando is not implemented yet; use type: cnpg (CloudNativePG)",
    });
  });

  it("managed → external (deletionPolicy Delete): deletes the CNPG Cluster it created and releases cloudnative-pg only once no consumer is left", async () => {
    const ns = await namespace("pg-migrate");
    const spec = { databases: [{ name: "app1" }], managed: { deletionPolicy: "Delete" as const } };
    await createPostgresCluster(client, ns, "first", spec);
    await createPostgresCluster(client, ns, "second", spec);
    for (const name of ["first", "second"]) {
      await reconcileUntil(
        context,
        ns,
        name,
        (o) => !o.requeue,
        async () => {
          if (await readCnpgCluster(client, ns, name)) await playCnpgClusterReady(client, ns, name);
        },
      );
    }
    await client.core.createNamespacedSecret({
      namespace: ns,
      body: {
        metadata: { name: "cloud-pg" },
        stringData: { host: "pg.example.internal", username: "u", password: "p" },
      },
    });
    const external = { mode: "external" as const, external: { connectionSecretRef: { name: "cloud-pg" } } };

    // "second" still needs cloudnative-pg: "first" moving away deletes its own Cluster but keeps the operator.
    await replaceSpec(client, ns, "first", external);
    const moved = await reconcileUntil(context, ns, "first", (o) => !o.requeue);
    expect(moved.performedInAllPasses).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^delete Cluster .*\/first \(mode\/type changed from managed\/cnpg to external\/cnpg\)$/),
        `keep cloudnative-pg: still needed by PostgresCluster ${ns}/second`,
      ]),
    );
    expect(await readCnpgCluster(client, ns, "first")).toBeUndefined();
    expect(await releaseRecords(client, "cnpg-system", "cloudnative-pg")).toHaveLength(1);
    const events = await eventsAbout(client, ns, "first");
    expect(events).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          type: "Warning",
          reason: "DatastoreDeleted",
          note: expect.stringContaining("its data is lost unless you dumped it"),
        }),
        expect.objectContaining({
          type: "Normal",
          reason: "GarbageCollected",
          note: expect.stringContaining(`Secret ${ns}/first-credentials`),
        }),
      ]),
    );

    // The last consumer leaves: the operators, owned, are uninstalled; their CRDs stay.
    await replaceSpec(client, ns, "second", external);
    await reconcileUntil(context, ns, "second", (o) => !o.requeue);
    expect(await releaseRecords(client, "cnpg-system", "cloudnative-pg")).toHaveLength(0);
    expect(await releaseRecords(client, "cert-manager", "cert-manager")).toHaveLength(0);
    expect(
      await orUndefined(client.extensions.readCustomResourceDefinition({ name: "clusters.postgresql.cnpg.io" })),
    ).toBeDefined();
    expect((await readPostgresCluster(client, ns, "second"))?.status?.capabilities).toEqual([]);
  });

  it("deleting a managed cluster under the default Retain policy keeps the CNPG Cluster, says so, and releases it to the user", async () => {
    const ns = await namespace("pg-retain");
    await createPostgresCluster(client, ns, "keep", {});
    await reconcileUntil(
      context,
      ns,
      "keep",
      (o) => !o.requeue,
      async () => {
        if (await readCnpgCluster(client, ns, "keep")) await playCnpgClusterReady(client, ns, "keep");
      },
    );
    await deletePostgresCluster(client, ns, "keep");
    await reconcileDeletion(context, ns, "keep");

    const kept = await readCnpgCluster(client, ns, "keep");
    expect(kept).toBeDefined();
    expect(kept?.metadata.labels?.[OWNED_BY_LABEL]).toBeUndefined();
    expect(await eventsAbout(client, ns, "keep")).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          type: "Warning",
          reason: "DatastoreRetained",
          note: expect.stringContaining("may hold data and was kept (deletionPolicy Retain)"),
        }),
      ]),
    );
    // Nothing else needs the operators any more, and they are ours: released.
    expect(await releaseRecords(client, "cnpg-system", "cloudnative-pg")).toHaveLength(0);
  });
});
