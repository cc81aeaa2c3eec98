import * as z from "zod";
import { DATASTORE_READY } from "../../api/conditions.js";
import type { KindModule } from "../../engine/kind-module.js";
import { outputsProjection } from "../../engine/outputs.js";
import { WORKLOAD_RELEASE } from "../../engine/workload-release.js";
import {
  connectionCredentialsSecret,
  connectionOutputs,
  connectionOutputsShape,
} from "../datastore/connection-outputs.js";
import { externalReads } from "../datastore/external-connection.js";
import { modeChangeReason } from "../datastore/reached-mode.js";
import { datastoreSecretsDependencies, withDatastoreSecrets } from "../datastore/secrets-use.js";
import { SECRETS_MANAGEMENT_KIND } from "../secrets-management/schema.js";
import { MEILISEARCH_PORT } from "./chart.js";
import { desiredMeilisearchInstance, masterKeyOfClaim } from "./desired.js";
import {
  MEILISEARCH_INSTANCE_DEFINITION,
  MeilisearchInstance,
  type MeilisearchInstanceStatus,
  meilisearchInstanceName,
} from "./schema.js";

/** Kept with a retained data claim: the master key that opens its indexes. */
function keepsMasterKey(
  claim: { readonly metadata: { readonly name: string } },
  other: { readonly kind: string; readonly current: { readonly metadata: { readonly name: string } } },
): boolean {
  return other.kind === "Secret" && other.current.metadata.name === masterKeyOfClaim(claim.metadata.name);
}

/**
 * MeilisearchInstance: a Meilisearch managed as a per-resource release of the official chart (its master
 * key generated, passed by Secret reference; its data in a claim under the deletion policy), or external.
 * Upstream facts: ./chart.ts, docs/meilisearch.md.
 */
export const MEILISEARCH_INSTANCE_MODULE: KindModule<MeilisearchInstance, MeilisearchInstanceStatus> = {
  definition: MEILISEARCH_INSTANCE_DEFINITION,
  schema: MeilisearchInstance,
  name: meilisearchInstanceName,
  licence: {},
  phase: DATASTORE_READY,
  // No operator: the release is the resource's own.
  needs: () => [],
  emits: [
    {
      apiVersion: "v1",
      kind: "Secret",
      plural: "secrets",
      keptWith: { note: "its master key unchanged", phrase: (names) => `its master key Secret ${names.join(", ")}` },
    },
    {
      apiVersion: "v1",
      kind: "PersistentVolumeClaim",
      plural: "persistentvolumeclaims",
      stateful: { keeps: keepsMasterKey },
    },
    WORKLOAD_RELEASE,
  ],
  observes: externalReads,
  references: () => [],
  referencesKinds: [SECRETS_MANAGEMENT_KIND],
  // Its adopt or external block's Secret, when a SecretsManagement provides it (secretsRef).
  dependsOn: datastoreSecretsDependencies,
  desired: (resource, view) => withDatastoreSecrets(resource, view, () => desiredMeilisearchInstance(resource, view)),
  reached: (resource) => ({ mode: resource.spec.mode }),
  changeReason: modeChangeReason,
  outputs: outputsProjection({
    schema: z.object({
      url: z.string().describe("Where consumers connect: `http://<host>:<port>`."),
      ...connectionOutputsShape("MeilisearchInstance", {
        host: "the managed release's Service, or the external host",
        holds: "the master key (key `password`)",
      }),
      masterKey: z.string().describe("The master key, a secret in the Pulumi state."),
      provenance: z.string().describe("owned or external."),
    }),
    secrets: ["masterKey"],
    credentialsSecret: (status) => connectionCredentialsSecret(status.connection),
    project: (status, namespace, credentials) => ({
      url: status.connection?.url ?? "",
      ...connectionOutputs(status.connection, namespace, MEILISEARCH_PORT),
      masterKey: credentials?.password ?? "",
      provenance: status.provenance ?? "",
    }),
  }),
};
