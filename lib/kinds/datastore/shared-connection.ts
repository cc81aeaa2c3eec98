import type { Dependency } from "../../engine/dependencies.js";
import type { Verdict } from "../../engine/kind-module.js";
import type { EngineView } from "../../engine/view.js";

/** A datastore's shared user as its referrer reads it: where it is, and its password. */
export interface SharedConnection {
  readonly host: string;
  readonly port: number;
  readonly url?: string;
  readonly username?: string;
  readonly password: string;
}

/**
 * The host, port and password a dependency's target publishes — its `status.connection` and the Secret
 * that names (read by the engine for a dependency declaring `credentials`) — or why not yet
 * (`CredentialsPending`, naming the Secret). What a consumer of a datastore's shared user reads.
 */
export function sharedConnection(view: EngineView, dependency: Dependency): SharedConnection | Verdict {
  const target = view.dependencies?.[dependency.field];
  const connection = (
    target?.status as
      | { connection?: { host?: string; port?: number; url?: string; credentialsSecret?: { name?: string } } }
      | undefined
  )?.connection;
  const credentials = view.connectionCredentials?.[dependency.field];
  const where = `${dependency.kind} ${dependency.namespace}/${dependency.name}`;
  if (!connection?.host || !connection.port || !credentials?.password)
    return {
      ok: false,
      reason: "CredentialsPending",
      message: `${dependency.field}: waiting for ${where} to publish its connection and the password in Secret ${dependency.namespace}/${connection?.credentialsSecret?.name ?? "(not named yet)"}`,
    };
  return {
    host: connection.host,
    port: connection.port,
    ...(connection.url ? { url: connection.url } : {}),
    ...(credentials.username ? { username: credentials.username } : {}),
    password: credentials.password,
  };
}
