import { type Condition, READY } from "../../api/conditions.js";
import type { LocalSecretKeyRef } from "../../api/refs.js";
import { CONNECTION_SECRET_KEYS } from "../../api/resource-status.js";
import { type Dependency, wiringLine, wiringOf } from "../../engine/dependencies.js";
import { generateSecretStep, type KeyRule } from "../../engine/generated-secret.js";
import type { Desired, Verdict } from "../../engine/kind-module.js";
import { type KubeObject, keyOf } from "../../engine/objects.js";
import type { DesiredStep } from "../../engine/steps.js";
import { isVerdict } from "../../engine/verdict.js";
import type { EngineView } from "../../engine/view.js";
import { claimedDatabase, credentialsCopyStep, isClaimedDatabase } from "../datastore/claimed-database.js";
import { connectionUrl } from "../datastore/connection-url.js";
import { claimsNotTaken } from "../postgres-cluster/claims.js";
import { missingSecret, type ReferencedSecret } from "../workload/referenced-secrets.js";
import {
  LITELLM_API_VERSION,
  LITELLM_INSTANCE,
  LITELLM_MODEL,
  LITELLM_PORT,
  type LiteLLMInstanceStatus,
  type LiteLLMModelStatus,
  proxyHost,
} from "./litellm-api.js";
import type { Gateway, GatewayModel, GatewayStatus } from "./schema.js";
import { manualTracesSecrets, observabilityDependency, tracing } from "./tracing.js";
import { virtualKeys } from "./virtual-keys.js";

type GatewayDesired = Desired<GatewayStatus>;

/** The key the LiteLLM operator's own generated master key Secret uses; the product's Secret uses it too. */
export const MASTER_KEY_KEY = "master-key";
/** The key of the salt key Secret, as the operator's own. */
export const SALT_KEY_KEY = "salt-key";

/**
 * The master key: `sk-` and 64 hex characters, the form the LiteLLM operator generates itself and LiteLLM
 * requires (a master key starts with sk-), under LiteLLM's key and, the same value, under the
 * connection's fixed key `password`.
 */
const MASTER_KEY: Readonly<Record<string, KeyRule>> = {
  [MASTER_KEY_KEY]: { length: 64, alphabet: "hex", prefix: "sk-" },
  [CONNECTION_SECRET_KEYS.password]: { sameAs: MASTER_KEY_KEY },
};

/**
 * The salt key LiteLLM encrypts the provider credentials it stores in its database with: generated once
 * and never changed (a new one makes what is stored unreadable), in a Secret of its own that no client
 * is ever pointed at.
 */
const SALT_KEY: Readonly<Record<string, KeyRule>> = {
  [SALT_KEY_KEY]: { length: 64, alphabet: "hex", prefix: "sk-" },
};

export function masterKeyName(gateway: Gateway): string {
  return `${gateway.metadata.name}-master-key`;
}

export function saltKeyName(gateway: Gateway): string {
  return `${gateway.metadata.name}-salt-key`;
}

export function modelObjectName(gateway: Gateway, model: GatewayModel): string {
  return `${gateway.metadata.name}-${model.name}`;
}

/** The spec field of the PostgresCluster reference, and the one wiring it by hand. */
export const POSTGRES_CLUSTER_FIELD = "spec.database.postgresClusterRef";
export const DATABASE_URL_FIELD = "spec.database.databaseUrlSecretRef";

/** Every Secret key a Gateway passes to the proxy by reference, by the field naming it. */
export function referencedSecrets(gateway: Gateway): { readonly field: string; readonly ref: LocalSecretKeyRef }[] {
  const { database, models } = gateway.spec;
  const db =
    database.mode === "external" && database.external
      ? [{ field: "spec.database.external.connectionSecretRef", ref: database.external.connectionSecretRef }]
      : database.databaseUrlSecretRef
        ? [{ field: DATABASE_URL_FIELD, ref: database.databaseUrlSecretRef }]
        : [];
  const keys = models.flatMap((model, index) =>
    model.apiKeySecretRef ? [{ field: `spec.models[${index}].apiKeySecretRef`, ref: model.apiKeySecretRef }] : [],
  );
  return [...db, ...keys];
}

/** The same Secret keys, as the workload kit checks them. */
export function gatewaySecrets(gateway: Gateway): ReferencedSecret[] {
  return [
    ...referencedSecrets(gateway).map(({ field, ref }) => ({ field, name: ref.name, keys: [ref.key] })),
    ...manualTracesSecrets(gateway),
  ];
}

/** The PostgresCluster a Gateway keeps its data in: auto-wired under the licence, else through DATABASE_URL_FIELD. */
export function databaseDependency(gateway: Gateway, apiGroup: string): Dependency | undefined {
  const { database } = gateway.spec;
  if (database.mode !== "postgresCluster" || !database.postgresClusterRef) return undefined;
  const ref = database.postgresClusterRef;
  return {
    field: POSTGRES_CLUSTER_FIELD,
    group: apiGroup,
    kind: "PostgresCluster",
    name: ref.name,
    namespace: ref.namespace ?? gateway.metadata.namespace,
    needs: "connection",
    manual: { field: DATABASE_URL_FIELD, provided: database.databaseUrlSecretRef !== undefined },
    // Auto-wired, the gateway's own database and user in the cluster: never the cluster's shared user.
    claim: true,
  };
}

/** The Secret, in the Gateway's namespace, its claimed database's URL is copied into (auto-wired). */
export function claimedDatabaseSecretName(gateway: Gateway): string {
  return `${gateway.metadata.name}-database`;
}

/** The key of that Secret holding the URL. */
const DATABASE_URL_KEY = "url";

/** Where the proxy reads its database URL from — and, auto-wired, the Secret that holds it — or why not yet. */
function databaseUrl(
  gateway: Gateway,
  view: EngineView,
  apiGroup: string,
): { readonly ref: LocalSecretKeyRef; readonly copy?: Extract<DesiredStep, { kind: "apply" }> } | Verdict {
  const { database } = gateway.spec;
  if (database.mode === "external" && database.external) return { ref: database.external.connectionSecretRef };
  const dependency = databaseDependency(gateway, apiGroup);
  if (!dependency) throw new Error("unreachable: mode postgresCluster without postgresClusterRef passed validation");
  const wiring = wiringOf(dependency, view.licence.entitlements);
  if (wiring.mode === "manual" && database.databaseUrlSecretRef) return { ref: database.databaseUrlSecretRef };
  return claimedUrl(gateway, view, dependency);
}

/**
 * Auto-wired: the gateway's own database and user, claimed in the PostgresCluster (lib/engine/claims.ts),
 * its URL copied into a Secret of the Gateway's namespace — the proxy reads no other namespace. Until the
 * cluster has made the claim, the gateway waits; a cluster that takes no claims in its mode is said, with
 * the way out.
 */
function claimedUrl(
  gateway: Gateway,
  view: EngineView,
  dependency: Dependency,
): { readonly ref: LocalSecretKeyRef; readonly copy: Extract<DesiredStep, { kind: "apply" }> } | Verdict {
  const claimed = claimedDatabase(view, dependency, {
    notTaken: claimsNotTaken,
    orElse: `set ${DATABASE_URL_FIELD} to wire the gateway by hand`,
    what: "the gateway's own database and user",
    defaultPort: 5432,
  });
  if (!isClaimedDatabase(claimed)) return claimed;
  const { username, password, database } = claimed;
  const name = claimedDatabaseSecretName(gateway);
  const url = `postgresql://${encodeURIComponent(username)}:${encodeURIComponent(password)}@${claimed.host}:${claimed.port}/${encodeURIComponent(database)}`;
  return {
    ref: { name, key: DATABASE_URL_KEY },
    copy: credentialsCopyStep(
      name,
      gateway.metadata.namespace,
      { [DATABASE_URL_KEY]: url, username, password, database },
      "the claimed database's URL",
    ),
  };
}

function readyCondition(status: { readonly conditions?: readonly Condition[] } | undefined): Condition | undefined {
  return status?.conditions?.find((c) => c.type === READY);
}

/** Whether the proxy and every model are reported ready by the LiteLLM operator, and if not, the first reason. */
function rollout(gateway: Gateway, view: EngineView, instance: KubeObject, models: readonly KubeObject[]): Verdict {
  const { namespace } = gateway.metadata;
  const live = view.objects.get(keyOf(instance))?.status as LiteLLMInstanceStatus | undefined;
  const where = `LiteLLMInstance ${namespace}/${instance.metadata.name}`;
  if (!live?.ready) {
    const said = readyCondition(live)?.message;
    return {
      ok: false,
      reason: "Provisioning",
      message: `waiting for ${where} to be ready${said ? ` (${said})` : ": the LiteLLM operator has reported nothing yet"}`,
    };
  }
  for (const model of models) {
    const synced = view.objects.get(keyOf(model))?.status as LiteLLMModelStatus | undefined;
    if (synced?.synced) continue;
    const said = synced?.conditions?.find((c) => c.type === "Synced")?.message;
    return {
      ok: false,
      reason: "Provisioning",
      message: `waiting for LiteLLMModel ${namespace}/${model.metadata.name} to be synced to the proxy${said ? ` (${said})` : ""}`,
    };
  }
  return { ok: true, reason: "GatewayReady", message: `${where} ready, ${models.length} model(s) synced` };
}

/** What a Gateway wants in the cluster now. Pure. */
export function desiredGateway(gateway: Gateway, view: EngineView, apiGroup: string): GatewayDesired {
  const { name, namespace } = gateway.metadata;
  const dependency = databaseDependency(gateway, apiGroup);
  const observability = observabilityDependency(gateway, apiGroup);
  const wiring = [dependency, observability].flatMap((d) =>
    d ? [wiringLine(d, wiringOf(d, view.licence.entitlements))] : [],
  );
  const base: Partial<GatewayStatus> = { wiring };
  const database = databaseUrl(gateway, view, apiGroup);
  if (isVerdict(database)) return { steps: [], status: base, verdict: database };
  const url = database.ref;
  const missing = missingSecret(namespace, gatewaySecrets(gateway), view);
  if (missing) return { steps: [], status: base, verdict: missing };
  const traces = tracing(gateway, view, apiGroup);
  if (traces && isVerdict(traces)) return { steps: [], status: base, verdict: traces };

  const masterKey: KubeObject = {
    apiVersion: "v1",
    kind: "Secret",
    type: "Opaque",
    metadata: { name: masterKeyName(gateway), namespace },
  };
  const saltKey: KubeObject = {
    apiVersion: "v1",
    kind: "Secret",
    type: "Opaque",
    metadata: { name: saltKeyName(gateway), namespace },
  };
  const instance: KubeObject = {
    apiVersion: LITELLM_API_VERSION,
    kind: LITELLM_INSTANCE.kind,
    metadata: { name, namespace },
    spec: {
      masterKey: { secretRef: { name: masterKey.metadata.name, key: MASTER_KEY_KEY } },
      saltKey: { secretRef: { name: saltKey.metadata.name, key: SALT_KEY_KEY } },
      database: { external: { connectionSecretRef: { name: url.name, key: url.key } } },
      replicas: gateway.spec.replicas,
      ...(traces ? { callbacks: traces.callbacks } : {}),
    },
  };
  const models: KubeObject[] = gateway.spec.models.map((model) => ({
    apiVersion: LITELLM_API_VERSION,
    kind: LITELLM_MODEL.kind,
    metadata: { name: modelObjectName(gateway, model), namespace },
    spec: {
      instanceRef: { name },
      modelName: model.name,
      litellmParams: {
        model: `${model.provider}/${model.model}`,
        ...(model.apiBase ? { apiBase: model.apiBase } : {}),
        ...(model.apiKeySecretRef
          ? { apiKeySecretRef: { name: model.apiKeySecretRef.name, key: model.apiKeySecretRef.key } }
          : {}),
      },
    },
  }));
  const host = proxyHost(name, namespace);
  const steps: DesiredStep[] = [
    ...(database.copy ? [database.copy] : []),
    ...(traces?.copy ? [traces.copy] : []),
    generateSecretStep(masterKey, MASTER_KEY, {
      description: `create Secret ${namespace}/${masterKey.metadata.name} with a generated master key (kept if it exists)`,
      rotation: `the proxy reads it when it starts (spec.masterKey.secretRef of LiteLLMInstance ${namespace}/${name}): the LiteLLM operator rolls its pods, and every client must pick up the new key from the Secret`,
    }),
    generateSecretStep(saltKey, SALT_KEY, {
      description: `create Secret ${namespace}/${saltKey.metadata.name} with a generated salt key (kept if it exists)`,
      rotation: `LiteLLM encrypted the provider credentials it stores in its database with the old salt key: those can no longer be read, and must be entered again`,
    }),
    {
      kind: "apply",
      object: instance,
      description: `apply LiteLLMInstance ${namespace}/${name} (${gateway.spec.replicas} replica(s), database URL from Secret ${url.name} key ${url.key})`,
    },
    ...models.map(
      (model): DesiredStep => ({
        kind: "apply",
        object: model,
        description: `apply LiteLLMModel ${namespace}/${model.metadata.name} (${(model.spec as { litellmParams: { model: string } }).litellmParams.model})`,
      }),
    ),
  ];
  const keys = virtualKeys(gateway, view);
  steps.push(...keys.steps);
  const modelStatus = models.map((model, index) => ({
    name: gateway.spec.models[index]?.name ?? model.metadata.name,
    synced: Boolean((view.objects.get(keyOf(model))?.status as LiteLLMModelStatus | undefined)?.synced),
  }));
  const gatewayUrl = connectionUrl("http", host, LITELLM_PORT);
  return {
    steps,
    status: {
      ...base,
      ...(traces ? { observability: traces.said } : {}),
      connection: {
        host,
        port: LITELLM_PORT,
        credentialsSecret: { name: masterKey.metadata.name, namespace },
        url: gatewayUrl,
      },
      models: modelStatus,
      claims: [...keys.published],
    },
    readyMessage: `Gateway serving ${models.length} model(s) at ${gatewayUrl}`,
    verdict: rollout(gateway, view, instance, models),
  };
}
