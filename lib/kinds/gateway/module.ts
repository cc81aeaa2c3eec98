import * as z from "zod";
import { API_GROUP } from "../../api/group.js";
import type { KindModule } from "../../engine/kind-module.js";
import { outputsProjection } from "../../engine/outputs.js";
import {
  connectionCredentialsSecret,
  connectionOutputs,
  connectionOutputsShape,
} from "../datastore/connection-outputs.js";
import { SECRETS_MANAGEMENT_KIND } from "../secrets-management/schema.js";
import { type SecretsUse, secretsDependency, withProvidedSecrets } from "../secrets-management/secrets-ref.js";
import { referencedSecretReads } from "../workload/referenced-secrets.js";
import {
  claimedDatabaseSecretName,
  databaseDependency,
  desiredGateway,
  gatewaySecrets,
  MASTER_KEY_KEY,
} from "./desired.js";
import { LITELLM_INSTANCE, LITELLM_MODEL, LITELLM_PORT, LITELLM_VIRTUAL_KEY } from "./litellm-api.js";
import { GATEWAY_DEFINITION, Gateway, type GatewayStatus, gatewayName } from "./schema.js";
import { observabilityDependency, tracesSecretName } from "./tracing.js";

/** The capability every Gateway needs (lib/catalog/litellm-operator.ts). */
export const LITELLM_OPERATOR_CAPABILITY = "litellm-operator";

/** The condition a Gateway reports its proxy and models on. */
export const GATEWAY_READY = "GatewayReady";

/** The Secrets a Gateway reads through its secretsRef: every Secret its spec names (provider keys, its database's). */
function secretsUse(gateway: Gateway): SecretsUse | undefined {
  const ref = gateway.spec.secretsRef;
  if (!ref) return undefined;
  const { namespace } = gateway.metadata;
  const secrets = gatewaySecrets(gateway).map(({ field, name }) => ({ field, name, namespace }));
  return { field: "spec.secretsRef", ref, secrets };
}

/**
 * Gateway: an LLM gateway, a LiteLLM proxy the LiteLLM operator runs from the LiteLLMInstance and the
 * LiteLLMModels it emits; its master and salt keys generated, every secret passed by Secret reference;
 * its database a PostgresCluster (gated on it, wired under the licence or by hand) or external.
 * Upstream facts: ./litellm-api.ts, docs/gateway.md.
 */
export const GATEWAY_MODULE: KindModule<Gateway, GatewayStatus> = {
  definition: GATEWAY_DEFINITION,
  schema: Gateway,
  name: gatewayName,
  licence: {},
  phase: GATEWAY_READY,
  needs: () => [LITELLM_OPERATOR_CAPABILITY],
  emits: [
    {
      apiVersion: "v1",
      kind: "Secret",
      plural: "secrets",
    },
    { ...LITELLM_INSTANCE, label: "LiteLLMInstance" },
    { ...LITELLM_MODEL, label: "LiteLLMModel" },
    { ...LITELLM_VIRTUAL_KEY, label: "LiteLLMVirtualKey" },
  ],
  observes: (gateway) => referencedSecretReads(gateway.metadata.namespace, gatewaySecrets(gateway)),
  references: () => [],
  // Its consumers' claims (a ChatUI's, auto-wired) are virtual keys: it issues them in any mode.
  takesClaims: () => true,
  referencesKinds: ["PostgresCluster", "Observability", SECRETS_MANAGEMENT_KIND],
  dependsOn: (gateway) => {
    const database = databaseDependency(gateway, API_GROUP);
    const observability = observabilityDependency(gateway, API_GROUP);
    const secrets = secretsUse(gateway);
    return [
      ...(database ? [database] : []),
      ...(observability ? [observability] : []),
      ...(secrets ? [secretsDependency(gateway.metadata.namespace, secrets)] : []),
    ];
  },
  desired: (gateway, view) => {
    const secrets = secretsUse(gateway);
    return withProvidedSecrets(gateway.metadata.namespace, secrets ? [secrets] : [], view, () =>
      desiredGateway(gateway, view, API_GROUP),
    );
  },
  // The claimed database's URL and the Observability's project keys, copied from their namespaces:
  // deleted if the grant goes.
  copiedThroughReferences: (gateway) => [claimedDatabaseSecretName(gateway), tracesSecretName(gateway)],
  outputs: outputsProjection({
    schema: z.object({
      url: z.string().describe("Where clients reach the gateway: `http://<host>:4000`."),
      ...connectionOutputsShape("Gateway", {
        host: "the LiteLLM proxy's Service",
        holds: "the master key (keys `master-key` and `password`)",
      }),
      masterKey: z.string().describe("The master key, a secret in the Pulumi state."),
    }),
    secrets: ["masterKey"],
    credentialsSecret: (status) => connectionCredentialsSecret(status.connection),
    project: (status, namespace, credentials) => ({
      url: status.connection?.url ?? "",
      ...connectionOutputs(status.connection, namespace, LITELLM_PORT),
      masterKey: credentials?.[MASTER_KEY_KEY] ?? credentials?.password ?? "",
    }),
  }),
};
