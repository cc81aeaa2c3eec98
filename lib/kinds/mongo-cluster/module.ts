import * as z from "zod";
import { DATASTORE_READY } from "../../api/conditions.js";
import type { KindModule } from "../../engine/kind-module.js";
import { outputsProjection } from "../../engine/outputs.js";
import { adoptedCredentialsName } from "../datastore/adopted-credentials.js";
import { type AdoptTarget, adoptOrExternalReads, adoptReferences } from "../datastore/adopted-datastore.js";
import {
  connectionCredentialsSecret,
  connectionOutputs,
  connectionOutputsShape,
} from "../datastore/connection-outputs.js";
import { credentialsOutputs } from "../datastore/credentials-outputs.js";
import { modeChangeReason, reachedModeAndType } from "../datastore/reached-mode.js";
import { datastoreSecretsDependencies, withDatastoreSecrets } from "../datastore/secrets-use.js";
import { SECRETS_MANAGEMENT_KIND } from "../secrets-management/schema.js";
import { desiredMongoCluster } from "./desired.js";
import {
  MONGODB_COMMUNITY,
  MONGODB_COMMUNITY_GROUP,
  MONGODB_PORT,
  passwordSecrets,
  podServiceAccount,
} from "./mongodb-community-api.js";
import {
  MONGO_CLUSTER_DEFINITION,
  MONGO_TYPES,
  type MongoAdopt,
  MongoCluster,
  type MongoClusterStatus,
  mongoClusterName,
} from "./schema.js";

/** The capability a managed MongoCluster needs (lib/catalog/mongodb-kubernetes.ts). */
export const MONGODB_KUBERNETES_CAPABILITY = "mongodb-kubernetes";

const RBAC_API_VERSION = "rbac.authorization.k8s.io/v1";

/** What an adopting MongoCluster adopts: a MongoDBCommunity replica set (spec.adopt.communityRef). */
const adoptTarget = (adopt: MongoAdopt): AdoptTarget => ({
  field: "spec.adopt.communityRef",
  group: MONGODB_COMMUNITY_GROUP,
  apiVersion: MONGODB_COMMUNITY.apiVersion,
  kind: MONGODB_COMMUNITY.kind,
  ref: adopt.communityRef,
});

/**
 * Kept with a retained MongoDBCommunity: the Secrets its users' passwords come from (the operator re-reads
 * them at every reconcile) and the service account its pods run as, with its Role and RoleBinding.
 */
function keptWithReplicaSet(
  replicaSet: { readonly spec?: unknown },
  other: {
    readonly kind: string;
    readonly apiVersion: string;
    readonly current: { readonly metadata: { readonly name: string } };
  },
): boolean {
  const { name } = other.current.metadata;
  if (other.apiVersion === "v1" && other.kind === "Secret") return passwordSecrets(replicaSet.spec).includes(name);
  const account = podServiceAccount(replicaSet.spec);
  const identity =
    (other.apiVersion === "v1" && other.kind === "ServiceAccount") ||
    (other.apiVersion === RBAC_API_VERSION && (other.kind === "Role" || other.kind === "RoleBinding"));
  return identity && name === account;
}

/** How each part of the identity its pods run as is said when kept with the replica set. */
const podIdentity = (note: string, what: string) => ({
  note,
  phrase: (names: readonly string[]) => `${what} ${names.join(", ")}`,
});

/** Its user and password as outputs, and its provenance. */
const CREDENTIALS_OUTPUTS = credentialsOutputs({
  username: "The user the credentials Secret names.",
  password: "The password, a secret in the Pulumi state.",
});

/**
 * MongoCluster: a shared MongoDB on the MongoDB Controllers for Kubernetes (a MongoDBCommunity replica
 * set), managed — each consumer that claims one getting a database and a user of its own —, adopted or
 * external. Upstream facts: ./mongodb-community-api.ts, docs/mongodb.md.
 */
export const MONGO_CLUSTER_MODULE: KindModule<MongoCluster, MongoClusterStatus> = {
  definition: MONGO_CLUSTER_DEFINITION,
  schema: MongoCluster,
  name: mongoClusterName,
  licence: {},
  types: MONGO_TYPES,
  phase: DATASTORE_READY,
  needs: (resource) => (resource.spec.mode === "managed" ? [MONGODB_KUBERNETES_CAPABILITY] : []),
  emits: [
    {
      apiVersion: "v1",
      kind: "Secret",
      plural: "secrets",
      keptWith: {
        note: "its password unchanged",
        phrase: (names) => `its password Secret(s) ${names.join(", ")} (passwords unchanged)`,
      },
    },
    {
      apiVersion: "v1",
      kind: "ServiceAccount",
      plural: "serviceaccounts",
      keptWith: podIdentity("its MongoDB pods run as it", "the service account its pods run as"),
    },
    {
      apiVersion: RBAC_API_VERSION,
      kind: "Role",
      plural: "roles",
      keptWith: podIdentity("what its MongoDB pods may do", "its pods' Role"),
    },
    {
      apiVersion: RBAC_API_VERSION,
      kind: "RoleBinding",
      plural: "rolebindings",
      keptWith: podIdentity("grants its pods' Role", "its pods' RoleBinding"),
    },
    { ...MONGODB_COMMUNITY, stateful: { keeps: keptWithReplicaSet } },
  ],
  // Managed: the MongoDBCommunity it emits says whether it serves; the engine reads it with what it emitted.
  observes: (resource) => adoptOrExternalReads(resource, adoptTarget),
  references: (resource) => adoptReferences(resource, adoptTarget),
  // A managed replica set makes its consumers' claims: a user and a database each (./claims.ts). An adopted
  // one is never written to, an external one cannot be.
  takesClaims: (resource) => resource.spec.mode === "managed",
  referencesKinds: [SECRETS_MANAGEMENT_KIND],
  // Its adopt or external block's Secret, when a SecretsManagement provides it (secretsRef).
  dependsOn: datastoreSecretsDependencies,
  desired: (resource, view) => withDatastoreSecrets(resource, view, () => desiredMongoCluster(resource, view)),
  reached: reachedModeAndType,
  changeReason: modeChangeReason,
  copiedThroughReferences: (resource) => [adoptedCredentialsName(resource)],
  outputs: outputsProjection({
    schema: z.object({
      ...connectionOutputsShape("MongoCluster", {
        host: "the replica set's headless Service, the adopted one's, or the external host",
        holds: "username and password",
      }),
      ...CREDENTIALS_OUTPUTS.shape,
    }),
    secrets: ["password"],
    credentialsSecret: (status) => connectionCredentialsSecret(status.connection),
    project: (status, namespace, credentials) => ({
      ...connectionOutputs(status.connection, namespace, MONGODB_PORT),
      ...CREDENTIALS_OUTPUTS.project(status, credentials),
    }),
  }),
};
