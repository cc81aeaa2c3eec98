import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseAllDocuments, stringify } from "yaml";
import { API_GROUP, API_VERSION } from "../../lib/api/group.js";
import { REFERENCE_GRANT_PLURAL } from "../../lib/api/reference-grant.js";
import { ensureNaviqueCrds } from "../../lib/apply/navique-crds.js";
import type { HelmCli } from "../../lib/cluster/helm-cli.js";
import { type KubeClient, orUndefined } from "../../lib/cluster/kube-client.js";
import { run, runUnchecked } from "../../lib/cluster/process.js";
import { observeOptions, type ReconcileContext } from "../../lib/engine/context.js";
import type { EngineResource } from "../../lib/engine/kind-module.js";
import { observeResource } from "../../lib/engine/observe.js";
import { previewDesired } from "../../lib/engine/preview.js";
import { CNPG_API_VERSION } from "../../lib/kinds/postgres-cluster/cnpg.js";
import { POSTGRES_CLUSTER_MODULE } from "../../lib/kinds/postgres-cluster/module.js";
import { PostgresCluster } from "../../lib/kinds/postgres-cluster/schema.js";
import { createReconcileContext } from "../../lib/reconcile/context.js";
import type { NaviqueOperator } from "../../providers/operator/operator.js";
import { failIfBlocked } from "../../providers/pulumi/runtime-actions.js";
import {
  CAPABILITY_SUITE_SETUP_MS,
  FIXTURE_CHARTS,
  FIXTURE_SOURCE,
  lockCapabilities,
  testClient,
  testHelm,
} from "../support/capabilities.js";
import { condition, eventually } from "../support/cluster.js";
import { applyLicence, removeLicence, TEST_TRUSTED_KEYS, testLicenceToken } from "../support/licence.js";
import { suiteNamespaces } from "../support/namespace-content.js";
import { inProcessOperator } from "../support/operator.js";
import {
  createPostgresCluster,
  eventsAbout,
  playCnpgClusterReady,
  readCnpgCluster,
  readPostgresCluster,
  reconcilePostgresCluster,
} from "../support/postgres.js";
import { createReferenceGrant } from "../support/resources.js";

const grants = { group: API_GROUP, version: API_VERSION, plural: REFERENCE_GRANT_PLURAL };
const TSX = join(process.cwd(), "node_modules", ".bin", "tsx");
const CLI = join(process.cwd(), "lib", "cli", "main.ts");
const KUBECONFIG = process.env.NAVIQUE_TEST_KUBECONFIG ?? "";

/** The CNPG CRDs, applied as a user installing them by hand would (the fixture chart carries CNPG's). */
async function applyCnpgCrds(client: KubeClient, helm: HelmCli): Promise<void> {
  const crds = (
    await run(helm.binary, [
      "template",
      "crds",
      join(FIXTURE_CHARTS, "cloudnative-pg"),
      "--show-only",
      "templates/crds.yaml",
    ])
  ).stdout;
  for (const document of parseAllDocuments(crds)) {
    const object = document.toJS() as { apiVersion: string; kind: string; metadata: { name: string } } | null;
    if (object) await client.apply(object, { fieldManager: "kubectl" });
  }
}

/** Namespace B as its owner made it: a CNPG Cluster `shared` (Ready: the test plays CNPG) and its credentials. */
async function prepareDataNamespace(client: KubeClient, namespace: string): Promise<void> {
  await client.apply(
    {
      apiVersion: CNPG_API_VERSION,
      kind: "Cluster",
      metadata: { name: "shared", namespace },
      spec: { instances: 1 },
    } as never,
    { fieldManager: "kubectl" },
  );
  await playCnpgClusterReady(client, namespace, "shared");
  await client.core.createNamespacedSecret({
    namespace,
    body: {
      metadata: { name: "shared-app" },
      type: "kubernetes.io/basic-auth",
      stringData: { username: "owner", password: "password-of-namespace-b" },
    },
  });
}

/** The grant the owner of `data` creates so that PostgresClusters of `apps` may adopt `shared`. */
async function grantAdoption(client: KubeClient, data: string, apps: string): Promise<void> {
  await createReferenceGrant(client, data, "apps-may-adopt", {
    from: [{ group: API_GROUP, kind: "PostgresCluster", namespace: apps }],
    to: [
      { group: "postgresql.cnpg.io", kind: "Cluster", name: "shared" },
      { group: "", kind: "Secret", name: "shared-app" },
    ],
  });
}

async function revokeAdoption(client: KubeClient, data: string): Promise<void> {
  await client.custom.deleteNamespacedCustomObject({ ...grants, namespace: data, name: "apps-may-adopt" });
}

const readCopy = (client: KubeClient, namespace: string) =>
  orUndefined(client.core.readNamespacedSecret({ name: "chat-db-adopted-credentials", namespace }));
const readDatabase = (client: KubeClient, namespace: string) =>
  client.read({
    apiVersion: CNPG_API_VERSION,
    kind: "Database",
    metadata: { name: "shared-librechat", namespace },
  });

const adoptFrom = (data: string) => ({
  mode: "adopt" as const,
  adopt: {
    clusterRef: { name: "shared", namespace: data },
    credentialsSecretRef: { name: "shared-app", namespace: data },
  },
  databases: [{ name: "librechat" }],
});

const notPermitted = (apps: string, data: string) =>
  `spec.adopt.clusterRef (namespace ${data}) and spec.adopt.credentialsSecretRef (namespace ${data}) are not granted by the referenced namespace: nothing was read, copied or created there. Create a ReferenceGrant in namespace ${data} from group core.navique.com kind PostgresCluster namespace ${apps} to group postgresql.cnpg.io kind Cluster name shared, and to group "" kind Secret name shared-app`;

// The confused deputy of issue 8: a PostgresCluster in namespace A names a CNPG Cluster and a credentials
// Secret in namespace B. The product's broad permissions must not copy B's password into A unless B says
// so with a ReferenceGrant. CloudNativePG cannot run here: the test plays it by writing the Cluster's status.
describe("references into another namespace need a ReferenceGrant there", () => {
  let client: KubeClient;
  let helm: HelmCli;
  let context: ReconcileContext;
  let unlock: (() => Promise<void>) | undefined;
  const namespaces = suiteNamespaces();
  const namespace = (suite: string) => namespaces.create(suite);
  /** What `pulumi up` does at each pass: the engine's pass, then an error for what waiting cannot change. */
  const reconcileOnceAsPulumiUp = async (ctx: ReconcileContext, ns: string, name: string) => {
    const resource = await readPostgresCluster(client, ns, name);
    if (!resource) throw new Error(`PostgresCluster ${ns}/${name} does not exist`);
    failIfBlocked(await reconcilePostgresCluster(ctx, resource), `PostgresCluster ${ns}/${name}`);
  };
  const observe = (resource: PostgresCluster) =>
    observeResource(
      client,
      context.installer,
      POSTGRES_CLUSTER_MODULE as never,
      resource as EngineResource,
      observeOptions(context),
    );
  const reconcileOnce = async (ns: string) => {
    const resource = await readPostgresCluster(client, ns, "chat-db");
    if (!resource) throw new Error(`PostgresCluster ${ns}/chat-db does not exist`);
    return reconcilePostgresCluster(context, resource);
  };

  beforeAll(async () => {
    // The CNPG CRDs are cluster-wide and other suites reset them while holding this lock.
    unlock = await lockCapabilities();
    client = testClient();
    helm = await testHelm();
    await ensureNaviqueCrds(client);
    // A CRD just created answers 429 "storage is (re)initializing" for a moment: wait until it serves.
    await eventually("ReferenceGrants to be served", async () => {
      await client.custom.listNamespacedCustomObject({ ...grants, namespace: "default" });
      return true;
    });
    await applyCnpgCrds(client, helm);
    await applyLicence(client, testLicenceToken({ caps: { PostgresCluster: 50 } }));
    context = createReconcileContext({ client, helm, source: FIXTURE_SOURCE, trustedKeys: TEST_TRUSTED_KEYS });
    // Other suites may hold the lock for minutes on a busy machine.
  }, CAPABILITY_SUITE_SETUP_MS);

  afterAll(async () => {
    // A setup that failed before holding the lock made nothing to clean up.
    if (!unlock) return;
    try {
      await namespaces.discard(context);
      if (client) await removeLicence(client);
    } finally {
      await unlock();
    }
  });

  // First, while no PostgresCluster of this suite exists: the CLI judges by the product's own keys, so the
  // Community cap applies to it.
  it("the preview (pulumi preview) and `navique plan -f` print the missing grant before anything is created", async () => {
    const apps = await namespace("grant-preview");
    const data = await namespace("grant-preview-data");
    await prepareDataNamespace(client, data);
    const desired = PostgresCluster.parse({
      apiVersion: `${API_GROUP}/${API_VERSION}`,
      kind: "PostgresCluster",
      metadata: { name: "chat-db", namespace: apps },
      spec: adoptFrom(data),
    });
    const line = `PostgresCluster ${apps}/chat-db: reference not permitted: ${notPermitted(apps, data)}`;
    const preview = await previewDesired(context, desired);
    expect(preview.lines).toEqual([line]);
    expect(preview.stalled).toMatchObject({ type: "Stalled", status: "True", reason: "ReferenceNotPermitted" });
    expect(preview.stalled?.message).toBe(notPermitted(apps, data));

    // navique plan -f on a file holding the PostgresCluster: the same line, from the CLI.
    const work = await mkdtemp(join(tmpdir(), "navique-grant-plan-"));
    try {
      const file = join(work, "platform.yaml");
      const grant = {
        apiVersion: `${API_GROUP}/${API_VERSION}`,
        kind: "ReferenceGrant",
        metadata: { name: "apps-may-adopt", namespace: data },
        spec: {
          from: [{ group: API_GROUP, kind: "PostgresCluster", namespace: apps }],
          to: [
            { group: "postgresql.cnpg.io", kind: "Cluster", name: "shared" },
            { group: "", kind: "Secret", name: "shared-app" },
          ],
        },
      };
      const plan = async (documents: readonly unknown[], code: number) => {
        await writeFile(file, documents.map((d) => stringify(d)).join("---\n"));
        const result = await runUnchecked(TSX, [CLI, "plan", "-f", file, "--kubeconfig", KUBECONFIG]);
        // Stalled for the missing grant: 1; planned once granted: 2 (docs/plan.md).
        expect(result.code).toBe(code);
        return result.stdout.split("\n").filter((l) => l.startsWith("PostgresCluster "));
      };
      expect(await plan([desired], 1)).toEqual([line]);
      // A grant in the same file will be applied with it: planned as granted.
      expect(await plan([desired, grant], 2)).toEqual([
        `PostgresCluster ${apps}/chat-db: copy the credentials of ${data}/shared-app into Secret ${apps}/chat-db-adopted-credentials`,
        `PostgresCluster ${apps}/chat-db: apply CNPG Database ${data}/shared-librechat beside the adopted cluster`,
      ]);
    } finally {
      await rm(work, { recursive: true, force: true });
    }
    // Previews change nothing.
    expect(await readPostgresCluster(client, apps, "chat-db")).toBeUndefined();
    expect(await readCopy(client, apps)).toBeUndefined();
  });

  it("without a grant nothing is read, copied or created; with one the adoption proceeds; its removal collects the copy", async () => {
    const apps = await namespace("grant-apps");
    const data = await namespace("grant-data");
    await prepareDataNamespace(client, data);
    const adoptedBefore = await readCnpgCluster(client, data, "shared");
    await createPostgresCluster(client, apps, "chat-db", adoptFrom(data));

    // The exploit: before the fix, the first pass copied B's password into A. Now, pass after pass, nothing.
    for (let pass = 0; pass < 3; pass++) {
      const outcome = await reconcileOnce(apps);
      expect(outcome.performed).toEqual([]);
      expect(await readCopy(client, apps)).toBeUndefined();
      expect(await readDatabase(client, data)).toBeUndefined();
    }
    const refused = await readPostgresCluster(client, apps, "chat-db");
    for (const type of ["Ready", "DatastoreReady"]) {
      expect(condition(refused, type)).toMatchObject({
        status: "False",
        reason: "ReferenceNotPermitted",
        message: notPermitted(apps, data),
      });
    }
    expect(refused?.status?.credentialsSecret).toBeUndefined();
    expect(await eventsAbout(client, apps, "chat-db")).toEqual([
      { type: "Warning", reason: "ReferenceNotPermitted", note: notPermitted(apps, data) },
    ]);
    // The observation itself never read B's objects: their data did not even enter the process.
    if (!refused) throw new Error("the PostgresCluster vanished");
    const observed = await observe(refused);
    expect(observed.reads?.adoptCredentials).toBeUndefined();
    expect(observed.reads?.adoptTarget).toBeUndefined();
    expect(observed.referenceGrants).toEqual([]);

    // B's owner grants it: the copy appears and the adoption proceeds.
    await grantAdoption(client, data, apps);
    await eventually("the adoption to proceed", async () => {
      const outcome = await reconcileOnce(apps);
      return outcome.requeue ? undefined : outcome;
    });
    const adopted = await readPostgresCluster(client, apps, "chat-db");
    expect(condition(adopted, "Ready")?.status).toBe("True");
    const copy = await readCopy(client, apps);
    expect(Buffer.from(copy?.data?.password ?? "", "base64").toString()).toBe("password-of-namespace-b");
    expect(await readDatabase(client, data)).toBeDefined();

    // The grant is removed: access is revoked, the copied password no longer sits in A.
    await revokeAdoption(client, data);
    const revoked = await reconcileOnce(apps);
    expect(revoked.performed).toEqual([
      `delete Secret ${apps}/chat-db-adopted-credentials: the credentials it copied are no longer granted`,
    ]);
    expect(await readCopy(client, apps)).toBeUndefined();
    const after = await readPostgresCluster(client, apps, "chat-db");
    expect(condition(after, "Ready")).toMatchObject({ status: "False", reason: "ReferenceNotPermitted" });
    expect(after?.status?.emitted).toEqual([
      { apiVersion: CNPG_API_VERSION, kind: "Database", name: "shared-librechat", namespace: data },
    ]);
    // The adopted cluster is never touched; the Database beside it stays until the PostgresCluster goes.
    expect((await readCnpgCluster(client, data, "shared"))?.metadata.resourceVersion).toBe(
      adoptedBefore?.metadata.resourceVersion,
    );
    expect(await readDatabase(client, data)).toBeDefined();
    expect(await eventsAbout(client, apps, "chat-db")).toEqual(
      expect.arrayContaining([
        {
          type: "Normal",
          reason: "GarbageCollected",
          note: `deleting Secret ${apps}/chat-db-adopted-credentials: the grant that allowed copying the credentials is gone`,
        },
      ]),
    );
    expect(
      (await eventsAbout(client, apps, "chat-db")).filter((e) => e.reason === "ReferenceNotPermitted"),
    ).toHaveLength(2);
    // A further pass changes nothing and reports nothing new.
    expect((await reconcileOnce(apps)).performed).toEqual([]);
    expect(await eventsAbout(client, apps, "chat-db")).toHaveLength(3);
  });

  it("a grant of the wrong kind, or covering only part of the references, opens nothing; a same-namespace adoption needs none", async () => {
    const apps = await namespace("grant-wrong");
    const data = await namespace("grant-wrong-data");
    await prepareDataNamespace(client, data);
    // Another kind that holds references (one that holds none, a Stack, is refused by the apiserver).
    await createReferenceGrant(client, data, "too-narrow", {
      from: [{ group: API_GROUP, kind: "RedisInstance", namespace: apps }],
      to: [{ group: "", kind: "Secret" }],
    });
    await createPostgresCluster(client, apps, "chat-db", adoptFrom(data));
    await reconcileOnce(apps);
    expect(await readCopy(client, apps)).toBeUndefined();
    expect(condition(await readPostgresCluster(client, apps, "chat-db"), "Ready")?.reason).toBe(
      "ReferenceNotPermitted",
    );
    // Half a grant (the Cluster, not the Secret): still refused, and nothing of B is read, the Cluster included.
    await createReferenceGrant(client, data, "cluster-only", {
      from: [{ group: API_GROUP, kind: "PostgresCluster", namespace: apps }],
      to: [{ group: "postgresql.cnpg.io", kind: "Cluster" }],
    });
    const half = await reconcileOnce(apps);
    expect(condition(half.plan.status, "Ready")?.message).toBe(
      `spec.adopt.credentialsSecretRef (namespace ${data}) is not granted by the referenced namespace: nothing was read, copied or created there. Create a ReferenceGrant in namespace ${data} from group core.navique.com kind PostgresCluster namespace ${apps} to group "" kind Secret name shared-app`,
    );
    const halfResource = await readPostgresCluster(client, apps, "chat-db");
    if (!halfResource) throw new Error("the PostgresCluster vanished");
    const observed = await observe(halfResource);
    expect(observed.reads?.adoptTarget).toBeUndefined();
    expect(observed.reads?.adoptCredentials).toBeUndefined();
    expect(await readCopy(client, apps)).toBeUndefined();
    // `pulumi up` cannot deliver it: its pass fails with the same message rather than waiting.
    await expect(reconcileOnceAsPulumiUp(context, apps, "chat-db")).rejects.toThrow(
      `PostgresCluster ${apps}/chat-db: reference not permitted: spec.adopt.credentialsSecretRef (namespace ${data}) is not granted by the referenced namespace`,
    );

    // The same objects in the resource's own namespace: adopted without any grant.
    await prepareDataNamespace(client, apps);
    await createPostgresCluster(client, apps, "local-db", {
      mode: "adopt",
      adopt: { clusterRef: { name: "shared" }, credentialsSecretRef: { name: "shared-app" } },
    });
    await eventually("the same-namespace adoption to be Ready", async () => {
      const resource = await readPostgresCluster(client, apps, "local-db");
      if (!resource) return undefined;
      const outcome = await reconcilePostgresCluster(context, resource);
      return outcome.requeue ? undefined : outcome;
    });
    expect(condition(await readPostgresCluster(client, apps, "local-db"), "Ready")?.status).toBe("True");
  });

  describe("the operator", () => {
    let operator: NaviqueOperator | undefined;
    afterAll(async () => {
      await operator?.stop();
    });

    it("re-judges a PostgresCluster as soon as a grant in the namespace it references is created or removed", async () => {
      const apps = await namespace("grant-op-apps");
      const data = await namespace("grant-op-data");
      await prepareDataNamespace(client, data);
      // No resync during the test: only the ReferenceGrant watch can bring the resource back to the queue.
      operator = inProcessOperator(client, helm, { resyncMs: 3_600_000 });
      await operator.start();
      await createPostgresCluster(client, apps, "chat-db", adoptFrom(data));
      await eventually("the adoption to be refused", async () => {
        const resource = await readPostgresCluster(client, apps, "chat-db");
        return condition(resource, "Ready")?.reason === "ReferenceNotPermitted" ? resource : undefined;
      });
      await grantAdoption(client, data, apps);
      await eventually("the copy to appear once granted", () => readCopy(client, apps));
      await eventually("the resource to be Ready", async () =>
        condition(await readPostgresCluster(client, apps, "chat-db"), "Ready")?.status === "True" ? true : undefined,
      );
      await revokeAdoption(client, data);
      await eventually("the copy to be collected once the grant is removed", async () =>
        (await readCopy(client, apps)) === undefined ? true : undefined,
      );
    });
  });
});
