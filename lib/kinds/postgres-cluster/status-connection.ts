import type { Connection } from "../../api/resource-status.js";

/** A PostgresCluster's status as any release wrote it: `connection`, or only the first releases' fields. */
export interface WrittenPostgresStatus {
  readonly connection?: Connection | undefined;
  readonly host?: string | undefined;
  readonly port?: number | undefined;
  readonly credentialsSecret?: { readonly name: string; readonly namespace?: string | undefined } | undefined;
}

/**
 * Where a PostgresCluster says consumers connect: its `status.connection`, else — a status written by a
 * release before `connection` existed, until its operator reconciles it again — the deprecated top-level
 * fields. Undefined while it says nothing.
 */
export function postgresConnection(status: WrittenPostgresStatus | undefined): Connection | undefined {
  if (status?.connection) return status.connection;
  if (!status?.host || status.port === undefined) return undefined;
  return {
    host: status.host,
    port: status.port,
    ...(status.credentialsSecret
      ? { credentialsSecret: { name: status.credentialsSecret.name, namespace: status.credentialsSecret.namespace } }
      : {}),
  };
}
