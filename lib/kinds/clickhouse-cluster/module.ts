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
import {
  CLICKHOUSE_CLUSTER,
  CLICKHOUSE_GROUP,
  CLICKHOUSE_HTTP_PORT,
  CLICKHOUSE_NATIVE_PORT,
  KEEPER_CLUSTER,
} from "./clickhouse-operator-api.js";
import { desiredClickHouseCluster } from "./desired.js";
import {
  CLICKHOUSE_CLUSTER_DEFINITION,
  CLICKHOUSE_TYPES,
  type ClickHouseAdopt,
  ClickHouseCluster,
  type ClickHouseClusterStatus,
  clickhouseClusterName,
} from "./schema.js";

/** The capability a managed ClickHouseCluster needs (lib/catalog/clickhouse-operator.ts); cert-manager comes first. */
export const CLICKHOUSE_OPERATOR_CAPABILITY = "clickhouse-operator";

/** What an adopting ClickHouseCluster adopts: a ClickHouseCluster of the operator (spec.adopt.clusterRef). */
const adoptTarget = (adopt: ClickHouseAdopt): AdoptTarget => ({
  field: "spec.adopt.clusterRef",
  group: CLICKHOUSE_GROUP,
  apiVersion: CLICKHOUSE_CLUSTER.apiVersion,
  kind: CLICKHOUSE_CLUSTER.kind,
  ref: adopt.clusterRef,
});

/**
 * Kept with a retained ClickHouseCluster: the KeeperCluster it names (it cannot work without it), the
 * Secret its default user's password comes from, and the client Service of its name.
 */
function keptWithCluster(
  cluster: { readonly metadata: { readonly name: string }; readonly spec?: unknown },
  other: { readonly kind: string; readonly current: { readonly metadata: { readonly name: string } } },
): boolean {
  const spec = cluster.spec as
    | { keeperClusterRef?: { name?: string }; settings?: { defaultUserPassword?: { secret?: { name?: string } } } }
    | undefined;
  const name = other.current.metadata.name;
  switch (other.kind) {
    case KEEPER_CLUSTER.kind:
      return name === spec?.keeperClusterRef?.name;
    case "Secret":
      return name === spec?.settings?.defaultUserPassword?.secret?.name;
    case "Service":
      return name === cluster.metadata.name;
    default:
      return false;
  }
}

/** Its user and password as outputs, and its provenance. */
const CREDENTIALS_OUTPUTS = credentialsOutputs({
  username: "The user consumers connect as.",
  password: "Its password, a secret in the Pulumi state.",
});

/**
 * ClickHouseCluster: a ClickHouse on the ClickHouse Inc. operator, managed (a ClickHouseCluster and its
 * KeeperCluster, the default user's password generated, a client Service), adopted or external.
 * Upstream facts: ./clickhouse-operator-api.ts, docs/clickhouse.md.
 */
export const CLICKHOUSE_CLUSTER_MODULE: KindModule<ClickHouseCluster, ClickHouseClusterStatus> = {
  definition: CLICKHOUSE_CLUSTER_DEFINITION,
  schema: ClickHouseCluster,
  name: clickhouseClusterName,
  licence: {},
  types: CLICKHOUSE_TYPES,
  phase: DATASTORE_READY,
  needs: (resource) => (resource.spec.mode === "managed" ? [CLICKHOUSE_OPERATOR_CAPABILITY] : []),
  emits: [
    {
      apiVersion: "v1",
      kind: "Secret",
      plural: "secrets",
      keptWith: { note: "its password unchanged", phrase: (names) => `its password Secret ${names.join(", ")}` },
    },
    {
      ...KEEPER_CLUSTER,
      keptWith: { note: "the cluster's coordination", phrase: (names) => `its KeeperCluster ${names.join(", ")}` },
    },
    { ...CLICKHOUSE_CLUSTER, stateful: { keeps: keptWithCluster } },
    {
      apiVersion: "v1",
      kind: "Service",
      plural: "services",
      keptWith: { note: "where consumers connect", phrase: (names) => `its Service ${names.join(", ")}` },
    },
  ],
  // Managed: the KeeperCluster and ClickHouseCluster it emits say whether they serve; the engine reads them.
  observes: (resource) => adoptOrExternalReads(resource, adoptTarget),
  references: (resource) => adoptReferences(resource, adoptTarget),
  referencesKinds: [SECRETS_MANAGEMENT_KIND],
  // Its adopt or external block's Secret, when a SecretsManagement provides it (secretsRef).
  dependsOn: datastoreSecretsDependencies,
  desired: (resource, view) => withDatastoreSecrets(resource, view, () => desiredClickHouseCluster(resource, view)),
  reached: reachedModeAndType,
  changeReason: modeChangeReason,
  copiedThroughReferences: (resource) => [adoptedCredentialsName(resource)],
  outputs: outputsProjection({
    schema: z.object({
      ...connectionOutputsShape("ClickHouseCluster", {
        host: "the managed cluster's Service, the adopted one's headless Service, or the external host",
        holds: "the username and password (keys `username` and `password`)",
      }),
      url: z.string().describe("The HTTP interface: `http://<host>:<port>`."),
      nativePort: z.number().int().describe("The native protocol's port at the same host (9000 in the cluster)."),
      ...CREDENTIALS_OUTPUTS.shape,
    }),
    secrets: ["password"],
    credentialsSecret: (status) => connectionCredentialsSecret(status.connection),
    project: (status, namespace, credentials) => ({
      ...connectionOutputs(status.connection, namespace, CLICKHOUSE_HTTP_PORT),
      url: status.connection?.url ?? "",
      nativePort: status.nativePort ?? CLICKHOUSE_NATIVE_PORT,
      ...CREDENTIALS_OUTPUTS.project(status, credentials),
    }),
  }),
};
