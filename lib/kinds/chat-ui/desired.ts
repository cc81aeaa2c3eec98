import { refNamespace } from "../../api/refs.js";
import { LIBRECHAT } from "../../catalog/librechat.js";
import { CLAIM_PENDING } from "../../engine/claims.js";
import { type Dependency, wiringLine, wiringOf } from "../../engine/dependencies.js";
import { generateSecretStep, type KeyRule } from "../../engine/generated-secret.js";
import type { Desired, Verdict } from "../../engine/kind-module.js";
import type { DesiredStep } from "../../engine/steps.js";
import { isVerdict } from "../../engine/verdict.js";
import type { EngineView } from "../../engine/view.js";
import { observedRelease, rolloutVerdict, workloadReleaseStep } from "../../engine/workload-release.js";
import { claimedDatabase, credentialsCopyStep, isClaimedDatabase } from "../datastore/claimed-database.js";
import { connectionUrl } from "../datastore/connection-url.js";
import { sharedConnection } from "../datastore/shared-connection.js";
import type { ReferencedSecret } from "../workload/referenced-secrets.js";
import { missingSecret } from "../workload/referenced-secrets.js";
import {
  CONNECTION_KEYS,
  GENERATED_KEYS,
  LIBRECHAT_PORT,
  libreChatConfig,
  libreChatValues,
  serviceHost,
} from "./chart.js";
import type { ChatUI, ChatUIStatus } from "./schema.js";

type ChatUIDesired = Desired<ChatUIStatus>;

/** The fields naming what it stands on: what DependenciesReady and every message name. */
export const GATEWAY_FIELD = "spec.gatewayRef";
export const GATEWAY_KEY_FIELD = "spec.gatewayKeySecretRef";
export const MONGO_FIELD = "spec.mongoClusterRef";
export const MEILISEARCH_FIELD = "spec.meilisearchInstanceRef";

/**
 * The key a virtual key's Secret holds it under, when the Gateway's claim names none: the LiteLLM
 * operator's (`api_key`, internal/controller/litellmvirtualkey_controller.go; its docs say `api-key`).
 */
const DEFAULT_API_KEY = "api_key";

/**
 * LibreChat's keys, in the forms it takes (packages/api/src/credentials.ts, v0.8.8-rc1): CREDS_KEY 32 bytes
 * and CREDS_IV 16 bytes as hex, each JWT secret at least 32 characters — never the values its chart and
 * .env.example published once, which LibreChat itself flags.
 */
const LIBRECHAT_KEYS: Readonly<Record<string, KeyRule>> = {
  [GENERATED_KEYS.credsKey]: { length: 64, alphabet: "hex" },
  [GENERATED_KEYS.credsIv]: { length: 32, alphabet: "hex" },
  [GENERATED_KEYS.jwtSecret]: { length: 64, alphabet: "hex" },
  [GENERATED_KEYS.jwtRefreshSecret]: { length: 64, alphabet: "hex" },
};

export function credentialsName(resource: ChatUI): string {
  return `${resource.metadata.name}-credentials`;
}

/** The Secret its connections' secrets are copied into, in its own namespace: the chart reads no other. */
export function connectionsName(resource: ChatUI): string {
  return `${resource.metadata.name}-connections`;
}

const on = (
  resource: ChatUI,
  apiGroup: string,
  field: string,
  kind: string,
  ref: { name: string; namespace?: string | undefined },
) => ({
  field,
  group: apiGroup,
  kind,
  name: ref.name,
  namespace: refNamespace(ref, resource.metadata.namespace),
  needs: "connection" as const,
});

/**
 * Its Gateway: auto-wired under the licence — a virtual key of its own, claimed from the Gateway, which
 * issues it through the LiteLLM operator —, else through GATEWAY_KEY_FIELD.
 */
export function gatewayDependency(resource: ChatUI, apiGroup: string): Dependency {
  return {
    ...on(resource, apiGroup, GATEWAY_FIELD, "Gateway", resource.spec.gatewayRef),
    manual: { field: GATEWAY_KEY_FIELD, provided: resource.spec.gatewayKeySecretRef !== undefined },
    claim: true,
  };
}

/** Its datastores: its own database and user claimed in the MongoCluster, the Meilisearch's master key read. */
export function datastoreDependencies(resource: ChatUI, apiGroup: string): Dependency[] {
  const { mongoClusterRef, meilisearchInstanceRef } = resource.spec;
  return [
    { ...on(resource, apiGroup, MONGO_FIELD, "MongoCluster", mongoClusterRef), claim: true },
    { ...on(resource, apiGroup, MEILISEARCH_FIELD, "MeilisearchInstance", meilisearchInstanceRef), credentials: true },
  ];
}

/** The Secret key wired by hand, checked before LibreChat is pointed at it. */
export function chatUISecrets(resource: ChatUI): ReferencedSecret[] {
  const ref = resource.spec.gatewayKeySecretRef;
  return ref ? [{ field: GATEWAY_KEY_FIELD, name: ref.name, keys: [ref.key] }] : [];
}

/** Why a MongoCluster makes no database for it, with the way out. */
function mongoNotTaken(target: { readonly spec?: unknown } | undefined, where: string, field: string): string {
  const mode = (target?.spec as { readonly mode?: string } | undefined)?.mode;
  return `${where} makes no database of its own for a consumer in its mode (${mode ?? "unknown"}): point ${field} at a managed MongoCluster`;
}

/** The gateway's key: the virtual key issued for this UI (auto-wired), or the user's Secret key; a verdict while not there. */
function gatewayKey(
  resource: ChatUI,
  view: EngineView,
  dependency: Dependency,
): { readonly ref: { name: string; key: string }; readonly copied?: string; readonly said: string } | Verdict {
  const manual = resource.spec.gatewayKeySecretRef;
  const wiring = wiringOf(dependency, view.licence.entitlements);
  if (wiring.mode === "manual" && manual)
    return {
      ref: manual,
      said: `its key from Secret ${resource.metadata.namespace}/${manual.name} (${GATEWAY_KEY_FIELD})`,
    };
  const where = `Gateway ${dependency.namespace}/${dependency.name}`;
  const claimed = view.claimed?.[dependency.field];
  const key = claimed?.credentials?.[claimed.claim.keys?.apiKey ?? DEFAULT_API_KEY];
  if (!claimed || !key)
    return {
      ok: false,
      reason: CLAIM_PENDING,
      message: `waiting for ${where} to issue the UI's virtual key (its claim${claimed ? `, key in Secret ${claimed.claim.credentialsSecret.namespace}/${claimed.claim.credentialsSecret.name}` : ""})`,
    };
  return {
    ref: { name: connectionsName(resource), key: CONNECTION_KEYS.gatewayKey },
    copied: key,
    said: `a virtual key issued for it by ${where}`,
  };
}

/** What a ChatUI wants in the cluster now. Pure. */
export function desiredChatUI(resource: ChatUI, view: EngineView, apiGroup: string): ChatUIDesired {
  const { name, namespace } = resource.metadata;
  const gateway = gatewayDependency(resource, apiGroup);
  const [mongo, meilisearch] = datastoreDependencies(resource, apiGroup);
  if (!mongo || !meilisearch) throw new Error("unreachable: a ChatUI has two datastores");
  const base: Partial<ChatUIStatus> = { wiring: [wiringLine(gateway, wiringOf(gateway, view.licence.entitlements))] };
  const notYet = (verdict: Verdict): ChatUIDesired => ({ steps: [], status: base, verdict });

  const database = claimedDatabase(view, mongo, {
    notTaken: mongoNotTaken,
    what: "LibreChat's own database and user",
    defaultPort: 27017,
  });
  if (!isClaimedDatabase(database)) return notYet(database);
  const search = sharedConnection(view, meilisearch);
  if (isVerdict(search)) return notYet(search);
  const missing = missingSecret(namespace, chatUISecrets(resource), view);
  if (missing) return notYet(missing);
  const key = gatewayKey(resource, view, gateway);
  if (isVerdict(key)) return notYet(key);
  const target = view.dependencies?.[gateway.field];
  const gatewayUrl = (target?.status as { connection?: { url?: string } } | undefined)?.connection?.url;
  const models = ((target?.spec as { models?: readonly { name: string }[] } | undefined)?.models ?? []).map(
    (m) => m.name,
  );
  const where = `Gateway ${gateway.namespace}/${gateway.name}`;
  if (!gatewayUrl)
    return notYet({
      ok: false,
      reason: "GatewayPending",
      message: `${GATEWAY_FIELD}: waiting for ${where} to publish its URL`,
    });
  if (models.length === 0)
    return notYet({
      ok: false,
      reason: "NoModels",
      message: `${GATEWAY_FIELD}: ${where} serves no model, and LibreChat needs at least one: add one to its spec.models`,
    });

  const host = serviceHost(name, namespace);
  const url = connectionUrl("http", host, LIBRECHAT_PORT);
  const mongoUri = `mongodb://${encodeURIComponent(database.username)}:${encodeURIComponent(database.password)}@${database.host}:${database.port}/${encodeURIComponent(database.database)}`;
  const values = libreChatValues({
    name,
    url: resource.spec.url ?? url,
    replicas: resource.spec.replicas,
    credentials: credentialsName(resource),
    connections: connectionsName(resource),
    gatewayKey: key.ref,
    meilisearchUrl: search.url ?? connectionUrl("http", search.host, search.port),
    config: libreChatConfig({ name: resource.spec.endpointName, url: gatewayUrl, models }),
    imageStorage: resource.spec.imageStorage,
  });
  const steps: DesiredStep[] = [
    credentialsCopyStep(
      connectionsName(resource),
      namespace,
      {
        [CONNECTION_KEYS.mongoUri]: mongoUri,
        [CONNECTION_KEYS.meiliMasterKey]: search.password,
        ...(key.copied ? { [CONNECTION_KEYS.gatewayKey]: key.copied } : {}),
      },
      `its MongoDB URI, the Meilisearch master key${key.copied ? " and its virtual key" : ""}`,
    ),
    generateSecretStep(
      { apiVersion: "v1", kind: "Secret", type: "Opaque", metadata: { name: credentialsName(resource), namespace } },
      LIBRECHAT_KEYS,
      {
        description: `create Secret ${namespace}/${credentialsName(resource)} with generated CREDS_KEY, CREDS_IV, JWT_SECRET and JWT_REFRESH_SECRET (kept if it exists)`,
        rotation: `LibreChat reads them when it starts (Helm release ${namespace}/${name}): the API keys users stored can no longer be decrypted, and every user is signed out`,
      },
    ),
    workloadReleaseStep(view, { name, namespace }, LIBRECHAT, values),
  ];
  return {
    steps,
    status: {
      ...base,
      connection: { host, port: LIBRECHAT_PORT, url },
      gateway: `${GATEWAY_FIELD} → ${where}: endpoint ${resource.spec.endpointName} at ${gatewayUrl}/v1 (${models.join(", ")}), ${key.said}`,
    },
    readyMessage: `LibreChat serving ${resource.spec.endpointName} at ${url}`,
    verdict: rolloutVerdict(observedRelease(view, name, namespace), "LibreChatReady", "LibreChat"),
  };
}
