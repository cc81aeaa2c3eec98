import type { ObservabilityS3 } from "./schema.js";

// Facts of the official Langfuse chart the product relies on (langfuse/langfuse-k8s, charts/langfuse,
// chart 2.0.0 at tag langfuse-2.0.0, and Langfuse v4.4.0 itself; docs/observability.md says where each
// one comes from).

/** The web Service's port (`langfuse.web.service.port`, 3000), where the UI, the API and OTLP ingestion listen. */
export const LANGFUSE_WEB_PORT = 3000;

/**
 * The chart names its Deployments `<fullname>-web` and `<fullname>-worker` and the Service `<fullname>-web`,
 * `fullname` being `fullnameOverride` when set: the product sets it to the resource's name.
 */
export function webService(name: string, namespace: string): string {
  return `${name}-web.${namespace}.svc`;
}

/** The keys of the product's Secret of Langfuse's own secrets. */
export const SECRET_KEYS = { salt: "salt", encryptionKey: "encryption-key" } as const;

/** The keys of the project's Secret: what gateways read (published in `status.connection.keys`). */
export const PROJECT_KEYS = { publicKey: "public-key", secretKey: "secret-key" } as const;

/** The keys of the Secret the datastores' passwords are copied into. */
export const DATASTORE_KEYS = {
  postgres: "postgres-password",
  clickhouse: "clickhouse-password",
  redis: "redis-password",
} as const;

export interface LangfuseValuesInput {
  readonly name: string;
  /** NEXTAUTH_URL: where browsers open it. */
  readonly url: string;
  /** The Secret of SECRET_KEYS. */
  readonly secrets: string;
  /** The Secret of DATASTORE_KEYS. */
  readonly datastores: string;
  /** The Secret of PROJECT_KEYS. */
  readonly projectKeys: string;
  readonly project: {
    readonly organizationId: string;
    readonly organizationName: string;
    readonly projectId: string;
    readonly projectName: string;
  };
  readonly postgres: {
    readonly host: string;
    readonly port: number;
    readonly database: string;
    readonly username: string;
  };
  readonly clickhouse: {
    readonly host: string;
    readonly httpPort: number;
    readonly nativePort: number;
    readonly username: string;
  };
  readonly redis: { readonly host: string; readonly port: number };
  readonly s3: ObservabilityS3;
  readonly replicas: { readonly web: number; readonly worker: number };
}

const secretKeyRef = (name: string, key: string) => ({ secretKeyRef: { name, key } });

/**
 * The chart's values: every bundled store off (`*.deploy`), each store by host and Secret reference, never a
 * value — the values are stored in the release record.
 *
 * - `langfuse.salt` and `langfuse.encryptionKey` come from the product's Secret. `langfuse.nextauth.secret`
 *   is left to the chart, which generates it once into its Secret `<fullname>-app` (kept by `lookup`): chart
 *   2.0.0 renders that Secret without data when all three are given, and every later `helm upgrade` then
 *   fails (langfuse-k8s issue 399, fixed after 2.0.0). It only signs sessions.
 * - Langfuse ignores DATABASE_PORT and builds its URL from DATABASE_HOST, so the port goes in the host.
 * - `clickhouse.cluster.enabled` defaults to true, which a single ClickHouse node cannot serve.
 * - The organisation and project are made at first start from `LANGFUSE_INIT_*`, which the chart has no
 *   values for: `langfuse.additionalEnv`, the keys by secretKeyRef.
 */
export function langfuseValues(input: LangfuseValuesInput): Record<string, unknown> {
  const { s3, project } = input;
  return {
    fullnameOverride: input.name,
    langfuse: {
      salt: secretKeyRef(input.secrets, SECRET_KEYS.salt),
      encryptionKey: secretKeyRef(input.secrets, SECRET_KEYS.encryptionKey),
      nextauth: { url: input.url },
      web: { replicas: input.replicas.web },
      worker: { replicas: input.replicas.worker },
      additionalEnv: [
        { name: "LANGFUSE_INIT_ORG_ID", value: project.organizationId },
        { name: "LANGFUSE_INIT_ORG_NAME", value: project.organizationName },
        { name: "LANGFUSE_INIT_PROJECT_ID", value: project.projectId },
        { name: "LANGFUSE_INIT_PROJECT_NAME", value: project.projectName },
        {
          name: "LANGFUSE_INIT_PROJECT_PUBLIC_KEY",
          valueFrom: secretKeyRef(input.projectKeys, PROJECT_KEYS.publicKey),
        },
        {
          name: "LANGFUSE_INIT_PROJECT_SECRET_KEY",
          valueFrom: secretKeyRef(input.projectKeys, PROJECT_KEYS.secretKey),
        },
      ],
    },
    postgresql: {
      deploy: false,
      host: `${input.postgres.host}:${input.postgres.port}`,
      auth: {
        username: input.postgres.username,
        database: input.postgres.database,
        existingSecret: input.datastores,
        secretKeys: { userPasswordKey: DATASTORE_KEYS.postgres },
      },
    },
    clickhouse: {
      deploy: false,
      host: input.clickhouse.host,
      httpPort: input.clickhouse.httpPort,
      nativePort: input.clickhouse.nativePort,
      cluster: { enabled: false },
      auth: {
        username: input.clickhouse.username,
        existingSecret: input.datastores,
        existingSecretKey: DATASTORE_KEYS.clickhouse,
      },
    },
    redis: {
      deploy: false,
      host: input.redis.host,
      port: input.redis.port,
      auth: { existingSecret: input.datastores, existingSecretPasswordKey: DATASTORE_KEYS.redis },
    },
    s3: {
      deploy: false,
      bucket: s3.bucket,
      region: s3.region,
      ...(s3.endpoint ? { endpoint: s3.endpoint } : {}),
      forcePathStyle: s3.forcePathStyle,
      accessKeyId: secretKeyRef(s3.accessKeyIdSecretRef.name, s3.accessKeyIdSecretRef.key),
      secretAccessKey: secretKeyRef(s3.secretAccessKeySecretRef.name, s3.secretAccessKeySecretRef.key),
    },
  };
}
