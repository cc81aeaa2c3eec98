/**
 * Facts of the External Secrets Operator API (v2.9.0) and of Sealed Secrets (0.36.6) that the product
 * emits and reads: versions served, plurals, and how readiness is judged from the conditions their
 * controllers write. Where each fact comes from (repository, path, tag): docs/secrets-management.md.
 */

export const ESO_GROUP = "external-secrets.io";
/** The version chart 2.9.0 serves and stores (v1beta1 is served: false by default, v1alpha1 is gone). */
export const ESO_API_VERSION = `${ESO_GROUP}/v1`;

/** An upstream kind as the apiserver serves it. */
export interface UpstreamKind {
  readonly apiVersion: string;
  readonly kind: string;
  readonly plural: string;
}

/** A namespaced store: the provider and its authentication, used by the ExternalSecrets of its namespace. */
export const SECRET_STORE = {
  apiVersion: ESO_API_VERSION,
  kind: "SecretStore",
  plural: "secretstores",
} as const satisfies UpstreamKind;
/** A cluster-scoped store: the user's, never emitted; its spec.conditions say which namespaces may use it. */
export const CLUSTER_SECRET_STORE = {
  apiVersion: ESO_API_VERSION,
  kind: "ClusterSecretStore",
  plural: "clustersecretstores",
} as const satisfies UpstreamKind;
/** One target Secret, its keys read from remote keys of a store. */
export const EXTERNAL_SECRET = {
  apiVersion: ESO_API_VERSION,
  kind: "ExternalSecret",
  plural: "externalsecrets",
} as const satisfies UpstreamKind;

/** The SealedSecret: encrypted data the controller decrypts into the Secret of the same name. */
export const SEALED_SECRET = {
  apiVersion: "bitnami.com/v1alpha1",
  kind: "SealedSecret",
  plural: "sealedsecrets",
} as const satisfies UpstreamKind;

/** The condition both ESO stores and ExternalSecrets carry (SecretStoreReady, ExternalSecretReady). */
export const ESO_READY = "Ready";
/** The reason of an ExternalSecret's Ready once its Secret is written (ConditionReasonSecretSynced). */
export const SECRET_SYNCED = "SecretSynced";
/** The condition the Sealed Secrets controller writes with --update-status (the chart's default). */
export const SEALED_SECRET_SYNCED = "Synced";

interface UpstreamCondition {
  readonly type?: string;
  readonly status?: string;
  readonly reason?: string;
  readonly message?: string;
}

/** The conditions an upstream object's status holds, whatever else it holds. */
function conditionsOf(object: { readonly status?: unknown } | undefined): readonly UpstreamCondition[] {
  const conditions = (object?.status as { conditions?: unknown } | undefined)?.conditions;
  return Array.isArray(conditions) ? (conditions as UpstreamCondition[]) : [];
}

/** Whether an upstream object is ready by its condition `type`, and what it says when not. */
export interface UpstreamReadiness {
  readonly ready: boolean;
  /** What the controller said, or that it has said nothing yet. */
  readonly detail: string;
}

/** An object's condition `type` as its controller wrote it: True is ready; `reason`, when given, must match too. */
export function conditionReadiness(
  object: { readonly status?: unknown } | undefined,
  type: string,
  controller: string,
  reason?: string,
): UpstreamReadiness {
  const found = conditionsOf(object).find((c) => c.type === type);
  if (!found) return { ready: false, detail: `${controller} has not reported ${type} yet` };
  const ready = found.status === "True" && (reason === undefined || found.reason === reason);
  const said = [found.reason, found.message].filter((part) => part !== undefined && part !== "").join(": ");
  return { ready, detail: `${type} ${found.status ?? "Unknown"}${said ? ` (${said})` : ""}` };
}

/**
 * Whether ESO's Ready on an ExternalSecret is about its current spec: ESO records the generation it synced
 * in `status.syncedResourceVersion` (`<generation>-<hash of labels and annotations>`), its conditions carry
 * none. A Ready left from an earlier spec is not taken.
 */
export function syncedCurrentGeneration(object: {
  readonly metadata: object;
  readonly status?: unknown;
}): UpstreamReadiness {
  const { generation } = object.metadata as { generation?: number };
  const synced = (object.status as { syncedResourceVersion?: unknown } | undefined)?.syncedResourceVersion;
  if (generation === undefined || (typeof synced === "string" && synced.startsWith(`${generation}-`)))
    return { ready: true, detail: `synced generation ${generation ?? "unknown"}` };
  const was = typeof synced === "string" ? ` (it synced ${synced.split("-")[0]})` : "";
  return { ready: false, detail: `the External Secrets Operator has not synced generation ${generation} yet${was}` };
}
