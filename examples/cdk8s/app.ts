/**
 * The AI platform of examples/pulumi, for GitOps: the operator's install, the datastores, the
 * SecretsManagement, the LiteLLM gateway, Langfuse and LibreChat, and the ReferenceGrants that let them
 * reach across namespaces, synthesized as YAML for Argo CD or Flux to apply. The operator in the cluster
 * then makes the same decisions `pulumi preview` shows (check them with `navique plan -f <file>`).
 *
 * Each resource sits in the namespace of what uses it: `navique-example-platform` holds the platform's
 * own services (the LiteLLM gateway, Langfuse), `navique-example-apps` the applications (LibreChat).
 *
 * Wiring (docs/auto-wiring.md): with `autoWiring` — a licence that includes auto-wiring — the gateway's
 * database, its traces and LibreChat's key are wired by the product; without it (the Community edition,
 * the default), each reference names the Secret that wires it by hand: the gateway's database URL and
 * Langfuse's project keys from the key vault through `platform-secrets`, LibreChat's key from a Secret the
 * team keeps in `navique-example-apps`.
 */
import { ApiObject, App, Chart } from "cdk8s";
import {
  ChatUI,
  ClickHouseCluster,
  Gateway,
  MeilisearchInstance,
  MongoCluster,
  NaviqueOperator,
  Observability,
  PostgresCluster,
  RedisInstance,
  ReferenceGrant,
  SecretsManagement,
} from "../../constructs/index.js";
import { KEY_VAULT, LANGFUSE_S3, MODELS, PROVIDED_SECRETS } from "./platform-parts.js";

/** How the example is wired. */
export interface ExampleOptions {
  /**
   * The cluster's licence includes auto-wiring: no manual field is set.
   * @default false (the Community edition: every reference wired by hand)
   */
  readonly autoWiring?: boolean;
}

export function buildApp(outdir: string, options: ExampleOptions = {}): App {
  const manual = options.autoWiring !== true;
  const app = new App({ outdir, outputFileExtension: ".yaml" });
  const chart = new Chart(app, "navique-example", { disableResourceNameHashes: true });
  new NaviqueOperator(chart, "operator");
  for (const namespace of ["navique-example-platform", "navique-example-apps"]) {
    new ApiObject(chart, namespace, { apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } });
  }

  // The platform's services.
  // PostgreSQL for the LiteLLM gateway (keys, spend) and Langfuse (projects, prompts, scores): one managed
  // CloudNativePG cluster; each consumer claims a database and a user of its own there.
  const platformDb = new PostgresCluster(chart, "platform-db", { namespace: "navique-example-platform" });
  // ClickHouse for Langfuse's traces, observations and scores (its analytical store): a managed cluster on
  // the ClickHouse operator, one server and a standalone Keeper.
  const clickhouse = new ClickHouseCluster(chart, "langfuse-clickhouse", {
    namespace: "navique-example-platform",
    spec: { managed: { replicas: 1, storage: { size: "20Gi" } } },
  });
  // Redis for Langfuse's ingestion queue and cache: a managed standalone Redis on the redis-operator.
  const redis = new RedisInstance(chart, "langfuse-redis", {
    namespace: "navique-example-platform",
    spec: { managed: { topology: "standalone" } },
  });

  // The applications.
  // PostgreSQL for LibreChat's RAG API (its vector store): the user's CloudNativePG cluster `shared` of
  // `navique-example-data` is adopted — never touched otherwise — and gets a `librechat` database.
  new PostgresCluster(chart, "chat-db", {
    namespace: "navique-example-apps",
    spec: {
      mode: "adopt",
      adopt: {
        clusterRef: { name: "shared", namespace: "navique-example-data" },
        credentialsSecretRef: { name: "shared-app", namespace: "navique-example-data" },
      },
      databases: [{ name: "librechat" }],
    },
  });
  // MongoDB for LibreChat's conversations, users and presets: a managed three-member replica set on the
  // MongoDB Controllers for Kubernetes.
  const mongo = new MongoCluster(chart, "librechat-mongo", {
    namespace: "navique-example-apps",
    spec: { managed: { members: 3 } },
  });
  // Meilisearch for LibreChat's search over conversations and messages: a managed release of the official
  // chart, its master key generated.
  const search = new MeilisearchInstance(chart, "librechat-search", {
    namespace: "navique-example-apps",
    spec: { managed: { storage: { size: "5Gi" } } },
  });

  // The secrets a person provides, never written inline: the LLM providers' API keys the platform's
  // gateway will use come from Azure Key Vault through the External Secrets Operator (installed when
  // absent), as the Secret `llm-provider-keys` (docs/secrets-management.md). Its SecretStore signs in with
  // Workload Identity as the ServiceAccount `secrets-reader` of the namespace.
  const platformSecrets = new SecretsManagement(chart, "platform-secrets", {
    namespace: "navique-example-platform",
    spec: {
      backend: "eso",
      eso: {
        provider: KEY_VAULT,
        secrets: [
          ...PROVIDED_SECRETS,
          // Wired by hand: the URL of the gateway's database and user in platform-db, and Langfuse's
          // project keys, which Langfuse makes its project with and the gateway sends traces with.
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
  });

  // Langfuse, on the platform's datastores: its own database claimed in platform-db, its traces in
  // ClickHouse, its queue in Redis, its events and media in S3-compatible storage.
  const langfuse = new Observability(chart, "langfuse", {
    namespace: "navique-example-platform",
    spec: {
      postgresClusterRef: platformDb,
      clickhouseClusterRef: clickhouse,
      redisInstanceRef: redis,
      s3: LANGFUSE_S3,
      ...(manual ? { projectKeysSecretRef: { name: "langfuse-project-keys" } } : {}),
      secretsRef: platformSecrets,
    },
  });

  // The LiteLLM gateway: two models, their keys from the key vault; its keys and spend in platform-db;
  // a trace of every call in Langfuse.
  const gateway = new Gateway(chart, "llm", {
    namespace: "navique-example-platform",
    spec: {
      models: MODELS,
      database: {
        mode: "postgresCluster",
        postgresClusterRef: platformDb,
        ...(manual ? { databaseUrlSecretRef: { name: "litellm-database", key: "url" } } : {}),
      },
      observabilityRef: langfuse,
      ...(manual ? { observabilityKeysSecretRef: { name: "langfuse-project-keys" } } : {}),
      secretsRef: platformSecrets,
    },
  });

  // LibreChat, talking to the gateway: its conversations in its own database of librechat-mongo, its
  // search in librechat-search; the gateway's key issued for it (auto-wired) or kept by the team.
  new ChatUI(chart, "librechat", {
    namespace: "navique-example-apps",
    spec: {
      gatewayRef: gateway,
      ...(manual ? { gatewayKeySecretRef: { name: "librechat-gateway-key", key: "api_key" } } : {}),
      mongoClusterRef: mongo,
      meilisearchInstanceRef: search,
    },
  });
  // LibreChat refers to the gateway of another namespace: the platform's namespace grants it.
  new ReferenceGrant(chart, "librechat-may-use-llm", {
    name: "navique-example-apps",
    namespace: "navique-example-platform",
    spec: {
      from: [{ group: "core.navique.com", kind: "ChatUI", namespace: "navique-example-apps" }],
      to: [{ group: "core.navique.com", kind: "Gateway", name: "llm" }],
    },
  });

  // chat-db adopts from another namespace: that namespace must grant it, or the operator refuses
  // (ReferenceNotPermitted) and synth fails (docs/reference-grants.md).
  new ReferenceGrant(chart, "chat-db-may-adopt", {
    name: "navique-example-apps",
    namespace: "navique-example-data",
    spec: {
      from: [{ group: "core.navique.com", kind: "PostgresCluster", namespace: "navique-example-apps" }],
      to: [
        { group: "postgresql.cnpg.io", kind: "Cluster", name: "shared" },
        { group: "", kind: "Secret", name: "shared-app" },
      ],
    },
  });
  return app;
}
