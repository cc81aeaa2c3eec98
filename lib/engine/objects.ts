import type { EmittedObject } from "../api/resource-status.js";

/** A Kubernetes object as the product emits or reads it. */
export interface KubeObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: {
    readonly name: string;
    readonly namespace?: string;
    readonly uid?: string;
    readonly resourceVersion?: string;
    readonly labels?: Readonly<Record<string, string>>;
    readonly annotations?: Readonly<Record<string, string>>;
    readonly ownerReferences?: readonly unknown[];
    readonly managedFields?: readonly unknown[];
    readonly deletionTimestamp?: unknown;
  };
  readonly spec?: unknown;
  readonly status?: unknown;
  readonly type?: string;
  readonly stringData?: Readonly<Record<string, string>>;
}

/**
 * A Secret's keys, decoded (username, password, host, port, or whatever key a reference names); a plan
 * copies them, never prints them.
 */
export type Credentials = Readonly<Partial<Record<string, string>>>;

/** `Kind/namespace/name`: how an object is keyed in observations and compared in garbage collection. */
export function objectKey(object: {
  readonly kind: string;
  readonly name: string;
  readonly namespace: string;
}): string {
  return `${object.kind}/${object.namespace}/${object.name}`;
}

/** The key of an object as emitted or read. */
export function keyOf(object: KubeObject): string {
  return objectKey({ kind: object.kind, name: object.metadata.name, namespace: object.metadata.namespace ?? "" });
}

/** How `status.emitted` records an object. */
export function emittedOf(object: KubeObject): EmittedObject {
  return {
    apiVersion: object.apiVersion,
    kind: object.kind,
    name: object.metadata.name,
    namespace: object.metadata.namespace ?? "",
  };
}

/** `Kind namespace/name`, for messages. */
export function labelOf(object: { readonly kind: string; readonly name: string; readonly namespace: string }): string {
  return `${object.kind} ${object.namespace}/${object.name}`;
}

/** Every key of a credentials Secret, decoded; undefined when there is no Secret. */
export function decodeCredentials(
  secret: { readonly data?: Readonly<Record<string, string>> } | undefined,
): Credentials | undefined {
  if (!secret) return undefined;
  return Object.fromEntries(
    Object.entries(secret.data ?? {}).map(([key, value]) => [key, Buffer.from(value, "base64").toString("utf8")]),
  );
}
