/**
 * The datastores of examples/pulumi, for GitOps: the operator's install, the platform's datastores, its
 * SecretsManagement and the ReferenceGrant that lets the adopting one reach into the data namespace,
 * synthesized as YAML for Argo CD or Flux to apply. The operator in the cluster then makes the same
 * decisions `pulumi preview` shows (check them with `navique plan -f <file>`).
 *
 * Each datastore sits in the namespace of what uses it: `navique-example-platform` holds the platform's
 * own services (the LiteLLM gateway, Langfuse), `navique-example-apps` the applications (LibreChat).
 */
import { ApiObject, App, Chart } from "cdk8s";
import {
  ClickHouseCluster,
  MeilisearchInstance,
  MongoCluster,
  NaviqueOperator,
  PostgresCluster,
  RedisInstance,
  ReferenceGrant,
  SecretsManagement,
} from "../../constructs/index.js";

export function buildApp(outdir: string): App {
  const app = new App({ outdir, outputFileExtension: ".yaml" });
  const chart = new Chart(app, "navique-example", { disableResourceNameHashes: true });
  new NaviqueOperator(chart, "operator");
  for (const namespace of ["navique-example-platform", "navique-example-apps"]) {
    new ApiObject(chart, namespace, { apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } });
  }

  // The platform's services.
  // PostgreSQL for the LiteLLM gateway (keys, spend) and Langfuse (projects, prompts, scores): one managed
  // CloudNativePG cluster, a database each.
  new PostgresCluster(chart, "platform-db", {
    namespace: "navique-example-platform",
    spec: { databases: [{ name: "litellm" }, { name: "langfuse" }] },
  });
  // ClickHouse for Langfuse's traces, observations and scores (its analytical store): a managed cluster on
  // the ClickHouse operator, one server and a standalone Keeper.
  new ClickHouseCluster(chart, "langfuse-clickhouse", {
    namespace: "navique-example-platform",
    spec: { managed: { replicas: 1, storage: { size: "20Gi" } } },
  });
  // Redis for Langfuse's ingestion queue and cache: a managed standalone Redis on the redis-operator.
  new RedisInstance(chart, "langfuse-redis", {
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
  new MongoCluster(chart, "librechat-mongo", {
    namespace: "navique-example-apps",
    spec: { managed: { members: 3 } },
  });
  // Meilisearch for LibreChat's search over conversations and messages: a managed release of the official
  // chart, its master key generated.
  new MeilisearchInstance(chart, "librechat-search", {
    namespace: "navique-example-apps",
    spec: { managed: { storage: { size: "5Gi" } } },
  });

  // The secrets a person provides, never written inline: the LLM providers' API keys the platform's
  // gateway will use come from Azure Key Vault through the External Secrets Operator (installed when
  // absent), as the Secret `llm-provider-keys` (docs/secrets-management.md). Its SecretStore signs in with
  // Workload Identity as the ServiceAccount `secrets-reader` of the namespace.
  new SecretsManagement(chart, "platform-secrets", {
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
