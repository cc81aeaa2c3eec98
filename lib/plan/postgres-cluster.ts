import {
  type Condition,
  DATASTORE_READY,
  OPERATORS_READY,
  READY,
  type ReportedFailure,
  reportedBefore,
} from "../api/conditions.js";
import { API_GROUP, API_GROUP_VERSION, OWNED_BY_LABEL } from "../api/group.js";
import {
  type CapabilityStatus,
  type DeletionPolicy,
  type EmittedObject,
  POSTGRES_CLUSTER_KIND,
  type PostgresCluster,
  type PostgresClusterSpec,
  type PostgresClusterStatus,
} from "../api/postgres-cluster.js";
import { refNamespace } from "../api/refs.js";
import { enforceCap, type Instance, LICENSED, type LicenceRefusal } from "../licence/enforce.js";
import type { Entitlements } from "../licence/entitlements.js";
import {
  CNPG_API_VERSION,
  CNPG_APP_OWNER,
  CNPG_GROUP,
  CNPG_RELOAD_LABEL,
  type CnpgClusterStatus,
  clusterPasswordSecrets,
  cnpgClusterReady,
  databaseCluster,
  databaseObjectName,
  POSTGRES_PORT,
  readWriteHost,
} from "./cnpg.js";
import { withFailure } from "./failed-plan.js";
import type { CapabilityDecision } from "./provenance.js";
import {
  type ObservedGrant,
  REFERENCE_NOT_PERMITTED,
  type Reference,
  type Referrer,
  referenceNotPermittedMessage,
  ungrantedReferences,
} from "./reference-grants.js";
import { type JsonPatchOperation, releaseMarks } from "./release-marks.js";

/** The capability a PostgresCluster of type cnpg in managed mode needs (its prerequisites come with it). */
export const CNPG_CAPABILITY = "cloudnative-pg";

/** Annotation carried by an emitted CNPG Cluster: the deletion policy in force when it was created. */
export const DELETION_POLICY_ANNOTATION = "core.navique.com/deletion-policy";

/** A Kubernetes object as the product emits or reads it. */
export interface KubeObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: {
    readonly name: string;
    readonly namespace?: string;
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

/** Credentials read from a Secret (decoded); the plan copies them, never prints them. */
export interface Credentials {
  readonly username?: string;
  readonly password?: string;
  readonly host?: string;
  readonly port?: string;
}

/** What planning one PostgresCluster needs to know about the cluster; gathered by observe/. */
export interface PostgresObservation {
  /** Decisions for the needed capability and its prerequisites, prerequisites first; empty when none is needed. */
  readonly capabilities: readonly CapabilityDecision[];
  /** For every PostgresCluster in the cluster: `Kind namespace/name` and the capabilities it needs now. */
  readonly consumers: readonly { readonly key: string; readonly needs: readonly string[] }[];
  /** Current state of objects the resource emitted before or wants to emit, by `objectKey`. */
  readonly objects: ReadonlyMap<string, KubeObject>;
  /** The CNPG Cluster referenced in adopt mode, when it exists. */
  readonly adoptTarget?: KubeObject;
  /** The credentials referenced in adopt mode, when the Secret exists. */
  readonly adoptCredentials?: Credentials;
  /**
   * The ReferenceGrants of every namespace the resource's references point into (none when they all stay
   * in its namespace). Absent: none observed, so no reference into another namespace is honoured.
   */
  readonly referenceGrants?: readonly ObservedGrant[];
  /** The connection Secret referenced in external mode, when it exists. */
  readonly externalCredentials?: Credentials;
  /** The entitlements in force, and every PostgresCluster as the cap sees it (this one included). */
  readonly licence: { readonly entitlements: Entitlements; readonly instances: readonly Instance[] };
}

export type PlanStep =
  | { readonly kind: "ensure-capability"; readonly capability: string; readonly description: string }
  | { readonly kind: "apply"; readonly object: KubeObject; readonly description: string }
  | {
      /** Create a basic-auth Secret with a generated password unless it exists; never overwrite. */
      readonly kind: "generate-credentials";
      readonly object: KubeObject;
      readonly username: string;
      readonly description: string;
    }
  | { readonly kind: "delete"; readonly target: EmittedObject; readonly description: string }
  | {
      /** Keep the object and release it to the user: `patch` removes every mark of the product from it. */
      readonly kind: "retain";
      readonly target: EmittedObject;
      readonly patch: readonly JsonPatchOperation[];
      readonly description: string;
    }
  | {
      readonly kind: "release-capability";
      readonly capability: string;
      readonly consumers: readonly string[];
      readonly description: string;
    }
  | { readonly kind: "remove-finalizer"; readonly description: string };

export interface PlannedEvent {
  readonly type: "Normal" | "Warning";
  readonly reason: string;
  readonly message: string;
  /** What identifies the cause (a failure's fingerprint), so that it is recorded once; the message when unset. */
  readonly cause?: string;
}

export interface PostgresPlan {
  /** Set when the licence refuses this resource: nothing else is planned. */
  readonly refusal?: LicenceRefusal;
  readonly steps: readonly PlanStep[];
  readonly conditions: readonly Condition[];
  readonly events: readonly PlannedEvent[];
  readonly status: PostgresClusterStatus;
  /** Not Ready yet and nothing failed: look again later. */
  readonly requeue: boolean;
}

export function objectKey(object: {
  readonly kind: string;
  readonly name: string;
  readonly namespace: string;
}): string {
  return `${object.kind}/${object.namespace}/${object.name}`;
}

function emittedOf(object: KubeObject): EmittedObject {
  return {
    apiVersion: object.apiVersion,
    kind: object.kind,
    name: object.metadata.name,
    namespace: object.metadata.namespace ?? "",
  };
}

export function resourceKey(resource: PostgresCluster): string {
  return `${POSTGRES_CLUSTER_KIND} ${resource.metadata.namespace}/${resource.metadata.name}`;
}

/** The owned-by label value: `<kind>.<namespace>.<name>`, lower case (labels allow no `/`). */
export function ownedByValue(resource: PostgresCluster): string {
  return `postgrescluster.${resource.metadata.namespace}.${resource.metadata.name}`.slice(0, 63).replace(/[-.]+$/, "");
}

/** Capabilities a PostgresCluster needs as specified now; none while it is being deleted. */
export function neededCapabilities(resource: PostgresCluster, withPrerequisites: (name: string) => string[]): string[] {
  if (resource.metadata.deletionTimestamp) return [];
  return resource.spec.mode === "managed" && resource.spec.type === "cnpg" ? withPrerequisites(CNPG_CAPABILITY) : [];
}

function ownerReference(resource: PostgresCluster) {
  return {
    apiVersion: API_GROUP_VERSION,
    kind: POSTGRES_CLUSTER_KIND,
    name: resource.metadata.name,
    uid: resource.metadata.uid ?? "",
    controller: true,
    blockOwnerDeletion: true,
  };
}

function condition(resource: PostgresCluster, type: string, ok: boolean, reason: string, message: string): Condition {
  return {
    type,
    status: ok ? "True" : "False",
    reason,
    message,
    observedGeneration: resource.metadata.generation ?? 0,
  };
}

interface Desired {
  readonly steps: PlanStep[];
  readonly objects: KubeObject[];
  readonly host?: string;
  readonly port?: number;
  readonly credentialsSecret?: { name: string; namespace: string };
  readonly datastore: { ok: boolean; reason: string; message: string };
  readonly provenance?: PostgresClusterStatus["provenance"];
  /** Events the desired state itself calls for (a credentials Secret re-created), reported with the orphans'. */
  readonly events?: readonly PlannedEvent[];
}

/** A datastore that cannot be wired yet: nothing to apply, and the reason said. */
function notReady(provenance: PostgresClusterStatus["provenance"], reason: string, message: string): Desired {
  return { steps: [], objects: [], ...(provenance ? { provenance } : {}), datastore: { ok: false, reason, message } };
}

function labelsFor(resource: PostgresCluster): Record<string, string> {
  return { [OWNED_BY_LABEL]: ownedByValue(resource), "app.kubernetes.io/managed-by": "navique-ai-core-operator" };
}

function cnpgDatabase(
  resource: PostgresCluster,
  cluster: string,
  namespace: string,
  name: string,
  owner: string,
): KubeObject {
  return {
    apiVersion: CNPG_API_VERSION,
    kind: "Database",
    metadata: { name: databaseObjectName(cluster, name), namespace, labels: labelsFor(resource) },
    spec: { name, owner, cluster: { name: cluster } },
  };
}

/**
 * A generated credentials Secret recorded as emitted and now absent: deleted by someone. It cannot come
 * back with the same password (the product keeps no copy of a password anywhere), so it comes back with
 * a new one that CNPG applies to the role — a rotation, reported — never silently (docs/adr/0014).
 */
function recreated(resource: PostgresCluster, observation: PostgresObservation, secret: KubeObject): boolean {
  const key = objectKey({ kind: secret.kind, name: secret.metadata.name, namespace: secret.metadata.namespace ?? "" });
  const emitted = (resource.status?.emitted ?? []).some((e) => e.apiVersion === "v1" && objectKey(e) === key);
  return emitted && !observation.objects.has(key);
}

function desiredManaged(resource: PostgresCluster, observation: PostgresObservation): Desired {
  const { name, namespace } = resource.metadata;
  const managed = resource.spec.managed ?? {
    instances: 1,
    storage: { size: "10Gi" },
    deletionPolicy: "Retain" as DeletionPolicy,
  };
  const credentialsName = `${name}-credentials`;
  const owners = [...new Set(resource.spec.databases.map((d) => d.owner ?? CNPG_APP_OWNER))]
    .filter((o) => o !== CNPG_APP_OWNER)
    .sort();
  const credentials: KubeObject = {
    apiVersion: "v1",
    kind: "Secret",
    type: "kubernetes.io/basic-auth",
    metadata: {
      name: credentialsName,
      namespace,
      // CNPG's own label: a re-created Secret (a new password) is applied to its role at once.
      labels: { ...labelsFor(resource), [CNPG_RELOAD_LABEL]: "true" },
      // Under Retain no owner reference, as on the Cluster: the garbage collector would delete the password
      // of data that is kept — at once under a foreground deletion, before the finalizer could release it.
      ...(managed.deletionPolicy === "Delete" ? { ownerReferences: [ownerReference(resource)] } : {}),
    },
  };
  const roleSecrets = owners.map<KubeObject>((owner) => ({
    ...credentials,
    metadata: { ...credentials.metadata, name: `${name}-${owner.replace(/_/g, "-")}-credentials` },
  }));
  const cluster: KubeObject = {
    apiVersion: CNPG_API_VERSION,
    kind: "Cluster",
    metadata: {
      name,
      namespace,
      labels: labelsFor(resource),
      annotations: { [DELETION_POLICY_ANNOTATION]: managed.deletionPolicy },
    },
    spec: {
      instances: managed.instances,
      storage: {
        size: managed.storage.size,
        ...(managed.storage.storageClass ? { storageClass: managed.storage.storageClass } : {}),
      },
      bootstrap: { initdb: { database: CNPG_APP_OWNER, owner: CNPG_APP_OWNER, secret: { name: credentialsName } } },
      ...(owners.length > 0
        ? {
            managed: {
              roles: owners.map((owner, i) => ({
                name: owner,
                ensure: "present",
                login: true,
                passwordSecret: { name: roleSecrets[i]?.metadata.name },
              })),
            },
          }
        : {}),
    },
  };
  const databases = resource.spec.databases.map((d) =>
    cnpgDatabase(resource, name, namespace, d.name, d.owner ?? CNPG_APP_OWNER),
  );
  const passwordSecrets = [
    { secret: credentials, role: CNPG_APP_OWNER, field: "spec.bootstrap.initdb.secret" },
    ...roleSecrets.map((secret, i) => ({
      secret,
      role: owners[i] ?? "",
      field: "spec.managed.roles[].passwordSecret",
    })),
  ];
  const rotated = passwordSecrets.filter((p) => recreated(resource, observation, p.secret));
  const steps: PlanStep[] = [
    ...passwordSecrets.map<PlanStep>(({ secret, role, field }) => ({
      kind: "generate-credentials",
      object: secret,
      username: role,
      description: rotated.some((r) => r.secret === secret)
        ? `re-create Secret ${namespace}/${secret.metadata.name}, deleted, with a new password for role ${role}: CNPG applies it to the database (${field})`
        : `create Secret ${namespace}/${secret.metadata.name} with a generated password for role ${role} (kept if it exists)`,
    })),
    {
      kind: "apply",
      object: cluster,
      description: `apply CNPG Cluster ${namespace}/${name} (${managed.instances} instance(s), ${managed.storage.size})`,
    },
    ...databases.map<PlanStep>((d) => ({
      kind: "apply",
      object: d,
      description: `apply CNPG Database ${namespace}/${d.metadata.name}`,
    })),
  ];
  const current = observation.objects.get(objectKey({ kind: "Cluster", name, namespace }));
  const ready = cnpgClusterReady(current?.status as CnpgClusterStatus | undefined);
  const phase = (current?.status as CnpgClusterStatus | undefined)?.phase;
  return {
    steps,
    objects: [credentials, ...roleSecrets, cluster, ...databases],
    host: readWriteHost(name, namespace),
    port: POSTGRES_PORT,
    credentialsSecret: { name: credentialsName, namespace },
    provenance: "owned",
    events: rotated.map(({ secret, role, field }) => ({
      type: "Warning",
      reason: "CredentialsRotated",
      message: `Secret ${namespace}/${secret.metadata.name} was deleted and is re-created with a new generated password for role ${role}, which CNPG sets in the database from that Secret (${field} of CNPG Cluster ${namespace}/${name}): the old password stops working, every consumer must pick up the new one from the Secret`,
    })),
    datastore: ready
      ? { ok: true, reason: "ClusterReady", message: `CNPG Cluster ${namespace}/${name} is Ready` }
      : {
          ok: false,
          reason: "Provisioning",
          message: `waiting for CNPG Cluster ${namespace}/${name} to be Ready${phase ? ` (phase: ${phase})` : ""}`,
        },
  };
}

function desiredAdopted(resource: PostgresCluster, observation: PostgresObservation): Desired {
  const { namespace } = resource.metadata;
  const adopt = resource.spec.adopt;
  if (!adopt) throw new Error("unreachable: mode adopt without spec.adopt passed validation");
  const targetNamespace = refNamespace(adopt.clusterRef, namespace);
  const target = `${targetNamespace}/${adopt.clusterRef.name}`;
  const secretRef = `${refNamespace(adopt.credentialsSecretRef, namespace)}/${adopt.credentialsSecretRef.name}`;
  const missing = (reason: string, message: string): Desired => notReady("adopted", reason, message);
  if (!observation.adoptTarget) {
    return missing(
      "AdoptTargetMissing",
      `CNPG Cluster ${target} (spec.adopt.clusterRef) does not exist: create it or correct the reference`,
    );
  }
  const credentials = observation.adoptCredentials;
  if (!credentials?.username || !credentials.password) {
    return missing(
      "CredentialsMissing",
      `Secret ${secretRef} (spec.adopt.credentialsSecretRef) is missing or lacks keys username and password: point the reference at the Secret that holds them`,
    );
  }
  const copy: KubeObject = {
    apiVersion: "v1",
    kind: "Secret",
    type: "kubernetes.io/basic-auth",
    metadata: {
      name: adoptedCredentialsName(resource),
      namespace,
      labels: labelsFor(resource),
      ownerReferences: [ownerReference(resource)],
    },
    stringData: { username: credentials.username, password: credentials.password },
  };
  // CNPG resolves Database.spec.cluster in the Database's own namespace: they live beside the adopted cluster.
  const databases = resource.spec.databases.map((d) =>
    cnpgDatabase(
      resource,
      adopt.clusterRef.name,
      targetNamespace,
      d.name,
      d.owner ?? credentials.username ?? CNPG_APP_OWNER,
    ),
  );
  const ready = cnpgClusterReady(observation.adoptTarget.status as CnpgClusterStatus | undefined);
  return {
    steps: [
      {
        kind: "apply",
        object: copy,
        description: `copy the credentials of ${secretRef} into Secret ${namespace}/${copy.metadata.name}`,
      },
      ...databases.map<PlanStep>((d) => ({
        kind: "apply",
        object: d,
        description: `apply CNPG Database ${targetNamespace}/${d.metadata.name} beside the adopted cluster`,
      })),
    ],
    objects: [copy, ...databases],
    host: readWriteHost(adopt.clusterRef.name, targetNamespace),
    port: POSTGRES_PORT,
    credentialsSecret: { name: copy.metadata.name, namespace },
    provenance: "adopted",
    datastore: ready
      ? { ok: true, reason: "AdoptedClusterReady", message: `adopted CNPG Cluster ${target} is Ready` }
      : {
          ok: false,
          reason: "AdoptedClusterNotReady",
          message: `waiting for the adopted CNPG Cluster ${target} to be Ready`,
        },
  };
}

function desiredExternal(resource: PostgresCluster, observation: PostgresObservation): Desired {
  const ref = resource.spec.external?.connectionSecretRef;
  if (!ref) throw new Error("unreachable: mode external without spec.external passed validation");
  const { namespace } = resource.metadata;
  const where = `${refNamespace(ref, namespace)}/${ref.name}`;
  if (refNamespace(ref, namespace) !== namespace) {
    return notReady(
      "external",
      "CrossNamespaceSecret",
      `spec.external.connectionSecretRef must name a Secret in ${namespace}, got ${where}: copy the Secret here`,
    );
  }
  const credentials = observation.externalCredentials;
  const lacking = ["host", "username", "password"].filter((k) => !credentials?.[k as keyof Credentials]);
  if (!credentials || lacking.length > 0) {
    return notReady(
      "external",
      "ConnectionSecretInvalid",
      credentials
        ? `Secret ${where} lacks keys ${lacking.join(", ")}: add them (host, port, username, password)`
        : `Secret ${where} (spec.external.connectionSecretRef) does not exist: create it with keys host, port, username and password`,
    );
  }
  return {
    steps: [],
    objects: [],
    host: credentials.host ?? "",
    port: Number.parseInt(credentials.port ?? String(POSTGRES_PORT), 10),
    credentialsSecret: { name: ref.name, namespace },
    provenance: "external",
    datastore: { ok: true, reason: "ExternalConnectionWired", message: `connection Secret ${where} wired` },
  };
}

function desiredState(resource: PostgresCluster, observation: PostgresObservation): Desired {
  if (resource.metadata.deletionTimestamp) return notReady(undefined, "Deleting", "deleting");
  if (resource.spec.type !== "cnpg") {
    return notReady(
      undefined,
      "NotImplemented",
      `spec.type ${resource.spec.type} is not implemented yet; use type: cnpg (CloudNativePG)`,
    );
  }
  if (resource.spec.mode === "managed") return desiredManaged(resource, observation);
  if (resource.spec.mode === "adopt") return desiredAdopted(resource, observation);
  return desiredExternal(resource, observation);
}

function isCnpgCluster(object: { readonly apiVersion: string; readonly kind: string }): boolean {
  return object.kind === "Cluster" && object.apiVersion === CNPG_API_VERSION;
}

/** An object emitted before and not desired now, as it is in the cluster. */
interface Orphan {
  readonly emitted: EmittedObject;
  readonly current: KubeObject;
}

const objectLabel = ({ emitted }: Orphan) => `${emitted.kind} ${emitted.namespace}/${emitted.name}`;
const where = ({ emitted }: Orphan) => `${emitted.namespace}/${emitted.name}`;

/** Emitted before, not desired now, still there and still ours (carrying our owned-by label). */
function ownOrphans(resource: PostgresCluster, desired: Desired, observation: PostgresObservation): Orphan[] {
  const wanted = new Set(
    desired.objects.map((o) =>
      objectKey({ kind: o.kind, name: o.metadata.name, namespace: o.metadata.namespace ?? "" }),
    ),
  );
  return (resource.status?.emitted ?? []).flatMap<Orphan>((emitted) => {
    const key = objectKey(emitted);
    const current = wanted.has(key) ? undefined : observation.objects.get(key);
    const ours = current?.metadata.labels?.[OWNED_BY_LABEL] === ownedByValue(resource);
    return current && ours ? [{ emitted, current }] : [];
  });
}

function retainedCluster({ emitted, current }: Orphan): boolean {
  return (
    isCnpgCluster(emitted) && (current.metadata.annotations?.[DELETION_POLICY_ANNOTATION] ?? "Retain") !== "Delete"
  );
}

/**
 * What is kept with a retained CNPG Cluster: the Secrets its spec takes passwords from (without them the
 * retained data has no usable password) and the CNPG Database objects that describe its databases
 * (deleting one never drops its database under CNPG's default reclaim policy `retain`, but they are the
 * user's record of them now). docs/adr/0014-credentials-on-deletion-and-drift.md.
 */
function keptWith(cluster: Orphan, orphans: readonly Orphan[]): Orphan[] {
  const secrets = new Set(clusterPasswordSecrets(cluster.current.spec));
  return orphans.filter(
    ({ emitted, current }) =>
      emitted.namespace === cluster.emitted.namespace &&
      ((emitted.apiVersion === "v1" && emitted.kind === "Secret" && secrets.has(emitted.name)) ||
        (emitted.apiVersion === CNPG_API_VERSION &&
          emitted.kind === "Database" &&
          databaseCluster(current.spec) === cluster.emitted.name)),
  );
}

/** Keeping a CNPG Cluster under Retain, with what is kept with it: one step, one Event that names them all. */
function retention(cluster: Orphan, kept: readonly Orphan[], why: string): { step: PlanStep; event: PlannedEvent } {
  const secrets = kept.filter((o) => o.emitted.kind === "Secret").map(where);
  const databases = kept.filter((o) => o.emitted.kind === "Database").map(where);
  const alongside = [
    ...(secrets.length > 0 ? [`its credentials Secret(s) ${secrets.join(", ")} (passwords unchanged)`] : []),
    ...(databases.length > 0 ? [`its Database object(s) ${databases.join(", ")}`] : []),
  ];
  const label = objectLabel(cluster);
  const released =
    alongside.length > 0
      ? `, with ${alongside.join(" and ")}; they are released to you and no longer managed: dump its data and delete them yourself when safe`
      : "; it is released to you and no longer managed: dump its data and delete it yourself when safe";
  return {
    step: {
      kind: "retain",
      target: cluster.emitted,
      patch: releaseMarks(cluster.current),
      description: `keep CNPG ${label}, which may hold data (deletionPolicy Retain): released to you, no longer managed`,
    },
    event: {
      type: "Warning",
      reason: "DatastoreRetained",
      message: `CNPG ${label} may hold data and was kept (deletionPolicy Retain) ${why}${released}`,
    },
  };
}

function deletion(orphan: Orphan, why: string): { step: PlanStep; event: PlannedEvent } {
  const label = objectLabel(orphan);
  return {
    step: { kind: "delete", target: orphan.emitted, description: `delete ${label} ${why}` },
    event: isCnpgCluster(orphan.emitted)
      ? {
          type: "Warning",
          reason: "DatastoreDeleted",
          message: `deleting CNPG ${label} ${why} (deletionPolicy Delete): its data is lost unless you dumped it`,
        }
      : { type: "Normal", reason: "GarbageCollected", message: `deleting ${label}, no longer needed ${why}` },
  };
}

/**
 * Garbage collection: emitted before, not desired now → delete; but a CNPG Cluster under Retain is kept
 * with its credentials Secrets and Database objects, every mark of the product removed from each
 * (released), with one Warning Event that names them all. The Events of the desired state (a credentials
 * Secret re-created) come first: they too are this pass's reports about the datastore's objects.
 */
function collectOrphans(
  resource: PostgresCluster,
  desired: Desired,
  observation: PostgresObservation,
  why: string,
): { steps: PlanStep[]; events: PlannedEvent[] } {
  const orphans = ownOrphans(resource, desired, observation);
  const retained = orphans.filter(retainedCluster);
  const keptBy = new Map(retained.flatMap((c) => keptWith(c, orphans).map((o) => [o, c] as const)));
  const steps: PlanStep[] = [];
  const events: PlannedEvent[] = [...(desired.events ?? [])];
  for (const orphan of orphans) {
    const cluster = keptBy.get(orphan);
    if (cluster) {
      const what = orphan.emitted.kind === "Secret" ? "its password unchanged" : "its database stays in PostgreSQL";
      steps.push({
        kind: "retain",
        target: orphan.emitted,
        patch: releaseMarks(orphan.current),
        description: `keep ${objectLabel(orphan)} with retained CNPG Cluster ${where(cluster)} (${what}): released to you, no longer managed`,
      });
      continue;
    }
    const { step, event } = retained.includes(orphan)
      ? retention(orphan, keptWith(orphan, orphans), why)
      : deletion(orphan, why);
    steps.push(step);
    events.push(event);
  }
  return { steps, events };
}

function releases(
  resource: PostgresCluster,
  observation: PostgresObservation,
  previouslyNeeded: readonly string[],
  neededNow: readonly string[],
): PlanStep[] {
  const self = resourceKey(resource);
  const steps: PlanStep[] = [];
  // Dependants before their prerequisites: cloudnative-pg before cert-manager.
  for (const capability of [...previouslyNeeded].reverse()) {
    if (neededNow.includes(capability)) continue;
    const consumers = observation.consumers
      .filter((c) => c.key !== self && c.needs.includes(capability))
      .map((c) => c.key);
    steps.push({
      kind: "release-capability",
      capability,
      consumers,
      description:
        consumers.length > 0
          ? `keep ${capability}: still needed by ${consumers.join(", ")}`
          : `release ${capability}: no consumer left (uninstalled only if owned)`,
    });
  }
  return steps;
}

function capabilityStatuses(
  decisions: readonly CapabilityDecision[],
  releaseOf: (name: string) => { name: string; namespace: string },
): CapabilityStatus[] {
  return decisions
    .filter((d) => d.state !== "Absent")
    .map((d) => ({
      name: d.capability,
      provenance: d.state === "Owned" ? "owned" : "adopted",
      ...(d.chartVersion ? { chartVersion: d.chartVersion } : {}),
      ...(d.state === "Owned" || d.evidence.startsWith("release") ? { release: releaseOf(d.capability) } : {}),
      evidence: d.evidence,
    }));
}

export interface PlanContext {
  /** `name` and its prerequisites, prerequisites first (from the catalog). */
  readonly withPrerequisites: (name: string) => string[];
  /** The fixed release of a capability (from the catalog). */
  readonly releaseOf: (name: string) => { name: string; namespace: string };
  /** The namespaces an operator started with --watch-namespaces serves; undefined: every namespace. */
  readonly watchNamespaces?: readonly string[];
}

/**
 * References that leave the namespaces the operator serves (SPEC 3.4: with --watch-namespaces, every
 * namespace adopted from must be included), as `field "namespace"` phrases; empty when none does.
 */
function unwatchedReferences(resource: PostgresCluster, watched: readonly string[] | undefined): string[] {
  const adopt = resource.spec.mode === "adopt" ? resource.spec.adopt : undefined;
  if (!watched || !adopt) return [];
  const { namespace } = resource.metadata;
  const references = [
    { field: "spec.adopt.clusterRef.namespace", namespace: refNamespace(adopt.clusterRef, namespace) },
    {
      field: "spec.adopt.credentialsSecretRef.namespace",
      namespace: refNamespace(adopt.credentialsSecretRef, namespace),
    },
  ];
  return references.filter((r) => !watched.includes(r.namespace)).map((r) => `${r.field} "${r.namespace}"`);
}

/** A PostgresCluster adopting from a namespace the operator does not serve: nothing is done, and it says why. */
function outOfScopePlan(
  resource: PostgresCluster,
  outside: readonly string[],
  watched: readonly string[],
): PostgresPlan {
  const message = `${outside.join(" and ")} ${outside.length > 1 ? "are" : "is"} outside the namespaces this operator serves (--watch-namespaces ${watched.join(",")}); nothing was done. Add ${outside.length > 1 ? "them" : "it"} to --watch-namespaces, or adopt from a served namespace`;
  const reason = "NamespaceNotWatched";
  const conditions = [
    condition(resource, READY, false, reason, message),
    condition(resource, DATASTORE_READY, false, reason, message),
  ];
  return {
    steps: [],
    conditions,
    events: reportedBefore(resource.status?.conditions, READY, reason) ? [] : [{ type: "Warning", reason, message }],
    status: {
      observedGeneration: resource.metadata.generation ?? 0,
      conditions,
      // Kept, so that a mode change made meanwhile is still garbage-collected from the right state.
      ...(resource.status?.mode ? { mode: resource.status.mode } : {}),
      ...(resource.status?.type ? { type: resource.status.type } : {}),
      capabilities: resource.status?.capabilities ?? [],
      emitted: resource.status?.emitted ?? [],
    },
    requeue: false,
  };
}

function operatorsCondition(
  resource: PostgresCluster,
  neededNow: readonly string[],
  decisions: readonly CapabilityDecision[],
): Condition {
  if (neededNow.length === 0) {
    return condition(resource, OPERATORS_READY, true, "NotRequired", "no capability operator is needed in this mode");
  }
  const pending = decisions.filter((d) => !d.ready);
  if (pending.length === 0) {
    return condition(
      resource,
      OPERATORS_READY,
      true,
      "Ready",
      decisions.map((d) => `${d.capability} ${d.state.toLowerCase()}, Ready`).join("; "),
    );
  }
  const installing = pending.some((d) => d.action !== "none");
  const message = pending
    .map((d) => `${d.capability}: ${d.action !== "none" ? d.summary : `waiting for ${d.waitingFor.join(", ")}`}`)
    .join("; ");
  return condition(resource, OPERATORS_READY, false, installing ? "Installing" : "WaitingForOperators", message);
}

/** Why orphans are being collected, for Events and step descriptions. */
function changeReason(
  resource: PostgresCluster,
  previousMode: string | undefined,
  previousType: string | undefined,
): string {
  if (resource.metadata.deletionTimestamp)
    return `(PostgresCluster ${resource.metadata.namespace}/${resource.metadata.name} deleted)`;
  if (previousMode && (previousMode !== resource.spec.mode || previousType !== resource.spec.type)) {
    return `(mode/type changed from ${previousMode}/${previousType} to ${resource.spec.mode}/${resource.spec.type})`;
  }
  return "(no longer in the spec)";
}

/** What stays recorded as emitted: the desired objects, plus orphans not removed this pass (retried next pass). */
function emittedAfter(
  resource: PostgresCluster,
  desired: Desired,
  steps: readonly PlanStep[],
  observation: PostgresObservation,
): EmittedObject[] {
  const removed = new Set(
    steps.flatMap((s) => (s.kind === "delete" || s.kind === "retain" ? [objectKey(s.target)] : [])),
  );
  const leftover = (resource.status?.emitted ?? []).filter(
    (e) => !removed.has(objectKey(e)) && observation.objects.has(objectKey(e)),
  );
  const seen = new Set<string>();
  return [...desired.objects.map(emittedOf), ...leftover].filter((e) => {
    const key = objectKey(e);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function readyCondition(resource: PostgresCluster, operators: Condition, desired: Desired): Condition {
  if (operators.status !== "True") return condition(resource, READY, false, operators.reason, operators.message);
  if (!desired.datastore.ok) {
    return condition(resource, READY, false, desired.datastore.reason, desired.datastore.message);
  }
  return condition(resource, READY, true, "Ready", `PostgreSQL reachable at ${desired.host}:${desired.port}`);
}

/**
 * The phase condition a failed step is reported on: OperatorsReady for a capability's install or
 * release, DatastoreReady for what is applied, created, deleted or released of the datastore; the
 * finalizer's removal belongs to no phase (Ready alone).
 */
export function failurePhase(step: PlanStep): string {
  switch (step.kind) {
    case "ensure-capability":
    case "release-capability":
      return OPERATORS_READY;
    case "remove-finalizer":
      return READY;
    default:
      return DATASTORE_READY;
  }
}

/**
 * The plan of a pass whose `step` failed, as it is reported: the step's phase condition and Ready False
 * with the failure's reason and message, everything else as planned, and one Warning Event unless the
 * resource already reports this very failure (a retry is not a new cause).
 */
export function failedPlan(
  resource: PostgresCluster,
  plan: PostgresPlan,
  step: PlanStep,
  failure: ReportedFailure & { readonly fingerprint: string },
): PostgresPlan {
  return withFailure(resource, plan, failurePhase(step), failure);
}

function buildStatus(
  resource: PostgresCluster,
  observation: PostgresObservation,
  context: PlanContext,
  parts: {
    readonly conditions: Condition[];
    readonly mode: PostgresCluster["spec"]["mode"];
    readonly type: PostgresCluster["spec"]["type"];
    readonly desired: Desired;
    readonly steps: readonly PlanStep[];
  },
): PostgresClusterStatus {
  const { desired } = parts;
  return {
    observedGeneration: resource.metadata.generation ?? 0,
    conditions: parts.conditions,
    // The mode is recorded only once reached, so that a change is garbage-collected from the right state.
    mode: parts.mode,
    type: parts.type,
    ...(desired.provenance ? { provenance: desired.provenance } : {}),
    ...(desired.host ? { host: desired.host } : {}),
    ...(desired.port ? { port: desired.port } : {}),
    ...(desired.credentialsSecret ? { credentialsSecret: desired.credentialsSecret } : {}),
    capabilities: capabilityStatuses(observation.capabilities, context.releaseOf),
    emitted: emittedAfter(resource, desired, parts.steps, observation),
  };
}

const ALLOWED = { allowed: true } as const;

/** The instance this resource is, for the cap: admitted once a pass ran with its Licensed condition True. */
export function instanceOf(resource: PostgresCluster, now: string): Instance {
  return {
    namespace: resource.metadata.namespace,
    name: resource.metadata.name,
    creationTimestamp: resource.metadata.creationTimestamp ?? now,
    admitted: resource.status?.conditions.some((c) => c.type === LICENSED && c.status === "True") ?? false,
  };
}

/** A new PostgresCluster beyond the licence's cap: nothing is done for it, and it says so. */
function refusedPlan(resource: PostgresCluster, refusal: LicenceRefusal): PostgresPlan {
  const conditions = [
    condition(resource, READY, false, refusal.reason, refusal.message),
    condition(resource, LICENSED, false, refusal.reason, refusal.message),
  ];
  const status: PostgresClusterStatus = {
    observedGeneration: resource.metadata.generation ?? 0,
    conditions,
    capabilities: [],
    emitted: resource.status?.emitted ?? [],
  };
  return {
    steps: [],
    conditions,
    events: !reportedBefore(resource.status?.conditions, LICENSED, refusal.reason)
      ? [{ type: "Warning", reason: refusal.reason, message: refusal.message }]
      : [],
    status,
    // Room for it is looked for again at the next resync, or when the licence changes.
    requeue: false,
    refusal,
  };
}

/** A PostgresCluster as the `from` of a ReferenceGrant names it. */
export function postgresReferrer(namespace: string): Referrer {
  return { group: API_GROUP, kind: POSTGRES_CLUSTER_KIND, namespace };
}

/**
 * Every reference of a PostgresCluster that a ReferenceGrant can open, resolved against its namespace:
 * in adopt mode the CNPG Cluster and the credentials Secret. (External mode's connection Secret must be
 * in the resource's own namespace, grant or not: desiredExternal refuses any other.)
 */
export function postgresReferences(namespace: string, spec: PostgresClusterSpec): Reference[] {
  const adopt = spec.mode === "adopt" ? spec.adopt : undefined;
  if (!adopt) return [];
  return [
    {
      field: "spec.adopt.clusterRef",
      group: CNPG_GROUP,
      kind: "Cluster",
      name: adopt.clusterRef.name,
      namespace: refNamespace(adopt.clusterRef, namespace),
    },
    {
      field: "spec.adopt.credentialsSecretRef",
      group: "",
      kind: "Secret",
      name: adopt.credentialsSecretRef.name,
      namespace: refNamespace(adopt.credentialsSecretRef, namespace),
    },
  ];
}

/** The name of the Secret an adopting PostgresCluster copies the referenced credentials into. */
export function adoptedCredentialsName(resource: PostgresCluster): string {
  return `${resource.metadata.name}-adopted-credentials`;
}

/**
 * A PostgresCluster whose references into another namespace are not granted: nothing is read, copied or
 * created for it, and the condition says which grant to create. When a grant it relied on was removed,
 * access is revoked as Gateway API requires: the credentials copied under it are deleted, so the password
 * no longer sits in this namespace. The adopted cluster is never touched, and the Databases created beside
 * it stay (deleting them acts on the other namespace; they are collected with the PostgresCluster).
 */
function notPermittedPlan(
  resource: PostgresCluster,
  observation: PostgresObservation,
  ungranted: readonly Reference[],
): PostgresPlan {
  const { namespace } = resource.metadata;
  const message = referenceNotPermittedMessage(postgresReferrer(namespace), ungranted);
  const conditions = [
    condition(resource, READY, false, REFERENCE_NOT_PERMITTED, message),
    condition(resource, DATASTORE_READY, false, REFERENCE_NOT_PERMITTED, message),
  ];
  const events: PlannedEvent[] = reportedBefore(resource.status?.conditions, READY, REFERENCE_NOT_PERMITTED)
    ? []
    : [{ type: "Warning", reason: REFERENCE_NOT_PERMITTED, message }];
  const revoked = (resource.status?.emitted ?? []).filter((emitted) => {
    if (emitted.kind !== "Secret" || emitted.namespace !== namespace) return false;
    if (emitted.name !== adoptedCredentialsName(resource)) return false;
    const current = observation.objects.get(objectKey(emitted));
    return current?.metadata.labels?.[OWNED_BY_LABEL] === ownedByValue(resource);
  });
  const steps = revoked.map<PlanStep>((target) => ({
    kind: "delete",
    target,
    description: `delete Secret ${target.namespace}/${target.name}: the credentials it copied are no longer granted`,
  }));
  for (const target of revoked) {
    events.push({
      type: "Normal",
      reason: "GarbageCollected",
      message: `deleting Secret ${target.namespace}/${target.name}: the grant that allowed copying the credentials is gone`,
    });
  }
  const removed = new Set(revoked.map(objectKey));
  return {
    steps,
    conditions,
    events,
    status: {
      observedGeneration: resource.metadata.generation ?? 0,
      conditions,
      // Kept, so that a mode change made meanwhile is still garbage-collected from the right state.
      ...(resource.status?.mode ? { mode: resource.status.mode } : {}),
      ...(resource.status?.type ? { type: resource.status.type } : {}),
      capabilities: resource.status?.capabilities ?? [],
      emitted: (resource.status?.emitted ?? []).filter((e) => !removed.has(objectKey(e))),
    },
    // A grant created or removed re-queues the resource (the operator watches ReferenceGrants).
    requeue: false,
  };
}

/**
 * What stops a PostgresCluster before anything is done for it: the licence first (a new instance beyond
 * the cap gets nothing, not even its operators), then the operator's namespace scope, then the grants of
 * the namespaces its references point into. Never a deletion.
 */
function heldBack(
  resource: PostgresCluster,
  observation: PostgresObservation,
  context: PlanContext,
): PostgresPlan | undefined {
  const self = observation.licence.instances.find(
    (i) => i.namespace === resource.metadata.namespace && i.name === resource.metadata.name,
  );
  const licence = self
    ? enforceCap(observation.licence.entitlements, "PostgresCluster", observation.licence.instances, self)
    : ALLOWED;
  if (!licence.allowed) return refusedPlan(resource, licence);
  const outside = unwatchedReferences(resource, context.watchNamespaces);
  if (outside.length > 0) return outOfScopePlan(resource, outside, context.watchNamespaces ?? []);
  const ungranted = ungrantedReferences(
    postgresReferrer(resource.metadata.namespace),
    postgresReferences(resource.metadata.namespace, resource.spec),
    observation.referenceGrants ?? [],
  );
  if (ungranted.length > 0) return notPermittedPlan(resource, observation, ungranted);
  return undefined;
}

/**
 * The one decision function for a PostgresCluster: from the resource and the observed cluster to the
 * ordered steps to take, the conditions and Events to report and the status to write. Pure: preview,
 * synth-time validation and the operator call it with the same inputs and get the same decisions.
 */
export function planPostgresCluster(
  resource: PostgresCluster,
  observation: PostgresObservation,
  context: PlanContext,
): PostgresPlan {
  const deleting = resource.metadata.deletionTimestamp !== undefined;
  const held = deleting ? undefined : heldBack(resource, observation, context);
  if (held) return held;
  const neededNow = neededCapabilities(resource, context.withPrerequisites);
  // A resource deleted before its first status write may still have had its operators installed.
  const previousMode = resource.status?.mode ?? (deleting ? resource.spec.mode : undefined);
  const previousType = resource.status?.type ?? (deleting ? resource.spec.type : undefined);
  const previouslyNeeded =
    previousMode === "managed" && previousType === "cnpg" ? context.withPrerequisites(CNPG_CAPABILITY) : [];

  const events: PlannedEvent[] = observation.capabilities
    .filter((d) => d.state === "Adopted")
    // Recorded when the adoption is first seen, not at every pass: the status remembers it after.
    .filter((d) => !resource.status?.capabilities.some((c) => c.name === d.capability && c.provenance === "adopted"))
    .map((d) => ({ type: "Normal", reason: "CapabilityAdopted", message: `${d.capability}: ${d.summary}` }));
  const operators = operatorsCondition(resource, neededNow, observation.capabilities);
  const operatorsOk = operators.status === "True";

  const steps: PlanStep[] = [];
  let desired: Desired;
  if (!operatorsOk) {
    // Phase 2 gates phase 3: nothing of the operator's kinds is applied before its CRDs and controller are Ready.
    const pending = observation.capabilities.find((d) => !d.ready);
    if (pending)
      steps.push({ kind: "ensure-capability", capability: pending.capability, description: pending.summary });
    desired = {
      steps: [],
      objects: [],
      datastore: { ok: false, reason: "WaitingForOperators", message: "waiting for capability operators" },
    };
  } else {
    desired = desiredState(resource, observation);
    const collected = collectOrphans(
      resource,
      desired,
      observation,
      changeReason(resource, previousMode, previousType),
    );
    steps.push(...desired.steps, ...collected.steps, ...releases(resource, observation, previouslyNeeded, neededNow));
    events.push(...collected.events);
  }
  if (deleting)
    steps.push({ kind: "remove-finalizer", description: "remove the finalizer: everything owned is released" });

  const datastore = condition(
    resource,
    DATASTORE_READY,
    desired.datastore.ok,
    desired.datastore.reason,
    desired.datastore.message,
  );
  const ready = readyCondition(resource, operators, desired);
  const edition =
    observation.licence.entitlements.edition === "Licensed"
      ? `licence ${observation.licence.entitlements.licenseId}`
      : "the Community edition";
  const licensed = condition(resource, LICENSED, true, "Admitted", `admitted under ${edition}`);
  const status = buildStatus(resource, observation, context, {
    conditions: [ready, operators, datastore, licensed],
    mode: operatorsOk ? resource.spec.mode : (previousMode ?? resource.spec.mode),
    type: operatorsOk ? resource.spec.type : (previousType ?? resource.spec.type),
    desired,
    steps,
  });
  return { steps, conditions: status.conditions, events, status, requeue: ready.status !== "True" && !deleting };
}
