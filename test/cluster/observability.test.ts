import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CERT_MANAGER } from "../../lib/catalog/cert-manager.js";
import { CLOUDNATIVE_PG } from "../../lib/catalog/cloudnative-pg.js";
import { LITELLM_OPERATOR } from "../../lib/catalog/litellm-operator.js";
import { type KubeClient, orUndefined } from "../../lib/cluster/kube-client.js";
import type { ReconcileContext } from "../../lib/engine/context.js";
import type { GatewayStatus } from "../../lib/kinds/gateway/schema.js";
import type { ObservabilityStatus } from "../../lib/kinds/observability/schema.js";
import type { PostgresClusterStatus } from "../../lib/kinds/postgres-cluster/schema.js";
import { toolchainPaths } from "../../lib/local-plane/toolchain-paths.js";
import { destroy, up } from "../../providers/pulumi/runtime.js";
import { decodedReleaseRecords, FIXTURE_CHARTS } from "../support/capabilities.js";
import { capabilitySuite } from "../support/capability-suite.js";
import { condition } from "../support/cluster.js";
import { applyLicence, removeLicence, TEST_TRUSTED_KEYS, testLicenceToken } from "../support/licence.js";
import { playLiteLLMOperator, readLiteLLM } from "../support/litellm.js";
import { planTrustingTestKey } from "../support/plan-cli.js";
import { expectPlantedNowhere, recordedEvents } from "../support/planted-secret.js";
import {
  playCnpgClusterReady,
  playCnpgDatabaseRolesApplied,
  playCnpgDatabaseRolesReleased,
  readCnpgCluster,
} from "../support/postgres.js";
import {
  createReferenceGrant,
  createResource,
  deleteResource,
  finalizeResources,
  readStoredResource,
  reconcileUntil,
} from "../support/resources.js";

const CH_PASSWORD = "planted-clickhouse-5e1f";
const REDIS_PASSWORD = "planted-redis-77c2";
const S3_SECRET = "planted-s3-secret-0b9d";

const decoded = (secret: { data?: Record<string, string> } | undefined, key: string) =>
  Buffer.from(secret?.data?.[key] ?? "", "base64").toString();

type Env = { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } };

// Observability on the real plane with real helm: the Langfuse release of the fixture chart
// (test/fixtures/charts/langfuse, standing in for the official chart 2.0.0), on a managed PostgresCluster
// (CloudNativePG from its fixture chart, its controller played: no database is really made) and an
// external ClickHouse and Redis, all in another namespace under a grant. kwok runs the Deployments' pods
// as Ready: no Langfuse really starts, so the project it would make at first start is not checked here.
describe("Observability", () => {
  const suite = capabilitySuite({ capabilities: [CLOUDNATIVE_PG, CERT_MANAGER, LITELLM_OPERATOR] });
  const { namespaces } = suite;
  let client: KubeClient;
  let context: ReconcileContext;
  beforeAll(() => {
    ({ client, context } = suite);
  });

  /**
   * The stores of the namespace `data`: a managed PostgresCluster pg (CNPG played Ready), an external
   * ClickHouseCluster ch and RedisInstance cache, each Ready; the S3 keys' Secret in `obs`.
   */
  async function stores(data: string, obs: string): Promise<{ playCnpg: () => Promise<void> }> {
    await createResource(client, "PostgresCluster", data, "pg", { managed: { deletionPolicy: "Delete" } });
    const playCnpg = async () => {
      if (await readCnpgCluster(client, data, "pg")) await playCnpgClusterReady(client, data, "pg");
    };
    await reconcileUntil(context, "PostgresCluster", data, "pg", (o) => !o.requeue, playCnpg);
    for (const [name, stringData] of [
      [
        "ch-conn",
        {
          host: "clickhouse.data.internal",
          port: "8123",
          nativePort: "9000",
          username: "langfuse",
          password: CH_PASSWORD,
        },
      ],
      ["redis-conn", { host: "redis.data.internal", port: "6379", password: REDIS_PASSWORD }],
    ] as const)
      await client.core.createNamespacedSecret({ namespace: data, body: { metadata: { name }, stringData } });
    await createResource(client, "ClickHouseCluster", data, "ch", {
      mode: "external",
      external: { connectionSecretRef: { name: "ch-conn" } },
    });
    await createResource(client, "RedisInstance", data, "cache", {
      mode: "external",
      external: { connectionSecretRef: { name: "redis-conn" } },
    });
    await reconcileUntil(context, "ClickHouseCluster", data, "ch", (o) => !o.requeue);
    await reconcileUntil(context, "RedisInstance", data, "cache", (o) => !o.requeue);
    await client.core.createNamespacedSecret({
      namespace: obs,
      body: {
        metadata: { name: "s3" },
        stringData: { "access-key-id": "AKIAFIXTURE", "secret-access-key": S3_SECRET },
      },
    });
    return { playCnpg };
  }

  /** The stores go once the test is done: the Community edition allows one ClickHouseCluster at a time. */
  async function finalizeStores(data: string): Promise<void> {
    for (const kind of ["ClickHouseCluster", "RedisInstance", "PostgresCluster"])
      await finalizeResources(context, kind, data);
  }

  const spec = (data: string) => ({
    postgresClusterRef: { name: "pg", namespace: data },
    clickhouseClusterRef: { name: "ch", namespace: data },
    redisInstanceRef: { name: "cache", namespace: data },
    s3: {
      bucket: "traces",
      endpoint: "http://minio.storage.svc:9000",
      forcePathStyle: true,
      accessKeyIdSecretRef: { name: "s3", key: "access-key-id" },
      secretAccessKeySecretRef: { name: "s3", key: "secret-access-key" },
    },
  });

  it("Langfuse on the product's datastores: its database claimed, every secret by reference, Ready once rolled out; deleted, it leaves nothing", async () => {
    const data = await namespaces.create("obs-data");
    const obs = await namespaces.create("obs-langfuse");
    const { playCnpg } = await stores(data, obs);
    await createResource(client, "Observability", obs, "langfuse", spec(data));

    // Without a grant in the stores' namespace, nothing of it is read or applied.
    const refused = await reconcileUntil(context, "Observability", obs, "langfuse", () => true);
    expect(condition(refused.plan, "Ready")).toMatchObject({ status: "False", reason: "ReferenceNotPermitted" });
    expect(refused.performed).toEqual([]);

    await grantStores(data, obs);
    // Before the cluster has made its claim, it waits, saying for what.
    const pending = await reconcileUntil(
      context,
      "Observability",
      obs,
      "langfuse",
      (o) => condition(o.plan, "ObservabilityReady")?.reason === "ClaimPending",
    );
    expect(pending.performed).toEqual([]);
    const made = await reconcileUntil(
      context,
      "PostgresCluster",
      data,
      "pg",
      (o) => !o.requeue && ((o.plan.status as PostgresClusterStatus).claims ?? []).length === 1,
      playCnpg,
    );
    const [claim] = (made.plan.status as PostgresClusterStatus).claims ?? [];
    expect(claim?.claimant).toBe(`Observability/${obs}/langfuse`);
    await playCnpgDatabaseRolesApplied(client, data);

    const ready = await reconcileUntil<ObservabilityStatus>(
      context,
      "Observability",
      obs,
      "langfuse",
      (o) => !o.requeue,
    );
    expect(ready.plan.status.connection).toEqual({
      host: `langfuse-web.${obs}.svc`,
      port: 3000,
      url: `http://langfuse-web.${obs}.svc:3000`,
      credentialsSecret: { name: "langfuse-project-keys", namespace: obs },
      keys: { publicKey: "public-key", secretKey: "secret-key" },
    });
    const stored = await readStoredResource(client, "Observability", obs, "langfuse");
    expect(condition(stored, "Ready")).toMatchObject({
      status: "True",
      message: `Langfuse serving project langfuse at http://langfuse-web.${obs}.svc:3000`,
    });
    expect(condition(stored, "ObservabilityReady")?.message).toBe(
      `Helm release ${obs}/langfuse revision 1 rolled out (Deployment langfuse-web, Deployment langfuse-worker)`,
    );

    // Its secrets: generated in the forms Langfuse takes, and the stores' passwords copied beside it.
    const keys = await client.core.readNamespacedSecret({ name: "langfuse-project-keys", namespace: obs });
    expect(decoded(keys, "public-key")).toMatch(/^pk-lf-[0-9a-f]{32}$/);
    const projectSecret = decoded(keys, "secret-key");
    expect(projectSecret).toMatch(/^sk-lf-[0-9a-f]{32}$/);
    const own = await client.core.readNamespacedSecret({ name: "langfuse-secrets", namespace: obs });
    expect(decoded(own, "encryption-key")).toMatch(/^[0-9a-f]{64}$/);
    const salt = decoded(own, "salt");
    expect(salt).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const claimSecret = await client.core.readNamespacedSecret({
      name: claim?.credentialsSecret.name ?? "",
      namespace: data,
    });
    const pgPassword = decoded(claimSecret, "password");
    const copied = await client.core.readNamespacedSecret({ name: "langfuse-datastores", namespace: obs });
    expect([
      decoded(copied, "postgres-password"),
      decoded(copied, "clickhouse-password"),
      decoded(copied, "redis-password"),
    ]).toEqual([pgPassword, CH_PASSWORD, REDIS_PASSWORD]);

    // What the chart rendered reads every secret from a Secret; the stores by host.
    const web = await client.apps.readNamespacedDeployment({ name: "langfuse-web", namespace: obs });
    const env = (web.spec?.template.spec?.containers[0]?.env ?? []) as Env[];
    const of = (name: string) => env.find((e) => e.name === name);
    expect(of("DATABASE_HOST")?.value).toBe(`pg-rw.${data}.svc:5432`);
    expect(of("DATABASE_USERNAME")?.value).toBe(claim?.user);
    expect(of("DATABASE_NAME")?.value).toBe(claim?.database);
    expect(of("DATABASE_PASSWORD")?.valueFrom?.secretKeyRef).toEqual({
      name: "langfuse-datastores",
      key: "postgres-password",
    });
    expect(of("CLICKHOUSE_URL")?.value).toBe("http://clickhouse.data.internal:8123");
    expect(of("CLICKHOUSE_USER")?.value).toBe("langfuse");
    expect(of("CLICKHOUSE_CLUSTER_ENABLED")?.value).toBe("false");
    expect(of("REDIS_CONNECTION_STRING")?.value).toBe("redis://default:$(REDIS_PASSWORD)@redis.data.internal:6379/0");
    expect(of("SALT")?.valueFrom?.secretKeyRef).toEqual({ name: "langfuse-secrets", key: "salt" });
    expect(of("LANGFUSE_S3_EVENT_UPLOAD_SECRET_ACCESS_KEY")?.valueFrom?.secretKeyRef).toEqual({
      name: "s3",
      key: "secret-access-key",
    });
    expect(of("LANGFUSE_INIT_PROJECT_SECRET_KEY")?.valueFrom?.secretKeyRef).toEqual({
      name: "langfuse-project-keys",
      key: "secret-key",
    });
    // The chart's own Secret holds only the session secret, which the product leaves to it.
    const chartSecret = await client.core.readNamespacedSecret({ name: "langfuse-app", namespace: obs });
    expect(Object.keys(chartSecret.data ?? {})).toEqual(["nextauth-secret"]);
    expect(chartSecret.metadata?.annotations?.["helm.sh/resource-policy"]).toBe("keep");
    const worker = await client.apps.readNamespacedDeployment({ name: "langfuse-worker", namespace: obs });
    expect(worker.status?.availableReplicas).toBe(1);

    // Installed once; no secret in helm's record, the resource, its status or an Event.
    const records = await decodedReleaseRecords(client, obs, "langfuse");
    expect(records.map((r) => [r.record.revision, r.record.status])).toEqual([[1, "deployed"]]);
    expectPlantedNowhere([pgPassword, CH_PASSWORD, REDIS_PASSWORD, S3_SECRET, projectSecret, salt], {
      [`helm's record of ${obs}/langfuse`]: records.map((r) => r.raw),
      [`Observability ${obs}/langfuse`]: stored,
      [`the Events of ${data} and ${obs}`]: await recordedEvents(client, data, obs),
    });

    // A second pass changes nothing: no helm run, no new revision.
    const again = await reconcileUntil(context, "Observability", obs, "langfuse", (o) => !o.requeue);
    expect(again.performed.filter((p) => p.includes("Helm release"))).toEqual([
      `Helm release ${obs}/langfuse is current (langfuse 2.0.0, revision 1)`,
    ]);
    expect((await decodedReleaseRecords(client, obs, "langfuse")).length).toBe(1);

    // A change upgrades the release: the chart's Secret, rendered with data, reads back (chart 2.0.0 fails
    // here when it was rendered without: langfuse-k8s issue 399, reproduced by the fixture).
    await client.custom.patchNamespacedCustomObject({
      group: "core.navique.com",
      version: "v1alpha1",
      plural: "observabilities",
      namespace: obs,
      name: "langfuse",
      body: [{ op: "add", path: "/spec/web", value: { replicas: 2 } }],
    });
    const upgraded = await reconcileUntil(context, "Observability", obs, "langfuse", (o) => !o.requeue);
    expect(upgraded.performedInAllPasses).toContain(
      `upgrade Helm release ${obs}/langfuse (langfuse 2.0.0: values changed)`,
    );
    expect(
      (await decodedReleaseRecords(client, obs, "langfuse")).map((r) => [r.record.revision, r.record.status]).sort(),
    ).toEqual([
      [1, "superseded"],
      [2, "deployed"],
    ]);
    expect((await client.apps.readNamespacedDeployment({ name: "langfuse-web", namespace: obs })).spec?.replicas).toBe(
      2,
    );

    // Deleted: the release uninstalled, its Secrets gone, its claim dropped by the cluster's next pass.
    await deleteResource(client, "Observability", obs, "langfuse");
    await finalizeResources(context, "Observability", obs);
    expect(await decodedReleaseRecords(client, obs, "langfuse")).toEqual([]);
    // helm keeps the chart's Secret; the product removes it with the release.
    for (const name of ["langfuse-project-keys", "langfuse-secrets", "langfuse-datastores", "langfuse-app"])
      expect(await orUndefined(client.core.readNamespacedSecret({ name, namespace: obs }))).toBeUndefined();
    expect(
      await orUndefined(client.apps.readNamespacedDeployment({ name: "langfuse-web", namespace: obs })),
    ).toBeUndefined();
    const after = await reconcileUntil(context, "PostgresCluster", data, "pg", (o) => !o.requeue, playCnpg);
    expect((after.plan.status as PostgresClusterStatus).claims).toEqual([]);
    await playCnpgDatabaseRolesReleased(client, data);
    await finalizeStores(data);
  }, 300_000);

  /** The grant by which `data` lets the Observabilities of `obs` use its three stores. */
  const grantStores = (data: string, obs: string) =>
    createReferenceGrant(client, data, "observability", {
      from: [{ group: "core.navique.com", kind: "Observability", namespace: obs }],
      to: [
        { group: "core.navique.com", kind: "PostgresCluster", name: "pg" },
        { group: "core.navique.com", kind: "ClickHouseCluster", name: "ch" },
        { group: "core.navique.com", kind: "RedisInstance", name: "cache" },
      ],
    });

  const setGatewaySpec = (namespace: string, op: "add" | "remove", path: string, value?: unknown) =>
    client.custom.patchNamespacedCustomObject({
      group: "core.navique.com",
      version: "v1alpha1",
      plural: "gateways",
      namespace,
      name: "llm",
      body: [{ op, path, ...(value === undefined ? {} : { value }) }],
    });

  it("a Gateway sends its traces there: by hand under Community, through the Secret both name; auto-wired under the licence", async () => {
    const data = await namespaces.create("traces-data");
    const obs = await namespaces.create("traces-obs");
    const apps = await namespaces.create("traces-apps");
    const { playCnpg } = await stores(data, obs);
    await grantStores(data, obs);
    // The project's keys the user keeps (as a SealedSecret would make them), in each namespace that reads them.
    const kept = { "public-key": "pk-lf-kept-by-the-user", "secret-key": "sk-lf-planted-kept-4e1a" };
    for (const namespace of [obs, apps])
      await client.core.createNamespacedSecret({
        namespace,
        body: { metadata: { name: "langfuse-keys" }, stringData: kept },
      });
    await createResource(client, "Observability", obs, "langfuse", {
      ...spec(data),
      projectKeysSecretRef: { name: "langfuse-keys" },
    });
    await reconcileUntil(
      context,
      "Observability",
      obs,
      "langfuse",
      (o) => condition(o.plan, "ObservabilityReady")?.reason === "ClaimPending",
    );
    await reconcileUntil(context, "PostgresCluster", data, "pg", (o) => !o.requeue, playCnpg);
    await playCnpgDatabaseRolesApplied(client, data);
    await reconcileUntil(context, "Observability", obs, "langfuse", (o) => !o.requeue);
    const url = `http://langfuse-web.${obs}.svc:3000`;

    await client.core.createNamespacedSecret({
      namespace: apps,
      body: {
        metadata: { name: "gateway-db" },
        stringData: { url: "postgresql://llm:pw@db.example.internal:5432/llm" },
      },
    });
    await createResource(client, "Gateway", apps, "llm", {
      database: { mode: "external", external: { connectionSecretRef: { name: "gateway-db", key: "url" } } },
      observabilityRef: { name: "langfuse", namespace: obs },
    });
    await createReferenceGrant(client, obs, "gateways", {
      from: [{ group: "core.navique.com", kind: "Gateway", namespace: apps }],
      to: [{ group: "core.navique.com", kind: "Observability", name: "langfuse" }],
    });

    // Community: manual, the condition naming the field; nothing applied.
    const manual = await reconcileUntil(
      context,
      "Gateway",
      apps,
      "llm",
      (o) => condition(o.plan, "DependenciesReady")?.reason === "ManualWiringRequired",
    );
    expect(condition(manual.plan, "DependenciesReady")?.message).toContain(
      `spec.observabilityRef: Observability ${obs}/langfuse is not auto-wired: the Community edition does not include auto-wiring. Set spec.observabilityKeysSecretRef to wire it by hand`,
    );
    expect(await readLiteLLM(client, "litellminstances", apps, "llm")).toBeUndefined();

    // navique plan of the Gateway as written in git says the same, and fails the CI job until it is set.
    const out = await mkdtemp(join(tmpdir(), "traces-plan-"));
    try {
      const gatewayFile = join(out, "gateway.yaml");
      const written = {
        apiVersion: "core.navique.com/v1alpha1",
        kind: "Gateway",
        metadata: { name: "llm", namespace: apps },
        spec: {
          database: { mode: "external", external: { connectionSecretRef: { name: "gateway-db", key: "url" } } },
          observabilityRef: { name: "langfuse", namespace: obs },
        },
      };
      await writeFile(gatewayFile, JSON.stringify(written));
      const planned = await planTrustingTestKey(["-f", gatewayFile], out);
      expect(planned.stdout).toContain(
        `Gateway ${apps}/llm: spec.observabilityRef → Observability ${obs}/langfuse: manual: set spec.observabilityKeysSecretRef`,
      );
      expect(planned.code).toBe(1);
    } finally {
      await rm(out, { recursive: true, force: true });
    }

    await setGatewaySpec(apps, "add", "/spec/observabilityKeysSecretRef", { name: "langfuse-keys" });
    await reconcileUntil(
      context,
      "Gateway",
      apps,
      "llm",
      (o) => !o.requeue,
      () => playLiteLLMOperator(client, apps, "llm"),
    );
    const byHand = await readStoredResource(client, "Gateway", apps, "llm");
    expect(condition(byHand, "Ready")?.status).toBe("True");
    expect((byHand?.status as GatewayStatus | undefined)?.wiring).toEqual([
      `spec.observabilityRef → Observability ${obs}/langfuse: manual: spec.observabilityKeysSecretRef is set`,
    ]);
    const callbacks = (keysSecret: string) => ({
      types: ["langfuse_otel"],
      envVars: [
        { name: "LANGFUSE_PUBLIC_KEY", valueFrom: { secretKeyRef: { name: keysSecret, key: "public-key" } } },
        { name: "LANGFUSE_SECRET_KEY", valueFrom: { secretKeyRef: { name: keysSecret, key: "secret-key" } } },
        { name: "LANGFUSE_OTEL_HOST", value: url },
        { name: "LANGFUSE_HOST", value: url },
      ],
    });
    // The LiteLLM operator's CRD (fixture of chart 0.23.0) keeps the callbacks: they reach the proxy.
    expect((await readLiteLLM(client, "litellminstances", apps, "llm"))?.spec.callbacks).toEqual(
      callbacks("langfuse-keys"),
    );
    expect(
      await orUndefined(client.core.readNamespacedSecret({ name: "llm-observability", namespace: apps })),
    ).toBeUndefined();

    // Licensed with auto-wiring, the manual field emptied: the Observability's keys copied beside the gateway.
    await applyLicence(client, testLicenceToken({ features: ["auto-wiring"] }));
    await setGatewaySpec(apps, "remove", "/spec/observabilityKeysSecretRef");
    await reconcileUntil(
      context,
      "Gateway",
      apps,
      "llm",
      (o) => !o.requeue && (o.plan.status as GatewayStatus).wiring?.[0]?.endsWith("auto-wired") === true,
      () => playLiteLLMOperator(client, apps, "llm"),
    );
    const auto = await readStoredResource(client, "Gateway", apps, "llm");
    expect((auto?.status as GatewayStatus | undefined)?.observability).toBe(
      `spec.observabilityRef → Observability ${obs}/langfuse: traces sent to ${url} (LiteLLM callback langfuse_otel, keys from Secret ${apps}/llm-observability)`,
    );
    const instance = await readLiteLLM(client, "litellminstances", apps, "llm");
    expect(instance?.spec.callbacks).toEqual(callbacks("llm-observability"));
    const copy = await client.core.readNamespacedSecret({ name: "llm-observability", namespace: apps });
    expect([decoded(copy, "public-key"), decoded(copy, "secret-key")]).toEqual([
      kept["public-key"],
      kept["secret-key"],
    ]);
    expectPlantedNowhere(kept["secret-key"], {
      [`Gateway ${apps}/llm`]: auto,
      [`LiteLLMInstance ${apps}/llm`]: instance,
      [`Observability ${obs}/langfuse`]: await readStoredResource(client, "Observability", obs, "langfuse"),
      [`the Events of ${apps} and ${obs}`]: await recordedEvents(client, apps, obs),
    });
    await removeLicence(client);

    await finalizeResources(context, "Gateway", apps);
    expect(
      await orUndefined(client.core.readNamespacedSecret({ name: "llm-observability", namespace: apps })),
    ).toBeUndefined();
    await finalizeResources(context, "Observability", obs);
    await reconcileUntil(context, "PostgresCluster", data, "pg", (o) => !o.requeue, playCnpg);
    await playCnpgDatabaseRolesReleased(client, data);
    await finalizeStores(data);
  }, 300_000);

  it("through the Pulumi runtime, no operator running: up runs the pass of the PostgresCluster that makes its claim; destroy's drops it", async () => {
    const data = await namespaces.create("obs-pulumi-data");
    const obs = await namespaces.create("obs-pulumi");
    await stores(data, obs);
    await grantStores(data, obs);
    const inputs = {
      kind: "Observability",
      namespace: obs,
      name: "traces",
      spec: spec(data),
      kubeconfig: process.env.NAVIQUE_TEST_KUBECONFIG ?? "",
      helm: (await toolchainPaths()).helm,
      chartSource: `dir:${FIXTURE_CHARTS}`,
      timeoutSeconds: 120,
    };
    const { outs } = await up(inputs, TEST_TRUSTED_KEYS);
    const keys = await client.core.readNamespacedSecret({ name: "traces-project-keys", namespace: obs });
    expect(outs).toMatchObject({
      url: `http://traces-web.${obs}.svc:3000`,
      host: `traces-web.${obs}.svc`,
      port: 3000,
      credentialsSecret: { name: "traces-project-keys", namespace: obs },
      publicKey: decoded(keys, "public-key"),
      secretKey: decoded(keys, "secret-key"),
    });
    const claimed = await readStoredResource(client, "PostgresCluster", data, "pg");
    expect(((claimed?.status as PostgresClusterStatus | undefined)?.claims ?? []).map((c) => c.claimant)).toEqual([
      `Observability/${obs}/traces`,
    ]);

    await destroy(inputs, TEST_TRUSTED_KEYS);
    const released = await readStoredResource(client, "PostgresCluster", data, "pg");
    expect((released?.status as PostgresClusterStatus | undefined)?.claims).toEqual([]);
    await finalizeStores(data);
  }, 300_000);
});
