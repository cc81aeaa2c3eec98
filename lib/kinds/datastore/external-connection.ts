import { refNamespace } from "../../api/refs.js";
import type { ObservedRead, Verdict } from "../../engine/kind-module.js";
import type { Credentials } from "../../engine/objects.js";

/** A datastore's `spec.external.connectionSecretRef`: a Secret, which must be in the resource's namespace. */
interface ConnectionSecretRef {
  readonly name: string;
  readonly namespace?: string | undefined;
}

/** The read of an external datastore's connection Secret (only ever followed in the resource's namespace). */
export function connectionSecretRead(ref: ConnectionSecretRef, namespace: string): ObservedRead {
  return {
    id: "externalCredentials",
    field: "spec.external.connectionSecretRef",
    apiVersion: "v1",
    kind: "Secret",
    namespace: refNamespace(ref, namespace),
    name: ref.name,
    as: "credentials",
  };
}

/**
 * What a datastore in external mode reads, for every kind alike: its connection Secret
 * (`connectionSecretRead`); nothing in any other mode.
 */
export function externalReads(resource: {
  readonly metadata: { readonly namespace: string };
  readonly spec: {
    readonly mode: string;
    readonly external?: { readonly connectionSecretRef: ConnectionSecretRef } | undefined;
  };
}): ObservedRead[] {
  const { spec, metadata } = resource;
  return spec.mode === "external" && spec.external
    ? [connectionSecretRead(spec.external.connectionSecretRef, metadata.namespace)]
    : [];
}

/** Where an external datastore is, once its connection Secret says so. */
export interface ExternalConnection {
  readonly host: string;
  readonly port: number;
  readonly secret: { readonly name: string; readonly namespace: string };
  readonly verdict: Verdict;
  /**
   * Ready's message: what was checked — the Secret and the keys it holds — and where consumers are sent.
   * The datastore itself is not contacted (the product never connects to it), so the message claims no
   * reachability.
   */
  readonly readyMessage: string;
}

/**
 * The connection an external datastore's Secret describes, or why it cannot be wired (the Secret in
 * another namespace, missing, or lacking a key) as a verdict naming what to do. Every datastore kind in
 * external mode decides this way; `keys` are the ones it requires, `port` the default port.
 */
export function externalConnection(
  ref: ConnectionSecretRef,
  namespace: string,
  credentials: Credentials | undefined,
  required: { readonly keys: readonly string[]; readonly port: number },
): ExternalConnection | { readonly verdict: Verdict } {
  const where = `${refNamespace(ref, namespace)}/${ref.name}`;
  const all = [...new Set(["host", "port", ...required.keys])].join(", ");
  if (refNamespace(ref, namespace) !== namespace) {
    return {
      verdict: {
        ok: false,
        reason: "CrossNamespaceSecret",
        stalled: true,
        message: `spec.external.connectionSecretRef must name a Secret in ${namespace}, got ${where}: copy the Secret here`,
      },
    };
  }
  const lacking = required.keys.filter((k) => !credentials?.[k]);
  if (!credentials || lacking.length > 0) {
    const keys = all.replace(/, ([^,]+)$/, " and $1");
    return {
      verdict: {
        ok: false,
        reason: "ConnectionSecretInvalid",
        // A Secret that is not there yet may still come (External Secrets, Sealed Secrets, the same
        // Pulumi program): waited for. One that is there without a key needs someone to add it.
        ...(credentials ? { stalled: true } : {}),
        message: credentials
          ? `Secret ${where} lacks keys ${lacking.join(", ")}: add them (${all})`
          : `Secret ${where} (spec.external.connectionSecretRef) does not exist: create it with keys ${keys}`,
      },
    };
  }
  const host = credentials.host ?? "";
  const port = Number.parseInt(credentials.port ?? String(required.port), 10);
  const checked = [...new Set(["host", ...(credentials.port ? ["port"] : []), ...required.keys])];
  const keys = checked.join(", ").replace(/, ([^,]+)$/, " and $1");
  const defaultPort = credentials.port ? "" : ` (no port key: ${required.port})`;
  return {
    host,
    port,
    secret: { name: ref.name, namespace },
    verdict: { ok: true, reason: "ExternalConnectionWired", message: `connection Secret ${where} wired` },
    readyMessage: `Secret ${where} holds ${keys}: consumers are sent to ${host}:${port}${defaultPort}, which the product does not contact`,
  };
}
