import * as z from "zod";
import { API_GROUP } from "../../api/group.js";
import type { KindModule } from "../../engine/kind-module.js";
import { outputsProjection } from "../../engine/outputs.js";
import { WORKLOAD_RELEASE } from "../../engine/workload-release.js";
import { SECRETS_MANAGEMENT_KIND } from "../secrets-management/schema.js";
import { type SecretsUse, secretsDependency, withProvidedSecrets } from "../secrets-management/secrets-ref.js";
import { referencedSecretReads } from "../workload/referenced-secrets.js";
import { LIBRECHAT_PORT } from "./chart.js";
import { chatUISecrets, connectionsName, datastoreDependencies, desiredChatUI, gatewayDependency } from "./desired.js";
import { CHAT_UI_DEFINITION, ChatUI, type ChatUIStatus, chatUIName } from "./schema.js";

/** The condition a ChatUI reports its LibreChat on. */
export const CHAT_UI_READY = "ChatUIReady";

/** The Secret it reads through its secretsRef: the one wiring its gateway by hand. */
function secretsUse(resource: ChatUI): SecretsUse | undefined {
  const ref = resource.spec.secretsRef;
  if (!ref) return undefined;
  const { namespace } = resource.metadata;
  const secrets = chatUISecrets(resource).map(({ field, name }) => ({ field, name, namespace }));
  return { field: "spec.secretsRef", ref, secrets };
}

/**
 * ChatUI: a LibreChat, as a per-resource release of the official chart with its bundled stores off, talking
 * to a Gateway as its one custom endpoint (a virtual key of its own when auto-wired, a key of the user's
 * otherwise), its data in its own database of a MongoCluster, its search in a MeilisearchInstance; its
 * keys generated. Upstream facts: ./chart.ts, docs/chat-ui.md.
 */
export const CHAT_UI_MODULE: KindModule<ChatUI, ChatUIStatus> = {
  definition: CHAT_UI_DEFINITION,
  schema: ChatUI,
  name: chatUIName,
  licence: {},
  phase: CHAT_UI_READY,
  // No operator: the release is the resource's own.
  needs: () => [],
  emits: [{ apiVersion: "v1", kind: "Secret", plural: "secrets" }, WORKLOAD_RELEASE],
  observes: (resource) => referencedSecretReads(resource.metadata.namespace, chatUISecrets(resource)),
  references: () => [],
  referencesKinds: ["Gateway", "MongoCluster", "MeilisearchInstance", SECRETS_MANAGEMENT_KIND],
  dependsOn: (resource) => {
    const secrets = secretsUse(resource);
    return [
      gatewayDependency(resource, API_GROUP),
      ...datastoreDependencies(resource, API_GROUP),
      ...(secrets ? [secretsDependency(resource.metadata.namespace, secrets)] : []),
    ];
  },
  desired: (resource, view) => {
    const secrets = secretsUse(resource);
    return withProvidedSecrets(resource.metadata.namespace, secrets ? [secrets] : [], view, () =>
      desiredChatUI(resource, view, API_GROUP),
    );
  },
  // Its MongoDB URI, the Meilisearch key and its virtual key, copied from their namespaces: deleted if a grant goes.
  copiedThroughReferences: (resource) => [connectionsName(resource)],
  outputs: outputsProjection({
    schema: z.object({
      url: z.string().describe("Where users reach LibreChat inside the cluster: `http://<host>:3080`."),
      host: z.string().describe("LibreChat's Service."),
      port: z.number().int().describe("LibreChat's port."),
    }),
    secrets: [],
    project: (status) => ({
      url: status.connection?.url ?? "",
      host: status.connection?.host ?? "",
      port: status.connection?.port ?? LIBRECHAT_PORT,
    }),
  }),
};
