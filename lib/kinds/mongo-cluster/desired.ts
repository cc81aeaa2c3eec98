import { refNamespace } from "../../api/refs.js";
import { CONNECTION_SECRET_KEYS } from "../../api/resource-status.js";
import { DELETION_POLICY_ANNOTATION } from "../../engine/garbage.js";
import { generateSecretStep, type KeyRule } from "../../engine/generated-secret.js";
import type { Desired } from "../../engine/kind-module.js";
import { type Credentials, type KubeObject, keyOf } from "../../engine/objects.js";
import { ownerReference } from "../../engine/ownership.js";
import type { DesiredStep } from "../../engine/steps.js";
import type { EngineView } from "../../engine/view.js";
import { adoptedCredentialsCopy } from "../datastore/adopted-credentials.js";
import { connectionUrl } from "../datastore/connection-url.js";
import { externalConnection } from "../datastore/external-connection.js";
import { claimsMade } from "./claims.js";
import {
  appliedUsers,
  communityReadiness,
  DATA_VOLUME,
  DATABASE_POD_RULES,
  DEFAULT_PASSWORD_KEY,
  LOGS_VOLUME,
  MONGODB_COMMUNITY,
  MONGODB_PORT,
  type MongoDBUser,
  mongodPort,
  REPLICA_SET,
  replicaSetHost,
  SCRAM,
} from "./mongodb-community-api.js";
import { type MongoCluster, type MongoClusterStatus, MongoManaged } from "./schema.js";

type MongoDesired = Desired<MongoClusterStatus>;

/** The user the product makes in a managed replica set for its owner: `root` on the `admin` database. */
export const ADMIN_USER = "admin";
const ADMIN_DATABASE = "admin";

/**
 * A generated password: 24 random bytes, as base64url (no character a mongodb:// URI must escape). Made
 * once into its Secret, never kept anywhere else; a deleted Secret comes back with a new one, reported as
 * a rotation (docs/adr/0014-credentials-on-deletion-and-drift.md).
 */
const PASSWORD: KeyRule = { length: 32, alphabet: "base64url" };

/** The name of a managed MongoCluster's admin credentials Secret (keys username, password). */
export function credentialsName(resource: MongoCluster): string {
  return `${resource.metadata.name}-credentials`;
}

/**
 * The service account, Role and RoleBinding its pods run as: the operator runs them as
 * `mongodb-kubernetes-appdb`, which its chart makes only in the namespaces it watches by name — with every
 * namespace watched (`*`), in its own alone; each managed MongoCluster brings its own.
 */
export function podServiceAccountName(resource: MongoCluster): string {
  return `${resource.metadata.name}-database`;
}

function notReady(provenance: MongoClusterStatus["provenance"], reason: string, message: string): MongoDesired {
  return { steps: [], ...(provenance ? { status: { provenance } } : {}), verdict: { ok: false, reason, message } };
}

function wired(
  provenance: NonNullable<MongoClusterStatus["provenance"]>,
  host: string,
  port: number,
  secret: { name: string; namespace: string },
  database?: string,
): Pick<MongoDesired, "status" | "readyMessage"> {
  return {
    status: {
      provenance,
      connection: {
        host,
        port,
        credentialsSecret: secret,
        ...(database ? { database } : {}),
        url: connectionUrl("mongodb", host, port),
      },
    },
    readyMessage: `MongoDB reachable at ${host}:${port}`,
  };
}

/** Objects a managed MongoCluster makes beside its MongoDBCommunity: owned by it under Delete only, as the replica set. */
function besideMetadata(resource: MongoCluster, managed: MongoManaged, name: string) {
  return {
    name,
    namespace: resource.metadata.namespace,
    // Under Retain no owner reference, as on the MongoDBCommunity: the garbage collector would delete what
    // kept data needs (its passwords, its pods' service account) before the finalizer could release it.
    ...(managed.deletionPolicy === "Delete" ? { ownerReferences: [ownerReference(resource)] } : {}),
  };
}

function podIdentity(resource: MongoCluster, managed: MongoManaged): KubeObject[] {
  const name = podServiceAccountName(resource);
  const metadata = besideMetadata(resource, managed, name);
  return [
    { apiVersion: "v1", kind: "ServiceAccount", metadata },
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "Role",
      metadata,
      rules: DATABASE_POD_RULES.map((r) => ({
        apiGroups: [...r.apiGroups],
        resources: [...r.resources],
        verbs: [...r.verbs],
      })),
    } as KubeObject,
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "RoleBinding",
      metadata,
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name },
      subjects: [{ kind: "ServiceAccount", name, namespace: resource.metadata.namespace }],
    } as KubeObject,
  ];
}

/** The MongoDBCommunity a managed MongoCluster is: a SCRAM-only replica set of the admin user and the claims' users. */
function community(resource: MongoCluster, managed: MongoManaged, users: readonly MongoDBUser[]): KubeObject {
  const { name, namespace } = resource.metadata;
  const { storageClass } = managed.storage;
  return {
    apiVersion: MONGODB_COMMUNITY.apiVersion,
    kind: MONGODB_COMMUNITY.kind,
    metadata: { name, namespace, annotations: { [DELETION_POLICY_ANNOTATION]: managed.deletionPolicy } },
    spec: {
      type: REPLICA_SET,
      members: managed.members,
      version: managed.version,
      security: {
        // The users are the spec's alone: the agent removes a user no longer listed (a claim that went),
        // where the CRD's default (true) would leave it able to log in.
        authentication: { modes: [SCRAM], ignoreUnknownUsers: false },
      },
      users: users.map((u) => ({
        name: u.name,
        db: u.db,
        passwordSecretRef: { ...u.passwordSecretRef },
        roles: u.roles.map((r) => ({ ...r })),
        scramCredentialsSecretName: u.scramCredentialsSecretName,
        connectionStringSecretName: u.connectionStringSecretName,
      })),
      // Merged by the operator into the StatefulSet it builds (a volume claim template by its name, field by field).
      statefulSet: {
        spec: {
          template: { spec: { serviceAccountName: podServiceAccountName(resource) } },
          volumeClaimTemplates: [
            {
              metadata: { name: DATA_VOLUME },
              spec: {
                resources: { requests: { storage: managed.storage.size } },
                ...(storageClass ? { storageClassName: storageClass } : {}),
              },
            },
            ...(storageClass ? [{ metadata: { name: LOGS_VOLUME }, spec: { storageClassName: storageClass } }] : []),
          ],
        },
      },
    },
  };
}

function passwordStep(
  secret: KubeObject,
  username: string,
  replicaSet: string,
  why: { readonly made: string; readonly followedBy: string },
): DesiredStep {
  const { name, namespace } = secret.metadata;
  return generateSecretStep(
    secret,
    { [CONNECTION_SECRET_KEYS.username]: { fixed: username }, [DEFAULT_PASSWORD_KEY]: PASSWORD },
    {
      description: `create Secret ${namespace}/${name} with a generated password for user ${username}${why.made} (kept if it exists)`,
      rotation: `the MongoDB operator sets user ${username}'s password from that Secret (spec.users[].passwordSecretRef of MongoDBCommunity ${replicaSet}) at its next reconcile, which a change of the Secret triggers: the old password stops working, ${why.followedBy}`,
    },
  );
}

function desiredManaged(resource: MongoCluster, view: EngineView): MongoDesired {
  const { name, namespace } = resource.metadata;
  // Omitted: the schema's defaults, as if written out.
  const managed = resource.spec.managed ?? MongoManaged.parse({});
  const replicaSet = `${namespace}/${name}`;
  const secret = (secretName: string): KubeObject => ({
    apiVersion: "v1",
    kind: "Secret",
    type: "Opaque",
    metadata: besideMetadata(resource, managed, secretName),
  });
  const admin: MongoDBUser = {
    name: ADMIN_USER,
    db: ADMIN_DATABASE,
    passwordSecretRef: { name: credentialsName(resource), key: DEFAULT_PASSWORD_KEY },
    roles: [{ name: "root", db: ADMIN_DATABASE }],
    scramCredentialsSecretName: `${name}-admin`,
    connectionStringSecretName: `${name}-admin-connection`,
  };
  // Each claim of a consumer (lib/engine/claims.ts): a user and a database of its own.
  const claims = claimsMade(name, namespace, view.claims ?? []);
  const replicaSetObject = community(resource, managed, [admin, ...claims.map((c) => c.user)]);
  const identity = podIdentity(resource, managed);
  const steps: DesiredStep[] = [
    passwordStep(secret(credentialsName(resource)), ADMIN_USER, replicaSet, {
      made: "",
      followedBy: "every consumer must pick up the new one from the Secret",
    }),
    ...claims.map((c) =>
      passwordStep(secret(c.secret), c.identifier, replicaSet, {
        made: `, claimed by ${c.claim.claimant}`,
        followedBy: `${c.claim.claimant} picks up the new one`,
      }),
    ),
    ...identity.map<DesiredStep>((object) => ({
      kind: "apply",
      object,
      description: `apply ${object.kind} ${namespace}/${object.metadata.name} (the identity its MongoDB pods run as)`,
    })),
    {
      kind: "apply",
      object: replicaSetObject,
      description: `apply MongoDBCommunity ${replicaSet} (MongoDB ${managed.version}, ${managed.members} member(s), ${managed.storage.size} each, ${claims.length} claim(s))`,
    },
  ];
  const live = view.objects.get(keyOf(replicaSetObject));
  const readiness = communityReadiness(live);
  // A claim is published once the operator has made its user: its claimant connects only then.
  const applied = appliedUsers(live?.metadata);
  const published = claims
    .filter((c) => applied.some((u) => u.name === c.user.name && u.db === c.user.db))
    .map((c) => c.published);
  const host = replicaSetHost(name, namespace);
  const connection = wired("owned", host, MONGODB_PORT, { name: credentialsName(resource), namespace });
  return {
    steps,
    ...connection,
    status: { ...connection.status, claims: published },
    verdict: readiness.ready
      ? { ok: true, reason: "MongoDBReady", message: `MongoDBCommunity ${replicaSet} is Ready: ${readiness.reason}` }
      : {
          ok: false,
          reason: "Provisioning",
          message: `waiting for MongoDBCommunity ${replicaSet}: ${readiness.reason}`,
        },
  };
}

function desiredAdopted(resource: MongoCluster, view: EngineView): MongoDesired {
  const { namespace } = resource.metadata;
  const adopt = resource.spec.adopt;
  if (!adopt) throw new Error("unreachable: mode adopt without spec.adopt passed validation");
  const targetNamespace = refNamespace(adopt.communityRef, namespace);
  const target = `MongoDBCommunity ${targetNamespace}/${adopt.communityRef.name}`;
  const secretRef = `${refNamespace(adopt.credentialsSecretRef, namespace)}/${adopt.credentialsSecretRef.name}`;
  const found = view.reads?.adoptTarget as KubeObject | undefined;
  if (!found) {
    return notReady(
      "adopted",
      "AdoptTargetMissing",
      `${target} (spec.adopt.communityRef) does not exist: create it or correct the reference`,
    );
  }
  const passwordKey = adopt.credentialsSecretRef.key ?? DEFAULT_PASSWORD_KEY;
  const credentials = view.reads?.adoptCredentials as Credentials | undefined;
  const username = credentials?.[CONNECTION_SECRET_KEYS.username];
  const password = credentials?.[passwordKey];
  if (!username || !password) {
    return notReady(
      "adopted",
      "CredentialsMissing",
      `Secret ${secretRef} (spec.adopt.credentialsSecretRef) is missing or lacks keys username and ${passwordKey}: point the reference at the Secret that holds them`,
    );
  }
  const copy = adoptedCredentialsCopy(resource, {
    from: secretRef,
    what: "credentials",
    stringData: { [CONNECTION_SECRET_KEYS.username]: username, [CONNECTION_SECRET_KEYS.password]: password },
  });
  // The Service and port the operator derives from the adopted spec, in the adopted one's namespace.
  const host = replicaSetHost(adopt.communityRef.name, targetNamespace, found.spec);
  const port = mongodPort(found.spec);
  const readiness = communityReadiness(found);
  return {
    steps: [copy.step],
    ...wired("adopted", host, port, copy.secret),
    verdict: readiness.ready
      ? { ok: true, reason: "AdoptedMongoDBReady", message: `adopted ${target} is Ready: ${readiness.reason}` }
      : {
          ok: false,
          reason: "AdoptedMongoDBNotReady",
          message: `waiting for the adopted ${target}: ${readiness.reason}`,
        },
  };
}

function desiredExternal(resource: MongoCluster, view: EngineView): MongoDesired {
  const ref = resource.spec.external?.connectionSecretRef;
  if (!ref) throw new Error("unreachable: mode external without spec.external passed validation");
  const credentials = view.reads?.externalCredentials as Credentials | undefined;
  const connection = externalConnection(ref, resource.metadata.namespace, credentials, {
    keys: ["host", CONNECTION_SECRET_KEYS.username, CONNECTION_SECRET_KEYS.password],
    port: MONGODB_PORT,
  });
  if (!("host" in connection)) return { steps: [], status: { provenance: "external" }, verdict: connection.verdict };
  return {
    steps: [],
    ...wired("external", connection.host, connection.port, connection.secret, credentials?.database),
    readyMessage: connection.readyMessage,
    verdict: connection.verdict,
  };
}

/** What a MongoCluster wants in the cluster now, by mode. Pure. */
export function desiredMongoCluster(resource: MongoCluster, view: EngineView): MongoDesired {
  if (resource.spec.mode === "managed") return desiredManaged(resource, view);
  if (resource.spec.mode === "adopt") return desiredAdopted(resource, view);
  return desiredExternal(resource, view);
}
