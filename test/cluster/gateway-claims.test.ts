import { CERT_MANAGER } from "../../lib/catalog/cert-manager.js";
import { CLOUDNATIVE_PG } from "../../lib/catalog/cloudnative-pg.js";
import { LITELLM_OPERATOR } from "../../lib/catalog/litellm-operator.js";
import type { HelmCli } from "../../lib/cluster/helm-cli.js";
import { type KubeClient, orUndefined } from "../../lib/cluster/kube-client.js";
import type { ReconcileContext } from "../../lib/engine/context.js";
import type { GatewayStatus } from "../../lib/kinds/gateway/schema.js";
import { claimIdentifier } from "../../lib/kinds/postgres-cluster/claims.js";
import type { PostgresClusterStatus } from "../../lib/kinds/postgres-cluster/schema.js";
import { createReconcileContext } from "../../lib/reconcile/context.js";
import { FIXTURE_SOURCE } from "../support/capabilities.js";
import { capabilitySuite } from "../support/capability-suite.js";
import { condition, eventually } from "../support/cluster.js";
import { TEST_TRUSTED_KEYS } from "../support/licence.js";
import { playLiteLLMOperator, readLiteLLM } from "../support/litellm.js";
import { inProcessOperator } from "../support/operator.js";
import { expectPlantedNowhere, recordedEvents } from "../support/planted-secret.js";
import {
  listCnpgDatabaseRoles,
  playCnpgClusterReady,
  playCnpgDatabaseRolesApplied,
  playCnpgDatabaseRolesReleased,
  readCnpgCluster,
} from "../support/postgres.js";
import {
  createReferenceGrant,
  createResource,
  finalizeResources,
  gatewayClaimingAcross,
  readStoredResource,
  reconcileUntil,
} from "../support/resources.js";

const CNPG = { group: "postgresql.cnpg.io", version: "v1" };

const decoded = (secret: { data?: Record<string, string> } | undefined, key: string) =>
  Buffer.from(secret?.data?.[key] ?? "", "base64").toString();

// Claims on the real plane: Gateways in two namespaces auto-wired (licence with auto-wiring) to one managed
// PostgresCluster in a third, under a grant. CloudNativePG and the LiteLLM operator are installed from
// their fixture charts; their controllers are played (playCnpgClusterReady, playLiteLLMOperator): no pod
// runs here, so no database or role is really created — the test reads what CNPG is asked for.
describe("claims: Gateways on a shared PostgresCluster", () => {
  const suite = capabilitySuite({
    capabilities: [LITELLM_OPERATOR, CLOUDNATIVE_PG, CERT_MANAGER],
    licence: { features: ["auto-wiring"], caps: { Gateway: 5 } },
  });
  const { namespaces } = suite;
  let client: KubeClient;
  let helm: HelmCli;
  let context: ReconcileContext;
  beforeAll(() => {
    ({ client, helm, context } = suite);
  });

  it("each Gateway gets a database and a user of its own, its URL copied into its namespace; a claim goes with its Gateway", async () => {
    const data = await namespaces.create("claims-data");
    const apps = await namespaces.create("claims-apps");
    const team = await namespaces.create("claims-team");
    await createResource(client, "PostgresCluster", data, "shared", { managed: { deletionPolicy: "Delete" } });
    const playCnpg = async () => {
      if (await readCnpgCluster(client, data, "shared")) await playCnpgClusterReady(client, data, "shared");
    };
    await reconcileUntil(context, "PostgresCluster", data, "shared", (o) => !o.requeue, playCnpg);
    await createReferenceGrant(client, data, "gateways", {
      from: [
        { group: "core.navique.com", kind: "Gateway", namespace: apps },
        { group: "core.navique.com", kind: "Gateway", namespace: team },
      ],
      to: [{ group: "core.navique.com", kind: "PostgresCluster", name: "shared" }],
    });
    const database = { mode: "postgresCluster", postgresClusterRef: { name: "shared", namespace: data } };
    await createResource(client, "Gateway", apps, "llm", { database });
    await createResource(client, "Gateway", team, "llm", { database });

    // Before the cluster has made the claim, the Gateway waits, saying for what.
    await reconcileUntil(
      context,
      "Gateway",
      apps,
      "llm",
      (o) => condition(o.plan.status as never, "GatewayReady")?.reason === "ClaimPending",
    );
    const waiting = await readStoredResource(client, "Gateway", apps, "llm");
    expect(condition(waiting, "GatewayReady")).toMatchObject({ status: "False", reason: "ClaimPending" });
    expect(await readLiteLLM(client, "litellminstances", apps, "llm")).toBeUndefined();

    // The cluster's pass makes both claims: a role and a database each, under names no two share.
    const made = await reconcileUntil(context, "PostgresCluster", data, "shared", (o) => !o.requeue, playCnpg);
    const users = [`Gateway/${apps}/llm`, `Gateway/${team}/llm`].map((claimant) => {
      const [kind = "", namespace = "", name = ""] = claimant.split("/");
      return claimIdentifier({ claimant, kind, namespace, name });
    });
    expect(new Set(users).size).toBe(2);
    const claims = (made.plan.status as PostgresClusterStatus).claims ?? [];
    expect(claims.map((c) => [c.claimant, c.user, c.database])).toEqual([
      [`Gateway/${apps}/llm`, users[0], users[0]],
      [`Gateway/${team}/llm`, users[1], users[1]],
    ]);
    // Each role a DatabaseRole of its own beside the Cluster, never an entry of the Cluster's managed.roles.
    const cnpg = await readCnpgCluster(client, data, "shared");
    expect(cnpg?.spec?.managed).toBeUndefined();
    const roles = await listCnpgDatabaseRoles(client, data);
    expect(roles.map((r) => r.spec.name)).toEqual(users);
    for (const claim of claims) {
      const database = (await client.custom.getNamespacedCustomObject({
        ...CNPG,
        plural: "databases",
        namespace: data,
        name: `shared-${claim.database?.replace(/_/g, "-")}`,
      })) as { spec: Record<string, unknown> };
      // Under the cluster's deletionPolicy Delete, a claim's database is dropped once its claimant goes.
      expect(database.spec).toEqual({
        name: claim.database,
        owner: claim.user,
        cluster: { name: "shared" },
        databaseReclaimPolicy: "delete",
      });
      const secret = await client.core.readNamespacedSecret({ name: claim.credentialsSecret.name, namespace: data });
      expect(decoded(secret, "username")).toBe(claim.user);
      // Under the cluster's deletionPolicy Delete, a claim's role is dropped once its claimant goes.
      expect(roles.find((r) => r.spec.name === claim.user)?.spec).toEqual({
        name: claim.user,
        cluster: { name: "shared" },
        login: true,
        passwordSecret: { name: claim.credentialsSecret.name },
        databaseRoleReclaimPolicy: "delete",
      });
    }
    // CNPG creates the roles: from now on, deleting a DatabaseRole drops its role before its finalizer goes.
    await playCnpgDatabaseRolesApplied(client, data);

    // Each Gateway: its URL copied into its own namespace, the instance reading it there.
    for (const ns of [apps, team]) {
      await reconcileUntil(
        context,
        "Gateway",
        ns,
        "llm",
        (o) => !o.requeue,
        () => playLiteLLMOperator(client, ns, "llm"),
      );
      const stored = await readStoredResource(client, "Gateway", ns, "llm");
      expect(condition(stored, "Ready")?.status).toBe("True");
      expect((stored?.status as GatewayStatus | undefined)?.wiring).toEqual([
        `spec.database.postgresClusterRef → PostgresCluster ${data}/shared: auto-wired`,
      ]);
      const claim = claims.find((c) => c.claimant === `Gateway/${ns}/llm`);
      const credentials = await client.core.readNamespacedSecret({
        name: claim?.credentialsSecret.name ?? "",
        namespace: data,
      });
      const copy = await client.core.readNamespacedSecret({ name: "llm-database", namespace: ns });
      expect(decoded(copy, "url")).toBe(
        `postgresql://${claim?.user}:${encodeURIComponent(decoded(credentials, "password"))}@shared-rw.${data}.svc:5432/${claim?.database}`,
      );
      expect((await readLiteLLM(client, "litellminstances", ns, "llm"))?.spec).toMatchObject({
        database: { external: { connectionSecretRef: { name: "llm-database", key: "url" } } },
      });
      // The password is in Secrets only: not in the Gateway, nor in the cluster's status, nor in the Events.
      expectPlantedNowhere(decoded(credentials, "password"), {
        [`Gateway ${ns}/llm`]: stored,
        [`PostgresCluster ${data}/shared's status`]: made.plan.status,
        [`the Events of ${data} and ${ns}`]: await recordedEvents(client, data, ns),
      });
    }

    // One Gateway goes; the operator restarts (a new context, nothing kept in memory): the cluster's next
    // pass drops its claim — DatabaseRole and Database deleted, to be dropped in PostgreSQL by CNPG under
    // their reclaim policy delete, and the Secret; the other's stays.
    await finalizeResources(context, "Gateway", apps);
    const restarted = createReconcileContext({ client, helm, source: FIXTURE_SOURCE, trustedKeys: TEST_TRUSTED_KEYS });
    const after = await reconcileUntil(restarted, "PostgresCluster", data, "shared", (o) => !o.requeue, playCnpg);
    expect(((after.plan.status as PostgresClusterStatus).claims ?? []).map((c) => c.claimant)).toEqual([
      `Gateway/${team}/llm`,
    ]);
    const gone = claims.find((c) => c.claimant === `Gateway/${apps}/llm`);
    const goneRole = `shared-${gone?.user?.replace(/_/g, "-")}`;
    expect(after.performedInAllPasses).toEqual(
      expect.arrayContaining([`delete DatabaseRole ${data}/${goneRole} (no longer in the spec)`]),
    );
    // CNPG's finalizer holds the deleted DatabaseRole until it has dropped the role (reclaim policy delete).
    const leaving = (await listCnpgDatabaseRoles(client, data)).find((r) => r.metadata.name === goneRole);
    expect(leaving?.metadata.deletionTimestamp).toBeDefined();
    expect(leaving?.spec.databaseRoleReclaimPolicy).toBe("delete");
    expect(await playCnpgDatabaseRolesReleased(client, data)).toEqual([goneRole]);
    expect((await listCnpgDatabaseRoles(client, data)).map((r) => r.spec.name)).toEqual([users[1]]);
    expect((await readCnpgCluster(client, data, "shared"))?.spec?.managed).toBeUndefined();
    expect(
      (await readStoredResource(client, "PostgresCluster", data, "shared"))?.status?.emitted?.map((e) => e.name),
    ).not.toContain(goneRole);
    expect(
      await orUndefined(
        client.core.readNamespacedSecret({ name: gone?.credentialsSecret.name ?? "", namespace: data }),
      ),
    ).toBeUndefined();
    expect(
      await orUndefined(
        client.custom.getNamespacedCustomObject({
          ...CNPG,
          plural: "databases",
          namespace: data,
          name: `shared-${gone?.database?.replace(/_/g, "-")}`,
        }),
      ),
    ).toBeUndefined();

    await finalizeResources(context, "Gateway", team);
    await finalizeResources(context, "PostgresCluster", data);
    await playCnpgDatabaseRolesReleased(client, data);
  }, 300_000);

  it("under the default Retain, a claim that goes leaves its role and database in PostgreSQL: both objects deleted with reclaim policy retain", async () => {
    const data = await namespaces.create("claims-retain");
    await createResource(client, "PostgresCluster", data, "shared", {});
    const playCnpg = async () => {
      if (await readCnpgCluster(client, data, "shared")) await playCnpgClusterReady(client, data, "shared");
    };
    await createResource(client, "Gateway", data, "llm", {
      database: { mode: "postgresCluster", postgresClusterRef: { name: "shared" } },
    });
    await reconcileUntil(
      context,
      "PostgresCluster",
      data,
      "shared",
      (o) => !o.requeue && ((o.plan.status as PostgresClusterStatus).claims ?? []).length === 1,
      playCnpg,
    );
    const [role] = await listCnpgDatabaseRoles(client, data);
    expect(role?.spec.databaseRoleReclaimPolicy).toBe("retain");
    const objectName = role?.metadata.name ?? "";
    const database = (await client.custom.getNamespacedCustomObject({
      ...CNPG,
      plural: "databases",
      namespace: data,
      name: objectName,
    })) as { spec: Record<string, unknown> };
    expect(database.spec.databaseReclaimPolicy).toBe("retain");
    await playCnpgDatabaseRolesApplied(client, data);

    await finalizeResources(context, "Gateway", data);
    const after = await reconcileUntil(context, "PostgresCluster", data, "shared", (o) => !o.requeue, playCnpg);
    expect((after.plan.status as PostgresClusterStatus).claims).toEqual([]);
    const [leaving] = await listCnpgDatabaseRoles(client, data);
    expect(leaving?.metadata.deletionTimestamp).toBeDefined();
    expect(leaving?.spec.databaseRoleReclaimPolicy).toBe("retain");
    expect(await playCnpgDatabaseRolesReleased(client, data)).toEqual([objectName]);
    expect(
      await orUndefined(
        client.custom.getNamespacedCustomObject({ ...CNPG, plural: "databases", namespace: data, name: objectName }),
      ),
    ).toBeUndefined();
    await finalizeResources(context, "PostgresCluster", data);
  }, 300_000);

  it("an adopted CNPG Cluster takes a claim only with spec.adopt.claims: then the claim's role and database are objects beside it, the Cluster and its user's roles untouched; they go with the Gateway", async () => {
    const data = await namespaces.create("claims-adopt-data");
    const platform = await namespaces.create("claims-adopt-platform");
    const apps = await namespaces.create("claims-adopt-apps");
    // The user's own CNPG Cluster, applied by their tool (field manager "argocd"), with a role of theirs.
    const userRoles = [{ name: "reporting", ensure: "present", login: true, passwordSecret: { name: "reporting-pw" } }];
    await client.apply(
      {
        apiVersion: "postgresql.cnpg.io/v1",
        kind: "Cluster",
        metadata: { name: "shared", namespace: data },
        spec: { instances: 1, storage: { size: "1Gi" }, managed: { roles: userRoles } },
      } as never,
      { fieldManager: "argocd" },
    );
    await playCnpgClusterReady(client, data, "shared");
    await client.core.createNamespacedSecret({
      namespace: data,
      body: {
        metadata: { name: "shared-app" },
        type: "kubernetes.io/basic-auth",
        stringData: { username: "app", password: "the-users-app-password" },
      },
    });
    const before = await readCnpgCluster(client, data, "shared");
    await createReferenceGrant(client, data, "platform-may-adopt", {
      from: [{ group: "core.navique.com", kind: "PostgresCluster", namespace: platform }],
      to: [
        { group: "postgresql.cnpg.io", kind: "Cluster", name: "shared" },
        { group: "", kind: "Secret", name: "shared-app" },
      ],
    });
    await createReferenceGrant(client, platform, "apps-may-use-db", {
      from: [{ group: "core.navique.com", kind: "Gateway", namespace: apps }],
      to: [{ group: "core.navique.com", kind: "PostgresCluster", name: "db" }],
    });
    const adopt = {
      clusterRef: { name: "shared", namespace: data },
      credentialsSecretRef: { name: "shared-app", namespace: data },
    };
    await createResource(client, "PostgresCluster", platform, "db", { mode: "adopt", adopt });
    await reconcileUntil(context, "PostgresCluster", platform, "db", (o) => !o.requeue);
    await createResource(client, "Gateway", apps, "llm", {
      database: { mode: "postgresCluster", postgresClusterRef: { name: "db", namespace: platform } },
    });

    // Without the opt-in the claim is refused, naming the field that would let it be taken.
    await reconcileUntil(
      context,
      "Gateway",
      apps,
      "llm",
      (o) => condition(o.plan.status as never, "GatewayReady")?.reason === "ClaimNotTaken",
    );
    const refused = await readStoredResource(client, "Gateway", apps, "llm");
    expect(condition(refused, "GatewayReady")?.message).toBe(
      `spec.database.postgresClusterRef: PostgresCluster ${platform}/db adopts a CNPG Cluster the product does not own, and makes no database of its own for a consumer there unless told to: set spec.adopt.claims on it (each consumer's role and database are then made beside that Cluster, which stays unmodified), point spec.database.postgresClusterRef at a managed PostgresCluster, or set spec.database.databaseUrlSecretRef to wire the gateway by hand`,
    );
    expect(condition(refused, "Stalled")?.status).toBe("True");
    expect(await listCnpgDatabaseRoles(client, data)).toEqual([]);

    // Opted in (claims dropped with their Gateway): the claim's password generated in the PostgresCluster's
    // namespace, copied beside the Cluster, a DatabaseRole and a Database there; then published.
    await client.custom.patchNamespacedCustomObject(
      {
        group: "core.navique.com",
        version: "v1alpha1",
        plural: "postgresclusters",
        namespace: platform,
        name: "db",
        body: [{ op: "add", path: "/spec/adopt/claims", value: { deletionPolicy: "Delete" } }],
      },
      undefined,
    );
    const made = await reconcileUntil(
      context,
      "PostgresCluster",
      platform,
      "db",
      (o) => !o.requeue && ((o.plan.status as PostgresClusterStatus).claims ?? []).length === 1,
    );
    const [claim] = (made.plan.status as PostgresClusterStatus).claims ?? [];
    const user = claimIdentifier({ claimant: `Gateway/${apps}/llm`, kind: "Gateway", namespace: apps, name: "llm" });
    const secretName = claim?.credentialsSecret.name ?? "";
    expect(claim).toEqual({
      claimant: `Gateway/${apps}/llm`,
      database: user,
      user,
      credentialsSecret: { name: secretName, namespace: platform },
    });
    const objectName = `shared-${user.replace(/_/g, "-")}`;
    const roles = await listCnpgDatabaseRoles(client, data);
    expect(roles.map((r) => [r.metadata.name, r.spec])).toEqual([
      [
        objectName,
        {
          name: user,
          cluster: { name: "shared" },
          login: true,
          passwordSecret: { name: secretName },
          databaseRoleReclaimPolicy: "delete",
        },
      ],
    ]);
    const database = (await client.custom.getNamespacedCustomObject({
      ...CNPG,
      plural: "databases",
      namespace: data,
      name: objectName,
    })) as { spec: Record<string, unknown> };
    expect(database.spec).toEqual({
      name: user,
      owner: user,
      cluster: { name: "shared" },
      databaseReclaimPolicy: "delete",
    });
    const source = await client.core.readNamespacedSecret({ name: secretName, namespace: platform });
    const copy = await client.core.readNamespacedSecret({ name: secretName, namespace: data });
    expect(decoded(copy, "username")).toBe(user);
    expect(decoded(copy, "password")).toBe(decoded(source, "password"));
    expect(copy.metadata?.labels?.["cnpg.io/reload"]).toBe("true");

    // The user's Cluster was never written: same resourceVersion, their roles as they were, and every field
    // of its spec still owned by their own field manager alone.
    const after = await readCnpgCluster(client, data, "shared");
    expect(after?.metadata.resourceVersion).toBe(before?.metadata.resourceVersion);
    expect(after?.spec?.managed).toEqual({ roles: userRoles });
    const managers = (after?.metadata.managedFields ?? []).filter((m) => m.subresource !== "status");
    expect(managers.map((m) => m.manager)).toEqual(["argocd"]);
    expect(JSON.stringify(managers[0]?.fieldsV1)).toContain('"f:roles"');

    // The Gateway wired to its own database in the adopted cluster.
    await reconcileUntil(
      context,
      "Gateway",
      apps,
      "llm",
      (o) => !o.requeue,
      () => playLiteLLMOperator(client, apps, "llm"),
    );
    const url = decoded(await client.core.readNamespacedSecret({ name: "llm-database", namespace: apps }), "url");
    expect(url).toBe(
      `postgresql://${user}:${encodeURIComponent(decoded(source, "password"))}@shared-rw.${data}.svc:5432/${user}`,
    );

    // The Gateway goes: its role and database go by the reclaim policy delete (CNPG drops both), the
    // password's copy beside the Cluster and its Secret with them; the Cluster still untouched.
    await playCnpgDatabaseRolesApplied(client, data);
    await finalizeResources(context, "Gateway", apps);
    const dropped = await reconcileUntil(context, "PostgresCluster", platform, "db", (o) => !o.requeue);
    expect((dropped.plan.status as PostgresClusterStatus).claims).toEqual([]);
    expect(dropped.performedInAllPasses).toEqual(
      expect.arrayContaining([
        `delete DatabaseRole ${data}/${objectName} (no longer in the spec)`,
        `delete Database ${data}/${objectName} (no longer in the spec)`,
        `delete Secret ${data}/${secretName} (no longer in the spec)`,
        `delete Secret ${platform}/${secretName} (no longer in the spec)`,
      ]),
    );
    expect(await playCnpgDatabaseRolesReleased(client, data)).toEqual([objectName]);
    expect(await orUndefined(client.core.readNamespacedSecret({ name: secretName, namespace: data }))).toBeUndefined();
    expect((await readCnpgCluster(client, data, "shared"))?.metadata.resourceVersion).toBe(
      before?.metadata.resourceVersion,
    );
    await finalizeResources(context, "PostgresCluster", platform);
  }, 300_000);

  it("through the operator: the cluster makes the claim when a Gateway appears, the Gateway is wired when the claim is published, and follows a rotated password", async () => {
    const data = await namespaces.create("claims-op-data");
    const apps = await namespaces.create("claims-op-apps");
    await gatewayClaimingAcross(client, data, apps);
    // No resync in the test's time: what carries the claim across is the watches alone.
    const operator = inProcessOperator(client, helm, { resyncMs: 600_000 });
    await operator.start();
    try {
      await eventually(
        "the operator to wire Gateway llm to its own database",
        async () => {
          if (await readCnpgCluster(client, data, "shared")) await playCnpgClusterReady(client, data, "shared");
          await playLiteLLMOperator(client, apps, "llm");
          const now = condition(await readStoredResource(client, "Gateway", apps, "llm"), "Ready");
          if (now?.status !== "True") throw new Error(`Ready is ${now?.status}: ${now?.message}`);
          return true;
        },
        { timeoutMs: 120_000 },
      );
      const copy = await client.core.readNamespacedSecret({ name: "llm-database", namespace: apps });
      // The claim's password rotated (its Secret deleted, re-created by the cluster with a new one): the
      // Gateway's copy follows at once, through the watch of the cluster's Secrets — no resync here.
      const shared = await readStoredResource(client, "PostgresCluster", data, "shared");
      const published = (shared?.status as PostgresClusterStatus | undefined)?.claims?.[0];
      const claimSecret = published?.credentialsSecret.name ?? "";
      const before = decoded(
        await client.core.readNamespacedSecret({ name: claimSecret, namespace: data }),
        "password",
      );
      await client.core.deleteNamespacedSecret({ name: claimSecret, namespace: data });
      await eventually(
        "the Gateway's copy to carry the rotated password",
        async () => {
          const now = await orUndefined(client.core.readNamespacedSecret({ name: claimSecret, namespace: data }));
          const password = decoded(now, "password");
          if (!password || password === before) return undefined;
          const copied = await client.core.readNamespacedSecret({ name: "llm-database", namespace: apps });
          return decoded(copied, "password") === password ? true : undefined;
        },
        { timeoutMs: 30_000 },
      );
      expect(decoded(copy, "url")).toMatch(
        new RegExp(
          `^postgresql://gateway_claims_op_apps_[a-z0-9_]+:.+@shared-rw\\.${data}\\.svc:5432/gateway_claims_op_apps_`,
        ),
      );
    } finally {
      await operator.stop();
      await finalizeResources(context, "Gateway", apps);
      await finalizeResources(context, "PostgresCluster", data);
    }
  }, 300_000);
});
