// Facts of the official LibreChat chart the product relies on (danny-avila/LibreChat, helm/librechat at tag
// chart-2.0.8, LibreChat v0.8.8-rc1; docs/chat-ui.md says where each one comes from).

/** The Service's port (`service.port`, 3080), where LibreChat listens. */
export const LIBRECHAT_PORT = 3080;

/** The version of librechat.yaml LibreChat v0.8.8-rc1 reads (`Constants.CONFIG_VERSION`). */
export const LIBRECHAT_CONFIG_VERSION = "1.3.14";

/**
 * The chart names its Deployment and Service `fullname`, which `fullnameOverride` sets: the product sets it
 * to the resource's name. (Without it the chart names them `<release>-librechat`, even for a release named
 * librechat.)
 */
export function serviceHost(name: string, namespace: string): string {
  return `${name}.${namespace}.svc`;
}

/**
 * The generated keys LibreChat encrypts stored credentials and signs sessions with, in the one Secret the
 * chart loads whole (`global.librechat.existingSecretName`), under the names LibreChat reads.
 */
export const GENERATED_KEYS = {
  credsKey: "CREDS_KEY",
  credsIv: "CREDS_IV",
  jwtSecret: "JWT_SECRET",
  jwtRefreshSecret: "JWT_REFRESH_SECRET",
} as const;

/** The environment variable librechat.yaml's endpoint reads the gateway's key from (`apiKey: ${…}`). */
export const GATEWAY_KEY_ENV = "NAVIQUE_GATEWAY_API_KEY";

/** The keys of the Secret its connections' secrets are copied into. */
export const CONNECTION_KEYS = {
  mongoUri: "mongo-uri",
  meiliMasterKey: "meili-master-key",
  gatewayKey: "gateway-api-key",
} as const;

export interface LibreChatValuesInput {
  readonly name: string;
  /** Where users open it: DOMAIN_CLIENT and DOMAIN_SERVER. */
  readonly url: string;
  readonly replicas: number;
  /** The Secret of GENERATED_KEYS. */
  readonly credentials: string;
  /** The Secret of CONNECTION_KEYS, or the user's for the gateway's key. */
  readonly connections: string;
  readonly gatewayKey: { readonly name: string; readonly key: string };
  readonly meilisearchUrl: string;
  readonly config: string;
  readonly imageStorage: { readonly size: string; readonly storageClass?: string | undefined };
}

/**
 * librechat.yaml: the gateway as LibreChat's one custom endpoint, an OpenAI-compatible API at
 * `<gateway url>/v1`, its key from the environment (never in the file, which the chart puts in a
 * ConfigMap), its models those the gateway serves. Written as JSON, which is YAML (LibreChat reads the file
 * with a YAML parser): no YAML library is loaded with the kinds, in every program and provider process.
 */
export function libreChatConfig(gateway: {
  readonly name: string;
  readonly url: string;
  readonly models: readonly string[];
}): string {
  const [first] = gateway.models;
  return `${JSON.stringify(
    {
      version: LIBRECHAT_CONFIG_VERSION,
      cache: true,
      endpoints: {
        custom: [
          {
            name: gateway.name,
            apiKey: `\${${GATEWAY_KEY_ENV}}`,
            baseURL: `${gateway.url}/v1`,
            models: { default: [...gateway.models], fetch: true },
            titleConvo: true,
            ...(first ? { titleModel: first } : {}),
            modelDisplayLabel: gateway.name,
          },
        ],
      },
    },
    null,
    2,
  )}\n`;
}

const fromSecret = (env: string, name: string, key: string) => ({
  name: env,
  valueFrom: { secretKeyRef: { name, key } },
});

/**
 * The chart's values: its bundled MongoDB and Meilisearch (and Redis, RAG API) off, its Ingress off (on by
 * default, for chat.example.com), every secret by Secret reference — the generated keys in the Secret the
 * chart loads whole, the MongoDB URI, the Meilisearch key and the gateway's key as `global.librechat.env`
 * entries reading the Secret they were copied into. `librechat.configEnv` holds only what is no secret:
 * the chart writes it into a ConfigMap.
 */
export function libreChatValues(input: LibreChatValuesInput): Record<string, unknown> {
  return {
    fullnameOverride: input.name,
    replicaCount: input.replicas,
    global: {
      librechat: {
        existingSecretName: input.credentials,
        env: [
          fromSecret("MONGO_URI", input.connections, CONNECTION_KEYS.mongoUri),
          fromSecret("MEILI_MASTER_KEY", input.connections, CONNECTION_KEYS.meiliMasterKey),
          fromSecret(GATEWAY_KEY_ENV, input.gatewayKey.name, input.gatewayKey.key),
        ],
      },
    },
    librechat: {
      configEnv: {
        MEILI_HOST: input.meilisearchUrl,
        SEARCH: "true",
        DOMAIN_CLIENT: input.url,
        DOMAIN_SERVER: input.url,
      },
      configYamlContent: input.config,
      imageVolume: {
        enabled: true,
        size: input.imageStorage.size,
        accessModes: "ReadWriteOnce",
        ...(input.imageStorage.storageClass ? { storageClassName: input.imageStorage.storageClass } : {}),
      },
    },
    ingress: { enabled: false },
    mongodb: { enabled: false },
    meilisearch: { enabled: false },
    redis: { enabled: false },
    "librechat-rag-api": { enabled: false },
  };
}
