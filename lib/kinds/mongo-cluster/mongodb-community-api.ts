/**
 * Facts of the MongoDBCommunity API of the MongoDB Controllers for Kubernetes (MCK, chart mongodb-kubernetes
 * 1.9.1, tag 1.9.1 of mongodb/mongodb-kubernetes) that the product emits and reads: names, ports, the
 * objects the operator derives from a MongoDBCommunity, and how readiness is judged from what it writes.
 * Where each fact comes from (file, tag): docs/mongodb.md.
 */

export const MONGODB_COMMUNITY_GROUP = "mongodbcommunity.mongodb.com";
/** The only version the CRD serves, and its storage version. */
export const MONGODB_COMMUNITY_VERSION = "v1";
export const MONGODB_COMMUNITY_API_VERSION = `${MONGODB_COMMUNITY_GROUP}/${MONGODB_COMMUNITY_VERSION}`;

/** A replica set of MongoDB Community Server. Its plural is its singular: `mongodbcommunity`. */
export const MONGODB_COMMUNITY = {
  apiVersion: MONGODB_COMMUNITY_API_VERSION,
  kind: "MongoDBCommunity",
  plural: "mongodbcommunity",
} as const;

/** What `spec.adopt.communityRef` names: a MongoDBCommunity. */
export const MONGODB_COMMUNITY_TARGET = { group: MONGODB_COMMUNITY_GROUP, kinds: [MONGODB_COMMUNITY.kind] } as const;

/** mongod's port when `spec.additionalMongodConfig.net.port` is unset (automationconfig.DefaultDBPort). */
export const MONGODB_PORT = 27017;

/** The one value `spec.type` takes (an enum of one in the CRD). */
export const REPLICA_SET = "ReplicaSet";

/** The authentication mode the product sets: SCRAM, which the operator maps to SCRAM-SHA-256. */
export const SCRAM = "SCRAM";

/** The key of a user's password in its `passwordSecretRef` Secret when `key` is unset (defaultPasswordKey). */
export const DEFAULT_PASSWORD_KEY = "password";

/**
 * The annotation the operator writes on a MongoDBCommunity after a reconcile that reached Running: the
 * spec it applied, as JSON (replica_set_controller.go, updateLastSuccessfulConfiguration).
 */
export const LAST_SUCCESSFUL_CONFIGURATION = "mongodb.com/v1.lastSuccessfulConfiguration";

/** The names of the two volume claim templates of the operator's StatefulSet (DataVolumeName, LogsVolumeName). */
export const DATA_VOLUME = "data-volume";
export const LOGS_VOLUME = "logs-volume";

/**
 * What the database pods need of their service account, as the chart grants its own
 * `mongodb-kubernetes-appdb` (templates/database-roles.yaml): read Secrets, and read, patch and delete
 * pods (the agent's readiness probe and version-upgrade hook annotate and restart their own pod).
 */
export const DATABASE_POD_RULES = [
  { apiGroups: [""], resources: ["secrets"], verbs: ["get"] },
  { apiGroups: [""], resources: ["pods"], verbs: ["patch", "delete", "get"] },
] as const;

/** A host in the cluster's DNS, as the product writes every in-cluster host (`<service>.<namespace>.svc`). */
function serviceHost(service: string, namespace: string): string {
  return `${service}.${namespace}.svc`;
}

/**
 * The headless Service the operator creates for a MongoDBCommunity: `spec.statefulSet.spec.serviceName`
 * when set, else `<name>-svc` (MongoDBCommunity.ServiceName). Its DNS name resolves to every member; a
 * driver finds the primary from there.
 */
export function serviceName(name: string, spec?: unknown): string {
  const override = field(field(field(spec, "statefulSet"), "spec"), "serviceName");
  return typeof override === "string" && override !== "" ? override : `${name}-svc`;
}

/** Where clients connect to a MongoDBCommunity: its headless Service. */
export function replicaSetHost(name: string, namespace: string, spec?: unknown): string {
  return serviceHost(serviceName(name, spec), namespace);
}

/**
 * mongod's port: `spec.additionalMongodConfig.net.port` read as the operator reads it (a nested path),
 * else 27017 (MongodConfiguration.GetDBPort).
 */
export function mongodPort(spec: unknown): number {
  const port = field(field(field(spec, "additionalMongodConfig"), "net"), "port");
  return typeof port === "number" && Number.isInteger(port) && port > 0 ? port : MONGODB_PORT;
}

/** A user of `spec.users[]`, as the product emits it and reads it back. */
export interface MongoDBUser {
  readonly name: string;
  readonly db: string;
  readonly passwordSecretRef: { readonly name: string; readonly key: string };
  readonly roles: readonly { readonly name: string; readonly db: string }[];
  /** The operator stores the user's SCRAM credentials in `<this>-scram-credentials`; required in practice. */
  readonly scramCredentialsSecretName: string;
  /** The Secret the operator writes the user's connection strings to (default `<name>-<db>-<user>`). */
  readonly connectionStringSecretName: string;
}

/** The Secret the operator makes of a user's SCRAM credentials (MongoDBUser.GetScramCredentialsSecretName). */
export function scramCredentialsSecret(user: Pick<MongoDBUser, "scramCredentialsSecretName">): string {
  return `${user.scramCredentialsSecretName}-scram-credentials`;
}

/**
 * The keys of the connection-string Secret the operator writes for each user (mongodb_users.go,
 * updateConnectionStringSecrets): both URIs embed the password.
 */
export const CONNECTION_STRING_KEYS = [
  "connectionString.standard",
  "connectionString.standardSrv",
  "username",
  "password",
] as const;

/** The fields of a MongoDBCommunity's status the product reads, which the operator writes. */
export interface MongoDBCommunityStatus {
  /** Running, Pending or Failed. */
  readonly phase?: string;
  readonly currentMongoDBMembers?: number;
  readonly message?: string;
}

/** Whether a MongoDBCommunity serves, and in words why not. */
export interface MongoReadiness {
  readonly ready: boolean;
  readonly reason: string;
}

/**
 * A MongoDBCommunity serves when the operator reports phase Running with as many members as its spec
 * asks: the status carries no observedGeneration, so a Running written before a change of `members` is
 * not taken for the new spec's. `users`, when given, must each be in the spec the operator last applied
 * successfully (the annotation LAST_SUCCESSFUL_CONFIGURATION): a user added to a Running replica set is
 * made only once the operator has reconciled it.
 */
export function communityReadiness(
  object: { readonly spec?: unknown; readonly status?: unknown; readonly metadata?: unknown } | undefined,
  users: readonly Pick<MongoDBUser, "name" | "db">[] = [],
): MongoReadiness {
  if (!object) return { ready: false, reason: "it does not exist yet" };
  const status = (object.status ?? {}) as MongoDBCommunityStatus;
  const wanted = field(object.spec, "members");
  const members = typeof wanted === "number" ? wanted : 0;
  const phase = status.phase ?? "";
  if (phase !== "Running") {
    const said = status.message ? `: ${status.message}` : "";
    return { ready: false, reason: phase === "" ? "the operator has not reported yet" : `phase ${phase}${said}` };
  }
  const current = status.currentMongoDBMembers ?? 0;
  if (current !== members) return { ready: false, reason: `phase Running with ${current} of ${members} members` };
  const applied = appliedUsers(object.metadata);
  const pending = users.filter((u) => !applied.some((a) => a.name === u.name && a.db === u.db));
  if (pending.length > 0) {
    return {
      ready: false,
      reason: `the operator has not applied user(s) ${pending.map((u) => `${u.name}@${u.db}`).join(", ")} yet`,
    };
  }
  return { ready: true, reason: `phase Running with ${members} of ${members} members` };
}

/** The users of the spec the operator last applied successfully, from its annotation; none when absent or unreadable. */
export function appliedUsers(metadata: unknown): { name: string; db: string }[] {
  const text = field(field(metadata, "annotations"), LAST_SUCCESSFUL_CONFIGURATION);
  if (typeof text !== "string") return [];
  let spec: unknown;
  try {
    spec = JSON.parse(text);
  } catch {
    return [];
  }
  const users = field(spec, "users");
  if (!Array.isArray(users)) return [];
  return users.flatMap((u) => {
    const name = field(u, "name");
    const db = field(u, "db");
    return typeof name === "string" ? [{ name, db: typeof db === "string" && db !== "" ? db : "admin" }] : [];
  });
}

function field(value: unknown, key: string): unknown {
  return typeof value === "object" && value !== null ? (value as Record<string, unknown>)[key] : undefined;
}

/** The Secrets a MongoDBCommunity takes its users' passwords from (`spec.users[].passwordSecretRef.name`). */
export function passwordSecrets(spec: unknown): string[] {
  const users = field(spec, "users");
  if (!Array.isArray(users)) return [];
  return users.flatMap((u) => {
    const name = field(field(u, "passwordSecretRef"), "name");
    return typeof name === "string" && name !== "" ? [name] : [];
  });
}

/** The service account the pods of a MongoDBCommunity run as, when its spec names one. */
export function podServiceAccount(spec: unknown): string | undefined {
  const name = field(field(field(field(field(spec, "statefulSet"), "spec"), "template"), "spec"), "serviceAccountName");
  return typeof name === "string" && name !== "" ? name : undefined;
}
