/**
 * The datastores of the AI platform, each in the namespace of what uses it — `navique-example-platform`
 * for the platform's own services (the LiteLLM gateway, Langfuse), `navique-example-apps` for the
 * applications (LibreChat):
 * - `platform-db`, a managed PostgreSQL: CloudNativePG (and cert-manager before it) installed when
 *   absent, a CNPG Cluster with one database per consumer, generated credentials;
 * - `langfuse-clickhouse`, a managed ClickHouse: cert-manager, then the ClickHouse operator, then a
 *   ClickHouseCluster with its KeeperCluster, the password generated;
 * - `langfuse-redis`, a managed standalone Redis on the redis-operator, the password generated;
 * - `chat-db`, an adopted PostgreSQL: the CNPG Cluster `shared` that already runs in `navique-example-data`
 *   (with its credentials in Secret `shared-app` there) gets a `librechat` database, never touched
 *   otherwise. That namespace must grant it with a ReferenceGrant (docs/reference-grants.md); `pulumi
 *   preview` says which;
 * - `librechat-mongo`, a managed MongoDB replica set on the MongoDB Controllers for Kubernetes;
 * - `librechat-search`, a managed Meilisearch: a release of the official chart, its master key generated;
 * - `platform-secrets`, the SecretsManagement of `navique-example-platform`: the LLM providers' API keys
 *   from Azure Key Vault through the External Secrets Operator, as the Secret `llm-provider-keys`, and
 *   Langfuse's S3 keys as `langfuse-s3`;
 * - `langfuse`, an Observability: Langfuse on platform-db (its own database claimed), langfuse-clickhouse,
 *   langfuse-redis and S3-compatible storage;
 * - `llm`, a Gateway: LiteLLM serving two models, its keys and spend in its own database of platform-db,
 *   a trace of every call in Langfuse;
 * - `librechat`, a ChatUI in `navique-example-apps`: LibreChat talking to `llm` (whose namespace grants
 *   it: the ReferenceGrant `navique-example-apps` there), its data in librechat-mongo and librechat-search.
 *
 * Wiring (docs/auto-wiring.md): with the stack's config `autoWiring: true` — a licence that includes
 * auto-wiring — the gateway's database, its traces and LibreChat's key are wired by the product; without
 * it (the Community edition, the default), each reference names the Secret that wires it by hand: the
 * gateway's database URL and Langfuse's project keys from the key vault, LibreChat's key from the Secret
 * `librechat-gateway-key` the team keeps in `navique-example-apps`.
 *
 * Run from the repository root (Pulumi.yaml there points here) in the environment of
 * test/support/typescript-sources.ts (the sources compiled by tsx, the runtime resolved by package name);
 * KUBECONFIG chooses the cluster, NAVIQUE_CHART_SOURCE where charts come from (official by default).
 */
import * as pulumi from "@pulumi/pulumi";
import {
  ChatUI,
  ClickHouseCluster,
  Gateway,
  MeilisearchInstance,
  MongoCluster,
  Observability,
  PostgresCluster,
  RedisInstance,
  SecretsManagement,
} from "../../providers/pulumi/index.js";

const chartSource = process.env.NAVIQUE_CHART_SOURCE;
const charts = chartSource ? { chartSource } : {};
const manual = new pulumi.Config().getBoolean("autoWiring") !== true;

// The platform's services.
// PostgreSQL for the LiteLLM gateway (keys, spend) and Langfuse (projects, prompts, scores): one managed
// CloudNativePG cluster; each consumer claims a database and a user of its own there.
const platformDb = new PostgresCluster("platform-db", { namespace: "navique-example-platform", ...charts });

// ClickHouse for Langfuse's traces, observations and scores (its analytical store): a managed cluster on
// the ClickHouse operator, one server and a standalone Keeper.
const langfuseClickhouse = new ClickHouseCluster("langfuse-clickhouse", {
  namespace: "navique-example-platform",
  spec: { managed: { replicas: 1, storage: { size: "20Gi" } } },
  ...charts,
});

// Redis for Langfuse's ingestion queue and cache: a managed standalone Redis on the redis-operator.
const langfuseRedis = new RedisInstance("langfuse-redis", {
  namespace: "navique-example-platform",
  spec: { managed: { topology: "standalone" } },
  ...charts,
});

// The applications.
// PostgreSQL for LibreChat's RAG API (its vector store): the user's cluster, adopted.
const chatDb = new PostgresCluster("chat-db", {
  namespace: "navique-example-apps",
  spec: {
    mode: "adopt",
    adopt: {
      clusterRef: { name: "shared", namespace: "navique-example-data" },
      credentialsSecretRef: { name: "shared-app", namespace: "navique-example-data" },
    },
    databases: [{ name: "librechat" }],
  },
  ...charts,
});

// MongoDB for LibreChat's conversations, users and presets: a managed three-member replica set.
const librechatMongo = new MongoCluster("librechat-mongo", {
  namespace: "navique-example-apps",
  spec: { managed: { members: 3 } },
  ...charts,
});

// Meilisearch for LibreChat's search over conversations and messages.
const librechatSearch = new MeilisearchInstance("librechat-search", {
  namespace: "navique-example-apps",
  spec: { managed: { storage: { size: "5Gi" } } },
  ...charts,
});

// The secrets a person provides, never written inline: the LLM providers' API keys the platform's gateway
// will use come from Azure Key Vault through the External Secrets Operator (installed when absent), as the
// Secret `llm-provider-keys`. Its SecretStore signs in with Workload Identity as the ServiceAccount
// `secrets-reader` of the namespace.
const platformSecrets = new SecretsManagement("platform-secrets", {
  namespace: "navique-example-platform",
  spec: {
    backend: "eso",
    eso: {
      provider: {
        azureKeyVault: {
          vaultUrl: "https://navique-example.vault.azure.net",
          serviceAccountRef: { name: "secrets-reader" },
        },
      },
      secrets: [
        {
          name: "llm-provider-keys",
          data: [
            { key: "OPENAI_API_KEY", remoteKey: "openai-api-key" },
            { key: "ANTHROPIC_API_KEY", remoteKey: "anthropic-api-key" },
          ],
        },
        // Langfuse's object storage.
        {
          name: "langfuse-s3",
          data: [
            { key: "access-key-id", remoteKey: "langfuse-s3-access-key-id" },
            { key: "secret-access-key", remoteKey: "langfuse-s3-secret-access-key" },
          ],
        },
        // Wired by hand: the URL of the gateway's database and user in platform-db, and Langfuse's project
        // keys, which Langfuse makes its project with and the gateway sends traces with.
        ...(manual
          ? [
              { name: "litellm-database", data: [{ key: "url", remoteKey: "litellm-database-url" }] },
              {
                name: "langfuse-project-keys",
                data: [
                  { key: "public-key", remoteKey: "langfuse-public-key" },
                  { key: "secret-key", remoteKey: "langfuse-secret-key" },
                ],
              },
            ]
          : []),
      ],
    },
  },
  ...charts,
});

// Langfuse, on the platform's datastores: its own database claimed in platform-db, its traces in
// ClickHouse, its queue in Redis, its events and media in S3-compatible storage.
const langfuse = new Observability(
  "langfuse",
  {
    namespace: "navique-example-platform",
    spec: {
      postgresClusterRef: { name: "platform-db" },
      clickhouseClusterRef: { name: "langfuse-clickhouse" },
      redisInstanceRef: { name: "langfuse-redis" },
      s3: {
        bucket: "navique-example-langfuse",
        region: "westeurope",
        endpoint: "https://s3.navique-example.internal",
        forcePathStyle: true,
        accessKeyIdSecretRef: { name: "langfuse-s3", key: "access-key-id" },
        secretAccessKeySecretRef: { name: "langfuse-s3", key: "secret-access-key" },
      },
      ...(manual ? { projectKeysSecretRef: { name: "langfuse-project-keys" } } : {}),
      secretsRef: { name: "platform-secrets" },
    },
    ...charts,
  },
  { dependsOn: [platformDb, langfuseClickhouse, langfuseRedis, platformSecrets] },
);

// The LiteLLM gateway: two models, their keys from the key vault; its keys and spend in platform-db; a
// trace of every call in Langfuse.
const gateway = new Gateway(
  "llm",
  {
    namespace: "navique-example-platform",
    spec: {
      models: [
        {
          name: "gpt-4o",
          provider: "openai",
          model: "gpt-4o",
          apiKeySecretRef: { name: "llm-provider-keys", key: "OPENAI_API_KEY" },
        },
        {
          name: "claude-sonnet",
          provider: "anthropic",
          model: "claude-sonnet-4-5",
          apiKeySecretRef: { name: "llm-provider-keys", key: "ANTHROPIC_API_KEY" },
        },
      ],
      database: {
        mode: "postgresCluster",
        postgresClusterRef: { name: "platform-db" },
        ...(manual ? { databaseUrlSecretRef: { name: "litellm-database", key: "url" } } : {}),
      },
      observabilityRef: { name: "langfuse" },
      ...(manual ? { observabilityKeysSecretRef: { name: "langfuse-project-keys" } } : {}),
      secretsRef: { name: "platform-secrets" },
    },
    ...charts,
  },
  { dependsOn: [platformDb, platformSecrets, langfuse] },
);

// LibreChat, talking to the gateway: its conversations in its own database of librechat-mongo, its search
// in librechat-search; the gateway's key issued for it (auto-wired) or kept by the team.
const librechat = new ChatUI(
  "librechat",
  {
    namespace: "navique-example-apps",
    spec: {
      gatewayRef: { name: "llm", namespace: "navique-example-platform" },
      ...(manual ? { gatewayKeySecretRef: { name: "librechat-gateway-key", key: "api_key" } } : {}),
      mongoClusterRef: { name: "librechat-mongo" },
      meilisearchInstanceRef: { name: "librechat-search" },
    },
    ...charts,
  },
  { dependsOn: [gateway, librechatMongo, librechatSearch] },
);

export const platformHost = platformDb.host;
export const platformPassword = platformDb.password;
export const platformCapabilities = platformDb.capabilities;
export const langfuseClickhouseUrl = langfuseClickhouse.url;
export const langfuseClickhousePassword = langfuseClickhouse.password;
export const langfuseRedisHost = langfuseRedis.host;
export const chatHost = chatDb.host;
export const chatProvenance = chatDb.provenance;
export const librechatMongoHost = librechatMongo.host;
export const librechatSearchUrl = librechatSearch.url;
export const platformSecretNames = platformSecrets.secrets;
export const langfuseUrl = langfuse.url;
export const langfuseSecretKey = langfuse.secretKey;
export const gatewayUrl = gateway.url;
export const librechatUrl = librechat.url;
