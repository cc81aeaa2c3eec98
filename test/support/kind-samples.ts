/**
 * Valid specs of every kind, one per mode, each holding every field of its mode: what the registry's
 * contract tests plan (test/unit/registry-contract.test.ts, every mode sampled), what the fuzz test
 * breaks (test/e2e/malformed-specs.test.ts) and what the front ends must decide alike on the real plane
 * (test/cluster/decisions-contract.test.ts; test/support/sample-world.ts gives each a place). A kind added
 * to the registry needs its samples here.
 */
const SECRET = { name: "pg", key: "password", namespace: "data" };

/** What an Observability cannot do without: its three datastores and its object storage. */
const OBSERVABILITY_STORES = {
  postgresClusterRef: { name: "shared" },
  clickhouseClusterRef: { name: "analytics" },
  redisInstanceRef: { name: "cache" },
  s3: {
    bucket: "langfuse",
    accessKeyIdSecretRef: { name: "s3", key: "access-key-id" },
    secretAccessKeySecretRef: { name: "s3", key: "secret-access-key" },
  },
} as const;

/** What a ChatUI cannot do without: its gateway and its two datastores. */
const CHAT_UI_REFERENCES = {
  gatewayRef: { name: "llm" },
  mongoClusterRef: { name: "docs" },
  meilisearchInstanceRef: { name: "search" },
} as const;

const GATEWAY_EXTERNAL_DATABASE = {
  mode: "external",
  external: { connectionSecretRef: { name: "gateway-db", key: "url" } },
} as const;

export const KIND_SAMPLES = {
  PostgresCluster: [
    {
      type: "cnpg",
      mode: "managed",
      databases: [{ name: "app", owner: "app_owner" }, { name: "logs" }],
      managed: { instances: 2, storage: { size: "10Gi", storageClass: "standard" }, deletionPolicy: "Retain" },
    },
    {
      mode: "adopt",
      adopt: { clusterRef: { name: "shared", namespace: "data" }, credentialsSecretRef: SECRET },
    },
    {
      mode: "external",
      external: { connectionSecretRef: { name: "pg", key: "uri" }, secretsRef: { name: "platform" } },
    },
  ],
  RedisInstance: [
    {
      type: "redis",
      mode: "managed",
      managed: {
        topology: "replication",
        replicas: 3,
        sentinel: true,
        image: "quay.io/opstree/redis:v7.0.15",
        sentinelImage: "quay.io/opstree/redis-sentinel:v7.0.15",
        storage: { size: "1Gi", storageClass: "standard" },
        deletionPolicy: "Delete",
      },
    },
    {
      mode: "adopt",
      adopt: { redisRef: { kind: "Redis", name: "cache", namespace: "data" }, credentialsSecretRef: SECRET },
    },
    {
      mode: "external",
      external: { connectionSecretRef: { name: "redis", key: "password" }, secretsRef: { name: "platform" } },
    },
  ],
  MeilisearchInstance: [
    {
      mode: "managed",
      managed: { storage: { size: "20Gi", storageClass: "standard" }, deletionPolicy: "Delete" },
    },
    {
      mode: "external",
      external: { connectionSecretRef: { name: "search", key: "password" }, secretsRef: { name: "platform" } },
    },
  ],
  Gateway: [
    {
      models: [
        { name: "gpt-4o", provider: "openai", model: "gpt-4o", apiKeySecretRef: { name: "openai", key: "api-key" } },
        { name: "llama3", provider: "ollama", model: "llama3", apiBase: "http://ollama.models.svc:11434" },
      ],
      database: {
        mode: "postgresCluster",
        postgresClusterRef: { name: "shared", namespace: "data" },
        databaseUrlSecretRef: { name: "gateway-db", key: "url" },
      },
      replicas: 2,
      observabilityRef: { name: "traces", namespace: "observability" },
      observabilityKeysSecretRef: { name: "langfuse-keys" },
    },
    { database: GATEWAY_EXTERNAL_DATABASE, secretsRef: { name: "platform" } },
  ],
  ClickHouseCluster: [
    {
      type: "clickhouse",
      mode: "managed",
      managed: {
        replicas: 2,
        shards: 2,
        image: "docker.io/clickhouse/clickhouse-server:25.8",
        storage: { size: "20Gi", storageClass: "standard" },
        keeper: {
          replicas: 3,
          image: "docker.io/clickhouse/clickhouse-keeper:25.8",
          storage: { size: "2Gi", storageClass: "standard" },
        },
        deletionPolicy: "Delete",
      },
    },
    {
      mode: "adopt",
      adopt: {
        clusterRef: { name: "analytics", namespace: "data" },
        credentialsSecretRef: SECRET,
        username: "langfuse",
      },
    },
    {
      mode: "external",
      external: { connectionSecretRef: { name: "clickhouse", key: "password" }, secretsRef: { name: "platform" } },
    },
  ],
  MongoCluster: [
    {
      type: "community",
      mode: "managed",
      managed: {
        members: 3,
        version: "8.3.4",
        storage: { size: "10Gi", storageClass: "standard" },
        deletionPolicy: "Delete",
      },
    },
    {
      mode: "adopt",
      adopt: { communityRef: { name: "documents", namespace: "data" }, credentialsSecretRef: SECRET },
    },
    {
      mode: "external",
      external: { connectionSecretRef: { name: "mongo", key: "password" }, secretsRef: { name: "platform" } },
    },
  ],
  SecretsManagement: [
    {
      backend: "eso",
      eso: {
        provider: {
          azureKeyVault: {
            vaultUrl: "https://platform.vault.azure.net",
            authType: "WorkloadIdentity",
            serviceAccountRef: { name: "secrets-reader" },
            tenantId: "72f988bf-86f1-41af-91ab-2d7cd011db47",
          },
        },
        refreshInterval: "15m",
        secrets: [
          {
            name: "gateway-keys",
            data: [
              { key: "openai", remoteKey: "openai-api-key" },
              { key: "anthropic", remoteKey: "providers", property: "anthropic" },
            ],
          },
        ],
      },
    },
    {
      backend: "eso",
      eso: {
        provider: {
          vault: {
            server: "https://vault.example.com:8200",
            path: "secret",
            version: "v2",
            namespace: "platform",
            role: "apps",
            mountPath: "kubernetes",
            serviceAccountRef: { name: "vault-auth" },
          },
        },
        secrets: [{ name: "db", data: [{ key: "password", remoteKey: "apps/db", property: "password" }] }],
      },
    },
    {
      backend: "eso",
      eso: {
        provider: {
          aws: {
            service: "SecretsManager",
            region: "eu-west-1",
            role: "arn:aws:iam::123456789012:role/secrets-reader",
            serviceAccountRef: { name: "irsa" },
          },
        },
        secrets: [{ name: "db", data: [{ key: "password", remoteKey: "prod/db-password" }] }],
      },
    },
    {
      backend: "eso",
      eso: {
        provider: {
          gcp: {
            projectID: "platform-123",
            workloadIdentity: {
              serviceAccountRef: { name: "gsm-reader" },
              clusterLocation: "europe-west1",
              clusterName: "platform",
              clusterProjectID: "platform-123",
            },
          },
        },
        secrets: [{ name: "db", data: [{ key: "password", remoteKey: "db-password" }] }],
      },
    },
    {
      backend: "eso",
      eso: {
        clusterSecretStoreRef: { name: "platform-vault" },
        secrets: [{ name: "db", data: [{ key: "password", remoteKey: "db-password" }] }],
      },
    },
    { backend: "sealed-secrets", sealedSecrets: { secrets: [{ name: "gateway-keys" }, { name: "db" }] } },
  ],
  Stack: [
    {
      postgres: {
        managed: { instances: 1, storage: { size: "10Gi", storageClass: "standard" }, deletionPolicy: "Retain" },
        databases: [{ name: "litellm", owner: "gateway" }, { name: "langfuse" }],
      },
    },
  ],
  ReferenceGrant: [
    {
      from: [{ group: "core.navique.com", kind: "PostgresCluster", namespace: "apps" }],
      to: [{ group: "", kind: "Secret", name: "pg" }],
    },
  ],
  Observability: [
    {
      postgresClusterRef: { name: "shared", namespace: "data" },
      clickhouseClusterRef: { name: "analytics", namespace: "data" },
      redisInstanceRef: { name: "cache", namespace: "data" },
      s3: {
        bucket: "langfuse-traces",
        region: "eu-west-1",
        endpoint: "https://minio.storage.svc:9000",
        forcePathStyle: true,
        accessKeyIdSecretRef: { name: "s3", key: "access-key-id" },
        secretAccessKeySecretRef: { name: "s3", key: "secret-access-key" },
      },
      url: "https://langfuse.example.com",
      organization: "Platform team",
      project: "Gateway traces",
      projectKeysSecretRef: { name: "langfuse-project-keys" },
      web: { replicas: 2 },
      worker: { replicas: 3 },
      secretsRef: { name: "platform" },
    },
    OBSERVABILITY_STORES,
  ],
  ChatUI: [
    {
      gatewayRef: { name: "llm", namespace: "gateways" },
      gatewayKeySecretRef: { name: "chat-gateway-key", key: "api_key" },
      mongoClusterRef: { name: "docs", namespace: "data" },
      meilisearchInstanceRef: { name: "search", namespace: "data" },
      endpointName: "Platform LLMs",
      url: "https://chat.example.com",
      replicas: 2,
      imageStorage: { size: "20Gi", storageClass: "standard" },
      secretsRef: { name: "platform" },
    },
    CHAT_UI_REFERENCES,
  ],
  Organization: [
    { gatewayRef: { name: "llm" }, alias: "Research", models: ["gpt-4o"], maxBudget: 500, budgetDuration: "30d" },
  ],
  Team: [
    { gatewayRef: { name: "llm" }, alias: "Search team", models: ["gpt-4o"], maxBudget: 100, budgetDuration: "7d" },
  ],
  User: [
    {
      gatewayRef: { name: "llm" },
      email: "ada@example.com",
      role: "internal_user",
      models: ["gpt-4o"],
      maxBudget: 20,
      budgetDuration: "30d",
      teams: [{ name: "search", role: "admin" }],
    },
  ],
  License: [{ token: "nvq1.test-key.e30.AAAA" }],
} as const satisfies Readonly<Record<string, readonly Record<string, unknown>[]>>;

/** The least a kind's spec must hold: empty for most kinds, whose every field has a default; a Gateway needs its database, a SecretsManagement its backend, an Observability its stores, a ChatUI its gateway and stores, an identity its gateway (a User its email too). */
export function minimalSpec(kind: string): Record<string, unknown> {
  if (kind === "Gateway") return { database: GATEWAY_EXTERNAL_DATABASE };
  // A backend must be chosen; sealed-secrets is the one that needs nothing else.
  if (kind === "SecretsManagement") return { backend: "sealed-secrets" };
  if (kind === "Observability") return { ...OBSERVABILITY_STORES };
  if (kind === "ChatUI") return { ...CHAT_UI_REFERENCES };
  // An identity names its gateway; a user also their email.
  if (kind === "Organization" || kind === "Team") return { gatewayRef: { name: "llm" } };
  if (kind === "User") return { gatewayRef: { name: "llm" }, email: "ada@example.com" };
  return {};
}
