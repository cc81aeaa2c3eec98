/** Facts of the CloudNativePG API the product emits and reads; where each comes from: docs/provenance.md. */
export const CNPG_GROUP = "postgresql.cnpg.io";
export const CNPG_VERSION = "v1";
export const CNPG_API_VERSION = `${CNPG_GROUP}/${CNPG_VERSION}`;
export const CNPG_CLUSTERS = "clusters";
/** What `spec.adopt.clusterRef` names: a CNPG Cluster. */
export const CNPG_CLUSTER_TARGET = { group: CNPG_GROUP, kinds: ["Cluster"] } as const;
export const CNPG_DATABASES = "databases";
/**
 * A PostgreSQL role as an object of its own beside its Cluster, with its own finalizer and reclaim policy
 * (cloudnative-pg v1.30.0, api/v1/databaserole_types.go; its CRD databaseroles.postgresql.cnpg.io ships
 * with chart 0.29.0). What a claim's role is made as (./claims.ts).
 */
export const CNPG_DATABASE_ROLES = "databaseroles";

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

/**
 * The label that makes CNPG watch a Secret (cloudnative-pg v1.30.0, pkg/utils/labels_annotations.go
 * WatchedLabelName): a change to a labelled password Secret is applied to its role at once, not at a
 * later resync (docs/src/declarative_role_management.md, "Password management").
 */
export const CNPG_RELOAD_LABEL = "cnpg.io/reload";

function field(value: unknown, key: string): unknown {
  return typeof value === "object" && value !== null ? (value as Record<string, unknown>)[key] : undefined;
}

function nameOf(reference: unknown): string | undefined {
  const name = field(reference, "name");
  return typeof name === "string" && name !== "" ? name : undefined;
}

/**
 * The Secrets a CNPG Cluster takes its passwords from, as its spec names them: the initdb owner's
 * (`bootstrap.initdb.secret`) and each managed role's (`managed.roles[].passwordSecret`). CNPG keeps the
 * roles' passwords equal to these Secrets, so whoever keeps the Cluster needs them.
 */
export function clusterPasswordSecrets(spec: unknown): string[] {
  const initdb = nameOf(field(field(field(spec, "bootstrap"), "initdb"), "secret"));
  const roles = field(field(spec, "managed"), "roles");
  const roleSecrets = Array.isArray(roles) ? roles.map((r) => nameOf(field(r, "passwordSecret"))) : [];
  return [initdb, ...roleSecrets].filter((n): n is string => n !== undefined);
}

/** The CNPG Cluster a CNPG Database or DatabaseRole object describes a database or a role of (`spec.cluster.name`). */
export function databaseCluster(spec: unknown): string | undefined {
  return nameOf(field(spec, "cluster"));
}
