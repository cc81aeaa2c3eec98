import * as z from "zod";
import { API_GROUP } from "../../api/group.js";
import type { KindModule } from "../../engine/kind-module.js";
import { outputsProjection } from "../../engine/outputs.js";
import { WORKLOAD_RELEASE } from "../../engine/workload-release.js";
import {
  connectionCredentialsSecret,
  connectionOutputs,
  connectionOutputsShape,
} from "../datastore/connection-outputs.js";
import { SECRETS_MANAGEMENT_KIND } from "../secrets-management/schema.js";
import { type SecretsUse, secretsDependency, withProvidedSecrets } from "../secrets-management/secrets-ref.js";
import { referencedSecretReads } from "../workload/referenced-secrets.js";
import { LANGFUSE_WEB_PORT, PROJECT_KEYS } from "./chart.js";
import { datastoreDependencies, datastoresSecretName, desiredObservability, observabilitySecrets } from "./desired.js";
import { OBSERVABILITY_DEFINITION, Observability, type ObservabilityStatus, observabilityName } from "./schema.js";

/** The condition an Observability reports its Langfuse on. */
export const OBSERVABILITY_READY = "ObservabilityReady";

/** The Secrets it reads through its secretsRef: every Secret its spec names (S3 keys, project keys). */
function secretsUse(resource: Observability): SecretsUse | undefined {
  const ref = resource.spec.secretsRef;
  if (!ref) return undefined;
  const { namespace } = resource.metadata;
  const secrets = observabilitySecrets(resource).map(({ field, name }) => ({ field, name, namespace }));
  return { field: "spec.secretsRef", ref, secrets };
}

/**
 * Observability: a Langfuse, as a per-resource release of the official chart with every bundled store off,
 * on the product's datastores by reference (its own database claimed in a PostgresCluster; a
 * ClickHouseCluster and a RedisInstance read) and S3-compatible storage by Secret reference; its salt and
 * encryption key generated, and a project made at first start whose keys it publishes for gateways.
 * Upstream facts: ./chart.ts, docs/observability.md.
 */
export const OBSERVABILITY_MODULE: KindModule<Observability, ObservabilityStatus> = {
  definition: OBSERVABILITY_DEFINITION,
  schema: Observability,
  name: observabilityName,
  licence: {},
  phase: OBSERVABILITY_READY,
  // No operator: the release is the resource's own.
  needs: () => [],
  emits: [{ apiVersion: "v1", kind: "Secret", plural: "secrets" }, WORKLOAD_RELEASE],
  observes: (resource) => referencedSecretReads(resource.metadata.namespace, observabilitySecrets(resource)),
  references: () => [],
  referencesKinds: ["PostgresCluster", "ClickHouseCluster", "RedisInstance", SECRETS_MANAGEMENT_KIND],
  dependsOn: (resource) => {
    const secrets = secretsUse(resource);
    return [
      ...datastoreDependencies(resource, API_GROUP),
      ...(secrets ? [secretsDependency(resource.metadata.namespace, secrets)] : []),
    ];
  },
  desired: (resource, view) => {
    const secrets = secretsUse(resource);
    return withProvidedSecrets(resource.metadata.namespace, secrets ? [secrets] : [], view, () =>
      desiredObservability(resource, view, API_GROUP),
    );
  },
  // The datastores' passwords, copied from their namespaces: deleted if a grant goes.
  copiedThroughReferences: (resource) => [datastoresSecretName(resource)],
  outputs: outputsProjection({
    schema: z.object({
      url: z.string().describe("Where gateways send traces and users open Langfuse: `http://<host>:3000`."),
      ...connectionOutputsShape("Observability", {
        host: "Langfuse's web Service",
        holds: `the project's keys (keys \`${PROJECT_KEYS.publicKey}\` and \`${PROJECT_KEYS.secretKey}\`)`,
      }),
      publicKey: z.string().describe("The project's public key (pk-lf-…)."),
      secretKey: z.string().describe("The project's secret key (sk-lf-…), a secret in the Pulumi state."),
    }),
    secrets: ["secretKey"],
    credentialsSecret: (status) => connectionCredentialsSecret(status.connection),
    project: (status, namespace, credentials) => ({
      url: status.connection?.url ?? "",
      ...connectionOutputs(status.connection, namespace, LANGFUSE_WEB_PORT),
      publicKey: credentials?.[PROJECT_KEYS.publicKey] ?? "",
      secretKey: credentials?.[PROJECT_KEYS.secretKey] ?? "",
    }),
  }),
};
