/** Facts of the CloudNativePG API the product emits and reads (CATALOG.md). */
export const CNPG_GROUP = "postgresql.cnpg.io";
export const CNPG_VERSION = "v1";
export const CNPG_API_VERSION = `${CNPG_GROUP}/${CNPG_VERSION}`;
export const CNPG_CLUSTERS = "clusters";
export const CNPG_DATABASES = "databases";

/** The role and database `initdb` creates in a managed cluster, owner of databases by default. */
export const CNPG_APP_OWNER = "app";
export const POSTGRES_PORT = 5432;

/** The read-write Service CNPG creates beside each Cluster. */
export function readWriteHost(cluster: string, namespace: string): string {
  return `${cluster}-rw.${namespace}.svc`;
}

/** What the product reads of a CNPG Cluster's status, which the CNPG operator writes. */
export interface CnpgClusterStatus {
  readonly phase?: string;
  readonly conditions?: readonly { readonly type: string; readonly status: string; readonly message?: string }[];
}

export function cnpgClusterReady(status: CnpgClusterStatus | undefined): boolean {
  return status?.conditions?.some((c) => c.type === "Ready" && c.status === "True") ?? false;
}

/** A Kubernetes-safe object name for a database: `billing_v2` → `billing-v2`. */
export function databaseObjectName(cluster: string, database: string): string {
  return `${cluster}-${database.replace(/_/g, "-")}`.slice(0, 253).replace(/-+$/, "");
}
