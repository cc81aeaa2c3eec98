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
 * - `librechat-search`, a managed Meilisearch: a release of the official chart, its master key generated.
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

// Secrets: a SecretsManagement per namespace that reads secrets a person provides (the LLM providers' API
// keys in navique-example-platform, LibreChat's in navique-example-apps) goes here, so that no credential
// is ever written inline. It is not in the example yet.

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
