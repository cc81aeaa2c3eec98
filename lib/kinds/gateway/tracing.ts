import { refNamespace } from "../../api/refs.js";
import { type Dependency, wiringOf } from "../../engine/dependencies.js";
import type { Verdict } from "../../engine/kind-module.js";
import type { DesiredStep } from "../../engine/steps.js";
import type { EngineView } from "../../engine/view.js";
import { credentialsCopyStep } from "../datastore/claimed-database.js";
import type { ReferencedSecret } from "../workload/referenced-secrets.js";
import type { Gateway } from "./schema.js";

/** The field naming the Observability, and the one wiring it by hand. */
export const OBSERVABILITY_FIELD = "spec.observabilityRef";
export const OBSERVABILITY_KEYS_FIELD = "spec.observabilityKeysSecretRef";

/**
 * LiteLLM's callback for Langfuse v3 and v4, over OpenTelemetry (LiteLLM's Langfuse OTEL docs): it reads
 * LANGFUSE_PUBLIC_KEY and LANGFUSE_SECRET_KEY, and the host from LANGFUSE_OTEL_HOST — older LiteLLM
 * builds read LANGFUSE_HOST, so both are given (unset, it sends to Langfuse's US cloud).
 */
export const LANGFUSE_CALLBACK = "langfuse_otel";

/** The keys of a project's Secret: what an Observability publishes, and what a Secret wired by hand holds. */
const PUBLIC_KEY = "public-key";
const SECRET_KEY = "secret-key";

/** The Observability a Gateway sends its traces to: auto-wired under the licence, else through OBSERVABILITY_KEYS_FIELD. */
export function observabilityDependency(gateway: Gateway, apiGroup: string): Dependency | undefined {
  const ref = gateway.spec.observabilityRef;
  if (!ref) return undefined;
  return {
    field: OBSERVABILITY_FIELD,
    group: apiGroup,
    kind: "Observability",
    name: ref.name,
    namespace: refNamespace(ref, gateway.metadata.namespace),
    needs: "connection",
    manual: { field: OBSERVABILITY_KEYS_FIELD, provided: gateway.spec.observabilityKeysSecretRef !== undefined },
    // Auto-wired, the project's keys are read where the Observability publishes them.
    credentials: true,
  };
}

/** The Secret, in the Gateway's namespace, the project's keys are copied into (auto-wired). */
export function tracesSecretName(gateway: Gateway): string {
  return `${gateway.metadata.name}-observability`;
}

/** The Secret wired by hand, checked for both keys before the proxy is pointed at it. */
export function manualTracesSecrets(gateway: Gateway): ReferencedSecret[] {
  const ref = gateway.spec.observabilityKeysSecretRef;
  return ref ? [{ field: OBSERVABILITY_KEYS_FIELD, name: ref.name, keys: [PUBLIC_KEY, SECRET_KEY] }] : [];
}

/** How the proxy sends its traces: the LiteLLMInstance's callbacks, the copy of the keys they read, and what status says. */
export interface Tracing {
  readonly callbacks: {
    readonly types: readonly string[];
    readonly envVars: readonly Record<string, unknown>[];
  };
  readonly copy?: DesiredStep;
  readonly said: string;
}

/**
 * The Gateway's tracing, from the Observability the engine observed (gated on: Ready, publishing its
 * connection): its in-cluster URL, and its project's keys — copied into the Gateway's namespace when
 * auto-wired, the user's Secret when wired by hand; every key by Secret reference. Undefined without an
 * observabilityRef; a verdict while the keys are not there yet.
 */
export function tracing(gateway: Gateway, view: EngineView, apiGroup: string): Tracing | Verdict | undefined {
  const dependency = observabilityDependency(gateway, apiGroup);
  if (!dependency) return undefined;
  const where = `Observability ${dependency.namespace}/${dependency.name}`;
  const connection = (
    view.dependencies?.[dependency.field]?.status as
      | { connection?: { url?: string; keys?: { publicKey?: string; secretKey?: string } } }
      | undefined
  )?.connection;
  if (!connection?.url)
    return {
      ok: false,
      reason: "ObservabilityPending",
      message: `${dependency.field}: waiting for ${where} to publish where it takes traces (status.connection.url)`,
    };
  const wiring = wiringOf(dependency, view.licence.entitlements);
  let secret = gateway.spec.observabilityKeysSecretRef?.name;
  let copy: DesiredStep | undefined;
  if (wiring.mode === "auto" || !secret) {
    const credentials = view.connectionCredentials?.[dependency.field];
    const publicKey = credentials?.[connection.keys?.publicKey ?? PUBLIC_KEY];
    const secretKey = credentials?.[connection.keys?.secretKey ?? SECRET_KEY];
    if (!publicKey || !secretKey)
      return {
        ok: false,
        reason: "CredentialsPending",
        message: `${dependency.field}: waiting for ${where} to publish its project's keys (status.connection.credentialsSecret)`,
      };
    secret = tracesSecretName(gateway);
    copy = credentialsCopyStep(
      secret,
      gateway.metadata.namespace,
      { [PUBLIC_KEY]: publicKey, [SECRET_KEY]: secretKey },
      `the project keys of ${where}`,
    );
  }
  const fromSecret = (name: string, key: string) => ({ name, valueFrom: { secretKeyRef: { name: secret, key } } });
  return {
    callbacks: {
      types: [LANGFUSE_CALLBACK],
      envVars: [
        fromSecret("LANGFUSE_PUBLIC_KEY", PUBLIC_KEY),
        fromSecret("LANGFUSE_SECRET_KEY", SECRET_KEY),
        { name: "LANGFUSE_OTEL_HOST", value: connection.url },
        { name: "LANGFUSE_HOST", value: connection.url },
      ],
    },
    ...(copy ? { copy } : {}),
    said: `${dependency.field} → ${where}: traces sent to ${connection.url} (LiteLLM callback ${LANGFUSE_CALLBACK}, keys from Secret ${gateway.metadata.namespace}/${secret})`,
  };
}
