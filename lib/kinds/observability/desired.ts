import { refNamespace } from "../../api/refs.js";
import { LANGFUSE } from "../../catalog/langfuse.js";
import type { Dependency } from "../../engine/dependencies.js";
import { generateSecretStep, type KeyRule } from "../../engine/generated-secret.js";
import type { Desired } from "../../engine/kind-module.js";
import type { DesiredStep } from "../../engine/steps.js";
import { isVerdict } from "../../engine/verdict.js";
import type { EngineView } from "../../engine/view.js";
import { observedRelease, rolloutVerdict, workloadReleaseStep } from "../../engine/workload-release.js";
import { claimedDatabase, credentialsCopyStep, isClaimedDatabase } from "../datastore/claimed-database.js";
import { connectionUrl } from "../datastore/connection-url.js";
import { sharedConnection } from "../datastore/shared-connection.js";
import { claimsNotTaken } from "../postgres-cluster/claims.js";
import type { ReferencedSecret } from "../workload/referenced-secrets.js";
import { missingSecret } from "../workload/referenced-secrets.js";
import { DATASTORE_KEYS, LANGFUSE_WEB_PORT, langfuseValues, PROJECT_KEYS, SECRET_KEYS, webService } from "./chart.js";
import type { Observability, ObservabilityStatus } from "./schema.js";

type ObservabilityDesired = Desired<ObservabilityStatus>;

/** The fields naming its datastores: what DependenciesReady and every message name. */
export const POSTGRES_FIELD = "spec.postgresClusterRef";
export const CLICKHOUSE_FIELD = "spec.clickhouseClusterRef";
export const REDIS_FIELD = "spec.redisInstanceRef";
export const PROJECT_KEYS_FIELD = "spec.projectKeysSecretRef";

/**
 * Langfuse's own secrets that nothing can bring back: the salt it hashes API keys with, and the key it
 * encrypts stored credentials with (64 hex characters: 256 bits, as Langfuse requires). Its session
 * secret is the chart's (./chart.ts says why).
 */
const LANGFUSE_SECRETS: Readonly<Record<string, KeyRule>> = {
  [SECRET_KEYS.salt]: { length: 43, alphabet: "base64url" },
  [SECRET_KEYS.encryptionKey]: { length: 64, alphabet: "hex" },
};

/** The project's API keys, in the forms Langfuse issues them: `pk-lf-…` and `sk-lf-…`. */
const GENERATED_PROJECT_KEYS: Readonly<Record<string, KeyRule>> = {
  [PROJECT_KEYS.publicKey]: { length: 32, alphabet: "hex", prefix: "pk-lf-" },
  [PROJECT_KEYS.secretKey]: { length: 32, alphabet: "hex", prefix: "sk-lf-" },
};

export function secretsName(resource: Observability): string {
  return `${resource.metadata.name}-secrets`;
}

/** The Secret of the project's keys: the user's (projectKeysSecretRef), or the generated `<name>-project-keys`. */
export function projectKeysName(resource: Observability): string {
  return resource.spec.projectKeysSecretRef?.name ?? `${resource.metadata.name}-project-keys`;
}

/** The Secret its datastores' passwords are copied into, in its own namespace: the chart reads no other. */
export function datastoresSecretName(resource: Observability): string {
  return `${resource.metadata.name}-datastores`;
}

/** The organisation and project made at first start: names and ids (ids are the names Kubernetes gave). */
export function initialProject(resource: Observability) {
  const { name, namespace } = resource.metadata;
  return {
    organizationId: namespace,
    organizationName: resource.spec.organization ?? namespace,
    projectId: name,
    projectName: resource.spec.project ?? name,
  };
}

/** Its datastores, each a dependency: the PostgresCluster claimed, the ClickHouseCluster and RedisInstance read. */
export function datastoreDependencies(resource: Observability, apiGroup: string): Dependency[] {
  const { namespace } = resource.metadata;
  const { postgresClusterRef, clickhouseClusterRef, redisInstanceRef } = resource.spec;
  const on = (field: string, kind: string, ref: { name: string; namespace?: string | undefined }) => ({
    field,
    group: apiGroup,
    kind,
    name: ref.name,
    namespace: refNamespace(ref, namespace),
    needs: "connection" as const,
  });
  return [
    // Its own database and user, never the cluster's shared one: a claim, whatever the licence.
    { ...on(POSTGRES_FIELD, "PostgresCluster", postgresClusterRef), claim: true },
    // The shared user of each: Langfuse needs nothing of its own there.
    { ...on(CLICKHOUSE_FIELD, "ClickHouseCluster", clickhouseClusterRef), credentials: true },
    { ...on(REDIS_FIELD, "RedisInstance", redisInstanceRef), credentials: true },
  ];
}

/** Every Secret key it passes to Langfuse by reference, by the field naming it. */
export function observabilitySecrets(resource: Observability): ReferencedSecret[] {
  const { s3, projectKeysSecretRef } = resource.spec;
  return [
    { field: "spec.s3.accessKeyIdSecretRef", name: s3.accessKeyIdSecretRef.name, keys: [s3.accessKeyIdSecretRef.key] },
    {
      field: "spec.s3.secretAccessKeySecretRef",
      name: s3.secretAccessKeySecretRef.name,
      keys: [s3.secretAccessKeySecretRef.key],
    },
    ...(projectKeysSecretRef
      ? [
          {
            field: PROJECT_KEYS_FIELD,
            name: projectKeysSecretRef.name,
            keys: [PROJECT_KEYS.publicKey, PROJECT_KEYS.secretKey],
          },
        ]
      : []),
  ];
}

/** What an Observability wants in the cluster now. Pure. */
export function desiredObservability(
  resource: Observability,
  view: EngineView,
  apiGroup: string,
): ObservabilityDesired {
  const { name, namespace } = resource.metadata;
  const [postgres, clickhouse, redis] = datastoreDependencies(resource, apiGroup);
  if (!postgres || !clickhouse || !redis) throw new Error("unreachable: an Observability has three datastores");
  const database = claimedDatabase(view, postgres, {
    notTaken: claimsNotTaken,
    what: "Langfuse's own database and user",
    defaultPort: 5432,
  });
  if (!isClaimedDatabase(database)) return { steps: [], verdict: database };
  const ch = sharedConnection(view, clickhouse);
  if (isVerdict(ch)) return { steps: [], verdict: ch };
  const nativePort = (view.dependencies?.[clickhouse.field]?.status as { nativePort?: number } | undefined)?.nativePort;
  const cache = sharedConnection(view, redis);
  if (isVerdict(cache)) return { steps: [], verdict: cache };
  const missing = missingSecret(namespace, observabilitySecrets(resource), view);
  if (missing) return { steps: [], verdict: missing };

  const project = initialProject(resource);
  const web = webService(name, namespace);
  const url = connectionUrl("http", web, LANGFUSE_WEB_PORT);
  const values = langfuseValues({
    name,
    url: resource.spec.url ?? url,
    secrets: secretsName(resource),
    datastores: datastoresSecretName(resource),
    projectKeys: projectKeysName(resource),
    project,
    postgres: { host: database.host, port: database.port, database: database.database, username: database.username },
    clickhouse: {
      host: ch.host,
      httpPort: ch.port,
      nativePort: nativePort ?? 9000,
      username: ch.username ?? "default",
    },
    redis: { host: cache.host, port: cache.port },
    s3: resource.spec.s3,
    replicas: { web: resource.spec.web.replicas, worker: resource.spec.worker.replicas },
  });
  const steps: DesiredStep[] = [
    credentialsCopyStep(
      datastoresSecretName(resource),
      namespace,
      {
        [DATASTORE_KEYS.postgres]: database.password,
        [DATASTORE_KEYS.clickhouse]: ch.password,
        [DATASTORE_KEYS.redis]: cache.password,
      },
      "the passwords of its database, ClickHouse and Redis",
    ),
    generateSecretStep(
      { apiVersion: "v1", kind: "Secret", type: "Opaque", metadata: { name: secretsName(resource), namespace } },
      LANGFUSE_SECRETS,
      {
        description: `create Secret ${namespace}/${secretsName(resource)} with a generated salt and encryption key (kept if it exists)`,
        rotation: `Langfuse reads them when it starts (Helm release ${namespace}/${name}): API keys hashed with the old salt no longer verify, and what it encrypted with the old key can no longer be read`,
      },
    ),
    ...(resource.spec.projectKeysSecretRef
      ? []
      : [
          generateSecretStep(
            {
              apiVersion: "v1",
              kind: "Secret",
              type: "Opaque",
              metadata: { name: projectKeysName(resource), namespace },
            },
            GENERATED_PROJECT_KEYS,
            {
              description: `create Secret ${namespace}/${projectKeysName(resource)} with generated project keys (kept if it exists)`,
              rotation: `Langfuse makes the project with these keys at its first start only: the new keys are not Langfuse's until entered in its project settings, and every gateway sending traces must pick them up`,
            },
          ),
        ]),
    workloadReleaseStep(view, { name, namespace }, LANGFUSE, values),
  ];
  return {
    steps,
    status: {
      connection: {
        host: web,
        port: LANGFUSE_WEB_PORT,
        url,
        credentialsSecret: { name: projectKeysName(resource), namespace },
        keys: { publicKey: PROJECT_KEYS.publicKey, secretKey: PROJECT_KEYS.secretKey },
      },
      project: `${project.organizationId}/${project.projectId}`,
    },
    readyMessage: `Langfuse serving project ${project.projectName} at ${url}`,
    verdict: rolloutVerdict(observedRelease(view, name, namespace), "LangfuseReady", "Langfuse"),
  };
}
