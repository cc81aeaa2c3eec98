import * as z from "zod";
import type { KindModule } from "../../engine/kind-module.js";
import { outputsProjection } from "../../engine/outputs.js";
import { desiredSecretsManagement, secretsReads } from "./desired.js";
import {
  SECRETS_MANAGEMENT_DEFINITION,
  SECRETS_READY,
  SecretsManagement,
  type SecretsManagementStatus,
  secretsManagementName,
} from "./schema.js";
import { CLUSTER_SECRET_STORE, EXTERNAL_SECRET, SEALED_SECRET, SECRET_STORE } from "./upstream-api.js";

/** The capability each backend needs (lib/catalog/external-secrets.ts, lib/catalog/sealed-secrets.ts). */
export const EXTERNAL_SECRETS_CAPABILITY = "external-secrets";
export const SEALED_SECRETS_CAPABILITY = "sealed-secrets";

/**
 * SecretsManagement: where a namespace's Secrets come from. Backend eso: a SecretStore made from a
 * provider block (or the user's ClusterSecretStore) and one ExternalSecret per Secret, on the External
 * Secrets Operator; backend sealed-secrets: the Secrets the user's SealedSecrets produce, on the Sealed
 * Secrets controller. The product never reads a secret's value. Upstream facts: ./upstream-api.ts,
 * docs/secrets-management.md.
 */
export const SECRETS_MANAGEMENT_MODULE: KindModule<SecretsManagement, SecretsManagementStatus> = {
  definition: SECRETS_MANAGEMENT_DEFINITION,
  schema: SecretsManagement,
  name: secretsManagementName,
  licence: {},
  phase: SECRETS_READY,
  needs: (resource) => [resource.spec.backend === "eso" ? EXTERNAL_SECRETS_CAPABILITY : SEALED_SECRETS_CAPABILITY],
  emits: [
    { ...SECRET_STORE, label: SECRET_STORE.kind },
    { ...EXTERNAL_SECRET, label: EXTERNAL_SECRET.kind },
  ],
  observes: secretsReads,
  readsKinds: [CLUSTER_SECRET_STORE, SEALED_SECRET],
  // Nothing outside its namespace: a ClusterSecretStore's own spec.conditions say which namespaces may use it.
  references: () => [],
  referencesKinds: [],
  desired: (resource, view) => desiredSecretsManagement(resource, view),
  reached: (resource) => ({ backend: resource.spec.backend }),
  changeReason: (resource) => {
    const { backend } = resource.status ?? {};
    return backend && backend !== resource.spec.backend
      ? `(backend changed from ${backend} to ${resource.spec.backend})`
      : undefined;
  },
  outputs: outputsProjection({
    schema: z.object({
      backend: z.string().describe("eso or sealed-secrets."),
      store: z
        .string()
        .describe("The ESO store its ExternalSecrets read from, `<Kind>/<name>`; empty for sealed-secrets."),
      secrets: z.array(z.string()).describe("The Secrets it provides in its namespace, by name."),
    }),
    secrets: [],
    project: (status) => ({
      backend: status.backend ?? "",
      store: status.store ? `${status.store.kind}/${status.store.name}` : "",
      secrets: (status.secrets ?? []).map((s) => s.name),
    }),
  }),
};
