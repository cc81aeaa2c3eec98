import type { Condition } from "../../lib/api/conditions.js";
import { API_GROUP_VERSION } from "../../lib/api/group.js";
import type { EngineResource, KindModule } from "../../lib/engine/kind-module.js";
import type { Credentials, KubeObject } from "../../lib/engine/objects.js";
import { marked } from "../../lib/engine/ownership.js";
import { type PlanContext, planResource } from "../../lib/engine/plan.js";
import type { PlanStep } from "../../lib/engine/steps.js";
import type { EngineView } from "../../lib/engine/view.js";
import { OBSERVABILITY_MODULE } from "../../lib/kinds/observability/module.js";
import type { ObservabilityStatus } from "../../lib/kinds/observability/schema.js";
import { communityEntitlements } from "../../lib/licence/entitlements.js";

const NO_CAPABILITIES: PlanContext = {
  withPrerequisites: (name) => [name],
  releaseOf: (name) => ({ name, namespace: name }),
};

const S3 = {
  bucket: "traces",
  endpoint: "http://minio.storage.svc:9000",
  forcePathStyle: true,
  accessKeyIdSecretRef: { name: "s3", key: "access-key-id" },
  secretAccessKeySecretRef: { name: "s3", key: "secret-access-key" },
};

/** The Observability obs/langfuse, on stores of the namespace data. */
function observability(extra: Record<string, unknown> = {}): EngineResource {
  return OBSERVABILITY_MODULE.schema.parse({
    apiVersion: API_GROUP_VERSION,
    kind: "Observability",
    metadata: { name: "langfuse", namespace: "obs", uid: "u-1", generation: 1 },
    spec: {
      postgresClusterRef: { name: "pg", namespace: "data" },
      clickhouseClusterRef: { name: "ch", namespace: "data" },
      redisInstanceRef: { name: "cache", namespace: "data" },
      s3: S3,
      ...extra,
    },
  }) as EngineResource;
}

const ready = (message: string) => [{ type: "Ready", status: "True", reason: "Ready", message }];

/** A datastore of the namespace data as stored: Ready, publishing `connection` and anything else in `status`. */
function datastore(kind: string, name: string, status: Record<string, unknown>): KubeObject {
  return {
    apiVersion: API_GROUP_VERSION,
    kind,
    metadata: { name, namespace: "data" },
    status: { conditions: ready(`${kind} ready`), ...status },
  };
}

const CLAIMANT = "Observability/obs/langfuse";
const PG_PASSWORD = "pg-Planted-0001";
const CH_PASSWORD = "ch-Planted-0002";
const REDIS_PASSWORD = "redis-Planted-0003";

const POSTGRES = datastore("PostgresCluster", "pg", {
  connection: { host: "pg-rw.data.svc", port: 5432, credentialsSecret: { name: "pg-app", namespace: "data" } },
  claims: [
    {
      claimant: CLAIMANT,
      database: "observability_obs_langfuse_1a2b3c4d",
      user: "observability_obs_langfuse_1a2b3c4d",
      credentialsSecret: { name: "pg-claim-1a2b3c4d", namespace: "data" },
    },
  ],
});
const CLICKHOUSE = datastore("ClickHouseCluster", "ch", {
  connection: { host: "ch.data.svc", port: 8123, credentialsSecret: { name: "ch-credentials", namespace: "data" } },
  nativePort: 9000,
});
const REDIS = datastore("RedisInstance", "cache", {
  connection: {
    host: "cache.data.svc",
    port: 6379,
    credentialsSecret: { name: "cache-credentials", namespace: "data" },
  },
});

const S3_KEYS: Credentials = { "access-key-id": "AKIA-Planted", "secret-access-key": "s3-Planted-0004" };

/** What the engine observed when every store is there and made what Langfuse needs. */
function storesView(overrides: Partial<EngineView> = {}): EngineView {
  return {
    capabilities: [],
    consumers: [],
    objects: new Map(),
    dependencies: {
      "spec.postgresClusterRef": POSTGRES,
      "spec.clickhouseClusterRef": CLICKHOUSE,
      "spec.redisInstanceRef": REDIS,
    },
    claimed: {
      "spec.postgresClusterRef": {
        claim: (POSTGRES.status as { claims: never[] }).claims[0] as never,
        credentials: { username: "observability_obs_langfuse_1a2b3c4d", password: PG_PASSWORD },
      },
    },
    connectionCredentials: {
      "spec.clickhouseClusterRef": { username: "default", password: CH_PASSWORD },
      "spec.redisInstanceRef": { password: REDIS_PASSWORD },
    },
    reads: { "secret:spec.s3.accessKeyIdSecretRef": S3_KEYS, "secret:spec.s3.secretAccessKeySecretRef": S3_KEYS },
    referenceGrants: [
      {
        namespace: "data",
        spec: {
          from: [{ group: "core.navique.com", kind: "Observability", namespace: "obs" }],
          to: [
            { group: "core.navique.com", kind: "PostgresCluster" },
            { group: "core.navique.com", kind: "ClickHouseCluster" },
            { group: "core.navique.com", kind: "RedisInstance" },
          ],
        },
      },
    ],
    licence: {
      entitlements: communityEntitlements(),
      instances: [{ name: "langfuse", namespace: "obs", creationTimestamp: "2027-01-01T00:00:00Z", admitted: false }],
    },
    ...overrides,
  };
}

const RECORD: KubeObject = { apiVersion: "helm.sh/release.v1", kind: "Release", metadata: { name: "langfuse" } };

const plan = (resource: EngineResource, view: EngineView) =>
  planResource<ObservabilityStatus>(OBSERVABILITY_MODULE as unknown as KindModule, resource, view, NO_CAPABILITIES);

const condition = (p: { conditions: readonly Condition[] }, type: string) => p.conditions.find((c) => c.type === type);

const descriptions = (steps: readonly PlanStep[]) => steps.map((s) => s.description);

describe("an Observability's plan", () => {
  it("depends on its three stores: its own database claimed in the PostgresCluster, the others' credentials read", () => {
    expect(OBSERVABILITY_MODULE.dependsOn?.(observability() as never)).toEqual([
      {
        field: "spec.postgresClusterRef",
        group: "core.navique.com",
        kind: "PostgresCluster",
        name: "pg",
        namespace: "data",
        needs: "connection",
        claim: true,
      },
      {
        field: "spec.clickhouseClusterRef",
        group: "core.navique.com",
        kind: "ClickHouseCluster",
        name: "ch",
        namespace: "data",
        needs: "connection",
        credentials: true,
      },
      {
        field: "spec.redisInstanceRef",
        group: "core.navique.com",
        kind: "RedisInstance",
        name: "cache",
        namespace: "data",
        needs: "connection",
        credentials: true,
      },
    ]);
  });

  it("applies nothing while a store is missing or not Ready, naming each", () => {
    const waiting = plan(
      observability(),
      storesView({
        dependencies: {
          "spec.postgresClusterRef": POSTGRES,
          "spec.redisInstanceRef": { ...REDIS, status: { conditions: [] } },
        },
      }),
    );
    expect(waiting.steps).toEqual([]);
    expect(condition(waiting, "DependenciesReady")).toMatchObject({
      status: "False",
      reason: "DependencyMissing",
      message:
        "waiting for what it depends on: spec.clickhouseClusterRef: ClickHouseCluster data/ch does not exist: create it, or point spec.clickhouseClusterRef at one that does; spec.redisInstanceRef: RedisInstance data/cache is not Ready yet. Nothing of it is applied until then",
    });
  });

  it("waits for its claim, and says a PostgresCluster that takes none is Stalled with the way out", () => {
    const pending = plan(
      observability(),
      storesView({
        dependencies: {
          "spec.postgresClusterRef": { ...POSTGRES, status: { ...(POSTGRES.status as object), claims: [] } },
          "spec.clickhouseClusterRef": CLICKHOUSE,
          "spec.redisInstanceRef": REDIS,
        },
        claimed: {},
      }),
    );
    expect(pending.steps).toEqual([]);
    expect(condition(pending, "ObservabilityReady")).toMatchObject({
      status: "False",
      reason: "ClaimPending",
      message: "waiting for PostgresCluster data/pg to make Langfuse's own database and user (its claim)",
    });
    expect(condition(pending, "Stalled")).toBeUndefined();

    const external = {
      ...POSTGRES,
      spec: { mode: "external" },
      status: { conditions: ready("external"), connection: {} },
    };
    const notTaken = plan(
      observability(),
      storesView({
        dependencies: {
          "spec.postgresClusterRef": external as KubeObject,
          "spec.clickhouseClusterRef": CLICKHOUSE,
          "spec.redisInstanceRef": REDIS,
        },
        claimed: {},
      }),
    );
    expect(condition(notTaken, "ObservabilityReady")).toMatchObject({
      reason: "ClaimNotTaken",
      message:
        "spec.postgresClusterRef: PostgresCluster data/pg makes no database of its own for a consumer in its mode (external): point spec.postgresClusterRef at a managed PostgresCluster, or at an adopting one with spec.adopt.claims set",
    });
    expect(condition(notTaken, "Stalled")).toMatchObject({ status: "True", reason: "ClaimNotTaken" });
  });

  it("waits for a store's password, and for the S3 keys' Secret, naming the field", () => {
    const noRedisPassword = plan(
      observability(),
      storesView({
        connectionCredentials: { "spec.clickhouseClusterRef": { username: "default", password: CH_PASSWORD } },
      }),
    );
    expect(noRedisPassword.steps).toEqual([]);
    expect(condition(noRedisPassword, "ObservabilityReady")?.message).toBe(
      "spec.redisInstanceRef: waiting for RedisInstance data/cache to publish its connection and the password in Secret data/cache-credentials",
    );
    const noS3 = plan(observability(), storesView({ reads: {} }));
    expect(condition(noS3, "ObservabilityReady")).toMatchObject({
      reason: "SecretMissing",
      message:
        "spec.s3.accessKeyIdSecretRef: Secret obs/s3 does not exist: create it with key access-key-id, or point spec.s3.accessKeyIdSecretRef at one that does",
    });
  });

  it("wired: copies the stores' passwords, generates its secrets and project keys, installs the release with every secret by reference", () => {
    const wired = plan(observability(), storesView());
    expect(descriptions(wired.steps)).toEqual(
      [
        "copy the passwords of its database, ClickHouse and Redis into Secret obs/langfuse-datastores",
        "create Secret obs/langfuse-secrets with a generated salt and encryption key (kept if it exists)",
        "create Secret obs/langfuse-project-keys with generated project keys (kept if it exists)",
        "install Helm release obs/langfuse (langfuse 2.0.0)",
        expect.stringContaining("add finalizer"),
      ].slice(0, wired.steps.length),
    );
    const [copy, secrets, keys, release] = wired.steps;
    expect(copy).toMatchObject({
      kind: "apply",
      object: {
        kind: "Secret",
        metadata: { name: "langfuse-datastores", namespace: "obs" },
        stringData: {
          "postgres-password": PG_PASSWORD,
          "clickhouse-password": CH_PASSWORD,
          "redis-password": REDIS_PASSWORD,
        },
      },
    });
    expect(secrets).toMatchObject({
      kind: "generate-secret",
      keys: { salt: { length: 43, alphabet: "base64url" }, "encryption-key": { length: 64, alphabet: "hex" } },
    });
    expect(keys).toMatchObject({
      kind: "generate-secret",
      keys: {
        "public-key": { length: 32, alphabet: "hex", prefix: "pk-lf-" },
        "secret-key": { length: 32, alphabet: "hex", prefix: "sk-lf-" },
      },
    });
    expect(release).toMatchObject({ kind: "workload-release", workload: "langfuse", current: false });
    const values = (release as Extract<PlanStep, { kind: "workload-release" }>).values;
    expect(values).toEqual({
      fullnameOverride: "langfuse",
      langfuse: {
        salt: { secretKeyRef: { name: "langfuse-secrets", key: "salt" } },
        encryptionKey: { secretKeyRef: { name: "langfuse-secrets", key: "encryption-key" } },
        nextauth: { url: "http://langfuse-web.obs.svc:3000" },
        web: { replicas: 1 },
        worker: { replicas: 1 },
        additionalEnv: [
          { name: "LANGFUSE_INIT_ORG_ID", value: "obs" },
          { name: "LANGFUSE_INIT_ORG_NAME", value: "obs" },
          { name: "LANGFUSE_INIT_PROJECT_ID", value: "langfuse" },
          { name: "LANGFUSE_INIT_PROJECT_NAME", value: "langfuse" },
          {
            name: "LANGFUSE_INIT_PROJECT_PUBLIC_KEY",
            valueFrom: { secretKeyRef: { name: "langfuse-project-keys", key: "public-key" } },
          },
          {
            name: "LANGFUSE_INIT_PROJECT_SECRET_KEY",
            valueFrom: { secretKeyRef: { name: "langfuse-project-keys", key: "secret-key" } },
          },
        ],
      },
      postgresql: {
        deploy: false,
        host: "pg-rw.data.svc:5432",
        auth: {
          username: "observability_obs_langfuse_1a2b3c4d",
          database: "observability_obs_langfuse_1a2b3c4d",
          existingSecret: "langfuse-datastores",
          secretKeys: { userPasswordKey: "postgres-password" },
        },
      },
      clickhouse: {
        deploy: false,
        host: "ch.data.svc",
        httpPort: 8123,
        nativePort: 9000,
        cluster: { enabled: false },
        auth: { username: "default", existingSecret: "langfuse-datastores", existingSecretKey: "clickhouse-password" },
      },
      redis: {
        deploy: false,
        host: "cache.data.svc",
        port: 6379,
        auth: { existingSecret: "langfuse-datastores", existingSecretPasswordKey: "redis-password" },
      },
      s3: {
        deploy: false,
        bucket: "traces",
        region: "auto",
        endpoint: "http://minio.storage.svc:9000",
        forcePathStyle: true,
        accessKeyId: { secretKeyRef: { name: "s3", key: "access-key-id" } },
        secretAccessKey: { secretKeyRef: { name: "s3", key: "secret-access-key" } },
      },
    });
    // No value the plan read is in what helm records, in a step's description or in the status.
    const recorded = JSON.stringify([values, descriptions(wired.steps), wired.status]);
    for (const planted of [PG_PASSWORD, CH_PASSWORD, REDIS_PASSWORD, "AKIA-Planted", "s3-Planted-0004"])
      expect(recorded).not.toContain(planted);
    expect(wired.status.connection).toEqual({
      host: "langfuse-web.obs.svc",
      port: 3000,
      url: "http://langfuse-web.obs.svc:3000",
      credentialsSecret: { name: "langfuse-project-keys", namespace: "obs" },
      keys: { publicKey: "public-key", secretKey: "secret-key" },
    });
    expect(wired.status.project).toBe("obs/langfuse");
    expect(condition(wired, "ObservabilityReady")).toMatchObject({
      status: "False",
      reason: "Provisioning",
      message: "waiting for Langfuse: not installed yet",
    });
    expect(wired.requeue).toBe(true);
    // Pods rolling out are watched by nobody: looked at again after ten seconds, not the usual two.
    expect(wired.requeueAfterMs).toBe(10_000);
  });

  it("with the project's keys in a Secret of the user's: generates none, checks both keys, publishes that Secret", () => {
    const own = observability({
      projectKeysSecretRef: { name: "sealed-project-keys" },
      organization: "Platform",
      project: "Gateways",
    });
    const missingKey = plan(
      own,
      storesView({
        reads: {
          "secret:spec.s3.accessKeyIdSecretRef": S3_KEYS,
          "secret:spec.s3.secretAccessKeySecretRef": S3_KEYS,
          "secret:spec.projectKeysSecretRef": { "public-key": "pk-lf-1" },
        },
      }),
    );
    expect(condition(missingKey, "ObservabilityReady")?.message).toBe(
      "spec.projectKeysSecretRef: Secret obs/sealed-project-keys has no key secret-key (it has public-key): add it, or point spec.projectKeysSecretRef at a Secret that has it",
    );
    const wired = plan(
      own,
      storesView({
        reads: {
          "secret:spec.s3.accessKeyIdSecretRef": S3_KEYS,
          "secret:spec.s3.secretAccessKeySecretRef": S3_KEYS,
          "secret:spec.projectKeysSecretRef": { "public-key": "pk-lf-1", "secret-key": "sk-lf-1" },
        },
      }),
    );
    expect(wired.steps.filter((s) => s.kind === "generate-secret").map((s) => s.description)).toEqual([
      "create Secret obs/langfuse-secrets with a generated salt and encryption key (kept if it exists)",
    ]);
    expect(wired.status.connection?.credentialsSecret).toEqual({ name: "sealed-project-keys", namespace: "obs" });
    const release = wired.steps.find((s) => s.kind === "workload-release") as Extract<
      PlanStep,
      { kind: "workload-release" }
    >;
    const env = (release.values.langfuse as { additionalEnv: { name: string }[] }).additionalEnv;
    expect(env).toContainEqual({ name: "LANGFUSE_INIT_ORG_NAME", value: "Platform" });
    expect(env).toContainEqual({ name: "LANGFUSE_INIT_PROJECT_NAME", value: "Gateways" });
    expect(env).toContainEqual({
      name: "LANGFUSE_INIT_PROJECT_SECRET_KEY",
      valueFrom: { secretKeyRef: { name: "sealed-project-keys", key: "secret-key" } },
    });
  });

  it("is Ready once helm's release is deployed and its web and worker are rolled out", () => {
    const release: KubeObject = {
      apiVersion: "helm.sh/release.v1",
      kind: "Release",
      // The release record's labels: the resource's marks (lib/engine/ownership.ts).
      metadata: { name: "langfuse", namespace: "obs", labels: marked(observability(), RECORD).metadata.labels ?? {} },
      spec: { chart: { name: "langfuse", version: "2.0.0" }, values: {} },
      status: {
        revision: 1,
        status: "deployed",
        workloads: [
          {
            kind: "Deployment",
            name: "langfuse-web",
            namespace: "obs",
            done: true,
            failed: false,
            message: "rolled out",
          },
          {
            kind: "Deployment",
            name: "langfuse-worker",
            namespace: "obs",
            done: false,
            failed: false,
            message: "0 of 1 updated replicas are available",
          },
        ],
      },
    };
    const rolling = plan(observability(), storesView({ objects: new Map([["Release/obs/langfuse", release]]) }));
    expect(condition(rolling, "ObservabilityReady")?.message).toBe(
      "waiting for Langfuse: Deployment obs/langfuse-worker: 0 of 1 updated replicas are available",
    );
    const done = {
      ...release,
      status: {
        ...(release.status as object),
        workloads: [
          {
            kind: "Deployment",
            name: "langfuse-web",
            namespace: "obs",
            done: true,
            failed: false,
            message: "rolled out",
          },
          {
            kind: "Deployment",
            name: "langfuse-worker",
            namespace: "obs",
            done: true,
            failed: false,
            message: "rolled out",
          },
        ],
      },
    };
    const rolled = plan(observability(), storesView({ objects: new Map([["Release/obs/langfuse", done]]) }));
    expect(condition(rolled, "ObservabilityReady")).toMatchObject({
      status: "True",
      reason: "LangfuseReady",
      message: "Helm release obs/langfuse revision 1 rolled out (Deployment langfuse-web, Deployment langfuse-worker)",
    });
    expect(condition(rolled, "Ready")).toMatchObject({
      status: "True",
      message: "Langfuse serving project langfuse at http://langfuse-web.obs.svc:3000",
    });
    expect(rolled.requeue).toBe(false);
    expect(rolled.requeueAfterMs).toBeUndefined();
  });
});
