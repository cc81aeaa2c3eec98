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
import { reachedModeAndType } from "../datastore/reached-mode.js";
import { datastoreSecretsDependencies, withDatastoreSecrets } from "../datastore/secrets-use.js";
import { SECRETS_MANAGEMENT_KIND } from "../secrets-management/schema.js";
import { isClaimSecretName } from "./claims.js";
import {
  CNPG_API_VERSION,
  CNPG_CLUSTER_TARGET,
  CNPG_CLUSTERS,
  CNPG_DATABASE_ROLES,
  CNPG_DATABASES,
  clusterPasswordSecrets,
  databaseCluster,
  POSTGRES_PORT,
} from "./cnpg.js";
import { desiredPostgresCluster } from "./desired.js";
import {
  POSTGRES_CLUSTER_DEFINITION,
  POSTGRES_TYPES,
  type PostgresAdopt,
  PostgresCluster,
  type PostgresClusterStatus,
  postgresClusterName,
} from "./schema.js";
import { postgresConnection } from "./status-connection.js";

/** The capability a PostgresCluster of type cnpg in managed mode needs (its prerequisites come with it). */
export const CNPG_CAPABILITY = "cloudnative-pg";

function rootNeeds(mode: string | undefined, type: string | undefined): string[] {
  return mode === "managed" && type === "cnpg" ? [CNPG_CAPABILITY] : [];
}

/** What an adopting PostgresCluster adopts: a CNPG Cluster (spec.adopt.clusterRef). */
const adoptTarget = (adopt: PostgresAdopt): AdoptTarget => ({
  field: "spec.adopt.clusterRef",
  group: CNPG_CLUSTER_TARGET.group,
  apiVersion: CNPG_API_VERSION,
  kind: CNPG_CLUSTER_TARGET.kinds[0],
  ref: adopt.clusterRef,
});

/** Its user and password as outputs, and its provenance. */
const CREDENTIALS_OUTPUTS = credentialsOutputs({
  username: "The user the credentials Secret names.",
  password: "The password, a secret in the Pulumi state.",
});

/**
 * PostgresCluster: a shared PostgreSQL on CloudNativePG, managed, adopted or external. Upstream facts
 * (CNPG's API, plurals, Services, labels) are in ./cnpg.ts, with their sources in docs/provenance.md.
 */
export const POSTGRES_CLUSTER_MODULE: KindModule<PostgresCluster, PostgresClusterStatus> = {
  definition: POSTGRES_CLUSTER_DEFINITION,
  schema: PostgresCluster,
  name: postgresClusterName,
  licence: {},
  types: POSTGRES_TYPES,
  phase: DATASTORE_READY,
  needs: (resource) => rootNeeds(resource.spec.mode, resource.spec.type),
  recordedNeeds: (resource) =>
    resource.status?.mode ? rootNeeds(resource.status.mode, resource.status.type) : undefined,
  emits: [
    {
      apiVersion: "v1",
      kind: "Secret",
      plural: "secrets",
      keptWith: {
        note: "its password unchanged",
        phrase: (names) => `its credentials Secret(s) ${names.join(", ")} (passwords unchanged)`,
      },
    },
    {
      apiVersion: CNPG_API_VERSION,
      kind: "Cluster",
      plural: CNPG_CLUSTERS,
      label: "CNPG Cluster",
      // Kept with a retained Cluster: the Secrets its spec takes passwords from and those of its claims'
      // roles (without them the retained data has no usable password), the Database objects describing its
      // databases and the DatabaseRole objects describing its claims' roles (deleting one never drops what
      // it describes under the reclaim policy `retain` a retained cluster's claims have, but they are the
      // user's record of them now). docs/adr/0014-credentials-on-deletion-and-drift.md.
      stateful: {
        keeps: (cluster, other) =>
          (other.apiVersion === "v1" &&
            other.kind === "Secret" &&
            (clusterPasswordSecrets(cluster.spec).includes(other.current.metadata.name) ||
              isClaimSecretName(cluster.metadata.name, other.current.metadata.name))) ||
          (other.apiVersion === CNPG_API_VERSION &&
            (other.kind === "Database" || other.kind === "DatabaseRole") &&
            databaseCluster(other.current.spec) === cluster.metadata.name),
      },
    },
    {
      apiVersion: CNPG_API_VERSION,
      kind: "Database",
      plural: CNPG_DATABASES,
      keptWith: {
        note: "its database stays in PostgreSQL",
        phrase: (names) => `its Database object(s) ${names.join(", ")}`,
      },
    },
    {
      apiVersion: CNPG_API_VERSION,
      kind: "DatabaseRole",
      plural: CNPG_DATABASE_ROLES,
      keptWith: {
        note: "its role stays in PostgreSQL",
        phrase: (names) => `its DatabaseRole object(s) ${names.join(", ")}`,
      },
    },
  ],
  observes: (resource) => adoptOrExternalReads(resource, adoptTarget),
  references: (resource) => adoptReferences(resource, adoptTarget),
  // A managed cluster makes its consumers' claims, an adopting one when spec.adopt.claims says so: a
  // database and a role each, beside the CNPG Cluster (./claims.ts).
  takesClaims: (resource) =>
    resource.spec.mode === "managed" || (resource.spec.mode === "adopt" && resource.spec.adopt?.claims !== undefined),
  referencesKinds: [SECRETS_MANAGEMENT_KIND],
  // Its adopt or external block's Secret, when a SecretsManagement provides it (secretsRef).
  dependsOn: datastoreSecretsDependencies,
  desired: (resource, view) => withDatastoreSecrets(resource, view, () => desiredPostgresCluster(resource, view)),
  reached: reachedModeAndType,
  changeReason: (resource) => {
    const { mode, type } = resource.status ?? {};
    if (mode && (mode !== resource.spec.mode || type !== resource.spec.type)) {
      return `(mode/type changed from ${mode}/${type} to ${resource.spec.mode}/${resource.spec.type})`;
    }
    return undefined;
  },
  copiedThroughReferences: (resource) => [adoptedCredentialsName(resource)],
  outputs: outputsProjection({
    schema: z.object({
      ...connectionOutputsShape("PostgresCluster", {
        host: "the read-write Service, the adopted one, or the external host",
        holds: "username and password",
      }),
      ...CREDENTIALS_OUTPUTS.shape,
      capabilities: z
        .array(
          z.object({
            name: z.string().describe("The capability (cert-manager, cloudnative-pg …)."),
            provenance: z.string().describe("Absent, Adopted or Owned, as detected before any action."),
            chartVersion: z.string().optional().describe("The chart version of its release, when it has one."),
          }),
        )
        .describe("The capabilities the PostgresCluster relies on."),
    }),
    secrets: ["password"],
    credentialsSecret: (status) => connectionCredentialsSecret(postgresConnection(status)),
    project: (status, namespace, credentials) => ({
      ...connectionOutputs(postgresConnection(status), namespace, POSTGRES_PORT),
      ...CREDENTIALS_OUTPUTS.project(status, credentials),
      capabilities: status.capabilities.map((c) => ({
        name: c.name,
        provenance: c.provenance,
        ...(c.chartVersion ? { chartVersion: c.chartVersion } : {}),
      })),
    }),
  }),
};
