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
 *   from Azure Key Vault through the External Secrets Operator, as the Secret `llm-provider-keys`.
 *
 * Run from the repository root (Pulumi.yaml there points here) in the environment of
 * test/support/typescript-sources.ts (the sources compiled by tsx, the runtime resolved by package name);
 * KUBECONFIG chooses the cluster, NAVIQUE_CHART_SOURCE where charts come from (official by default).
 */
import {
  ClickHouseCluster,
  MeilisearchInstance,
  MongoCluster,
  PostgresCluster,
  RedisInstance,
  SecretsManagement,
} from "../../providers/pulumi/index.js";

const chartSource = process.env.NAVIQUE_CHART_SOURCE;
const charts = chartSource ? { chartSource } : {};

// The platform's services.
// PostgreSQL for the LiteLLM gateway (keys, spend) and Langfuse (projects, prompts, scores): one managed
// CloudNativePG cluster, a database each.
const platformDb = new PostgresCluster("platform-db", {
  namespace: "navique-example-platform",
  spec: { databases: [{ name: "litellm" }, { name: "langfuse" }] },
  ...charts,
});

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
      ],
    },
  },
  ...charts,
});

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
