import * as z from "zod";
import { AGE_COLUMN, type KindDefinition, type PrinterColumn, READY_COLUMN } from "../../api/crd.js";
import { API_GROUP } from "../../api/group.js";
import { httpUrl } from "../../api/http-url.js";
import { withDefault } from "../../api/named-default.js";
import { LocalRef, localSecretKeyRef, ObjectRef, referenceTo } from "../../api/refs.js";
import { Connection, ENGINE_STATUS, PublishedClaim } from "../../api/resource-status.js";
import { storedResource } from "../../api/stored-resource.js";
import { modeRules } from "../datastore/mode-rules.js";
import { DATASTORE_NAME_PATTERN, datastoreName, datastoreNameRules } from "../datastore/name.js";
import { SecretsRef } from "../secrets-management/secrets-ref.js";

export const GATEWAY_KIND = "Gateway";
export const GATEWAY_PLURAL = "gateways";

/**
 * Longest Gateway name. Its LiteLLMInstance bears its name, and the LiteLLM operator names the proxy's
 * Service after that: a DNS label of at most 63 characters.
 */
export const MAX_GATEWAY_NAME = 63;

const NAMED_AFTER_GATEWAY =
  "its LiteLLMInstance is named after it, and the LiteLLM operator names the proxy's Service after that";

/** A Gateway's metadata.name: see MAX_GATEWAY_NAME. */
export const gatewayName = datastoreName(GATEWAY_KIND, MAX_GATEWAY_NAME, NAMED_AFTER_GATEWAY);

/** One key of a Secret in the Gateway's namespace (the LiteLLM operator passes each to the proxy's environment). */
const LocalSecretKeyRef = localSecretKeyRef(GATEWAY_KIND);

/**
 * A provider's model id, the part after `<provider>/` of LiteLLM's `model`: '/'-separated parts of letters,
 * digits and `. _ - : @`, each starting with a letter, a digit or `@`. The forms LiteLLM's provider pages
 * show (docs.litellm.ai/docs/providers): `gpt-4o-mini`, OpenAI's fine-tuned `ft:gpt-4o-mini:org:name:id`,
 * Ollama's `llama3:8b`, Hugging Face's `meta-llama/Llama-3.1-8B-Instruct`, Bedrock's
 * `anthropic.claude-3-5-sonnet-20240620-v1:0` and its ARNs, Vertex AI's `claude-3-5-sonnet@20240620`,
 * Cloudflare's `@cf/meta/llama-2-7b-chat-int8`, Replicate's `owner/model:version`. Nothing a shell reads
 * (no blank space, `$`, backtick, `;`, quote, pipe…), no empty part and no part `.` or `..`.
 */
const PROVIDER_MODEL = /^[A-Za-z0-9@][-A-Za-z0-9._:@]*(\/[A-Za-z0-9@][-A-Za-z0-9._:@]*)*$/;
/** Longest provider model id: the longest form, a Bedrock ARN, stays well under it (about 100 characters). */
export const MAX_PROVIDER_MODEL = 253;
/** Longest base URL: the length browsers and proxies commonly bound a URL to. */
export const MAX_API_BASE = 2048;

/** A model's name: what clients ask for, and the suffix of its LiteLLMModel's name. */
const MODEL_NAME = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;
export const MAX_MODEL_NAME = 63;

export const GatewayModel = z
  .object({
    name: z
      .string()
      .min(1)
      .max(MAX_MODEL_NAME)
      .regex(MODEL_NAME, {
        message:
          "must be lowercase letters, digits, '-' and '.', starting and ending with a letter or digit (e.g. gpt-4o)",
      })
      .describe("The model name clients ask the gateway for (e.g. gpt-4o); its LiteLLMModel is `<gateway>-<name>`."),
    provider: z
      .string()
      .min(1)
      .max(63)
      .regex(/^[a-z0-9_-]+$/, {
        message:
          "must be a LiteLLM provider prefix: lowercase letters, digits, '_' and '-' (e.g. openai, anthropic, azure)",
      })
      .describe(
        "The LiteLLM provider (openai, anthropic, azure, bedrock, ollama …): the part before '/' of LiteLLM's model.",
      ),
    model: z
      .string()
      .min(1)
      .max(MAX_PROVIDER_MODEL)
      .regex(PROVIDER_MODEL, {
        message:
          "must be a provider's model id: '/'-separated parts of letters, digits and . _ - : @, each starting with a letter, a digit or '@' (e.g. gpt-4o-mini, llama3:8b, meta-llama/Llama-3.1-8B-Instruct, anthropic.claude-3-5-sonnet-20240620-v1:0)",
      })
      .describe(
        "The provider's model (e.g. gpt-4o-mini, llama3:8b, meta-llama/Llama-3.1-8B-Instruct): LiteLLM calls `<provider>/<model>`.",
      ),
    apiKeySecretRef: LocalSecretKeyRef.optional().describe(
      "The provider's API key, from a Secret key in the Gateway's namespace; never a value. Omitted for a provider that needs none.",
    ),
    apiBase: httpUrl(MAX_API_BASE, "http://ollama.ai-models:11434")
      .optional()
      .describe(
        "The provider's base URL, where it is not the provider's default (e.g. http://ollama.ai-models:11434): http or https, a host, an optional port and path; no credentials, query or fragment.",
      ),
  })
  .strict()
  .describe("One model the gateway serves.");
export type GatewayModel = z.infer<typeof GatewayModel>;

export const GatewayDatabaseMode = z
  .enum(["postgresCluster", "external"])
  .describe(
    "postgresCluster: a PostgresCluster of the product (another namespace under a ReferenceGrant); external: a PostgreSQL reached through a database URL in a Secret.",
  );

/** A reference to a PostgresCluster, of the product's API. */
const PostgresClusterRef = referenceTo({ group: API_GROUP, kinds: ["PostgresCluster"] } as const, ObjectRef);
/** A reference to an Observability, of the product's API. */
const ObservabilityRef = referenceTo({ group: API_GROUP, kinds: ["Observability"] } as const, ObjectRef);

/** The rules between the database mode and its fields: CEL for the apiserver, the same message for zod. */
export const DATABASE_RULES = modeRules("spec.database", {
  postgresCluster: {
    required: [{ field: "postgresClusterRef", set: "name the PostgresCluster" }],
    only: ["postgresClusterRef", "databaseUrlSecretRef"],
  },
  external: {
    required: [{ field: "external", set: "set spec.database.external.connectionSecretRef" }],
    only: ["external"],
  },
});

export const GatewayDatabase = z
  .object({
    mode: GatewayDatabaseMode,
    postgresClusterRef: PostgresClusterRef.optional().describe(
      "The PostgresCluster the gateway keeps its data in (mode postgresCluster); in another namespace only under a ReferenceGrant there.",
    ),
    databaseUrlSecretRef: LocalSecretKeyRef.optional().describe(
      "Wiring by hand (mode postgresCluster, without the licensed feature auto-wiring): a Secret key in the Gateway's namespace holding the database URL (postgresql://user:password@host:port/database) of the PostgresCluster's database for the gateway.",
    ),
    external: z
      .object({
        connectionSecretRef: LocalSecretKeyRef.describe(
          "A Secret key in the Gateway's namespace holding the database URL (postgresql://user:password@host:port/database).",
        ),
      })
      .strict()
      .optional()
      .describe("The external PostgreSQL (mode external)."),
  })
  .strict()
  .superRefine((db, ctx) => {
    for (const rule of DATABASE_RULES.broken(db))
      ctx.addIssue({ code: "custom", message: rule.message, path: [...rule.path] });
  })
  .meta({ "x-kubernetes-validations": DATABASE_RULES.rules.map(({ rule, message }) => ({ rule, message })) })
  .describe("Where the gateway keeps its keys, spend and settings: LiteLLM needs a PostgreSQL.");
export type GatewayDatabase = z.infer<typeof GatewayDatabase>;

/** @default for `spec.replicas`. */
export const DEFAULT_GATEWAY_REPLICAS = 1;

export const GatewaySpec = z
  .object({
    models: z
      .array(GatewayModel)
      .max(100)
      .default([])
      .superRefine((models, ctx) => {
        const seen = new Set<string>();
        models.forEach((model, index) => {
          if (seen.has(model.name))
            ctx.addIssue({
              code: "custom",
              message: `model name "${model.name}" is listed twice: each model of a gateway needs a name of its own`,
              path: [index, "name"],
            });
          seen.add(model.name);
        });
      })
      .meta({
        "x-kubernetes-list-type": "map",
        "x-kubernetes-list-map-keys": ["name"],
      })
      .describe(
        "The models the gateway serves, each by its name. Default: none (models can also be added through the proxy's API).",
      ),
    database: GatewayDatabase,
    replicas: withDefault(z.number().int().min(1).max(20), { DEFAULT_GATEWAY_REPLICAS }).describe(
      `Replicas of the proxy. Default ${DEFAULT_GATEWAY_REPLICAS}.`,
    ),
    observabilityRef: ObservabilityRef.optional().describe(
      "The Observability the gateway sends its traces to (LiteLLM's langfuse_otel callback), in another namespace only under a ReferenceGrant there. Wired with the licensed feature auto-wiring; otherwise by hand through spec.observabilityKeysSecretRef.",
    ),
    observabilityKeysSecretRef: LocalRef.optional().describe(
      "Wiring spec.observabilityRef by hand (without the licensed feature auto-wiring): a Secret in the Gateway's namespace holding the Langfuse project's keys, `public-key` and `secret-key` — the Secret the Observability names in its spec.projectKeysSecretRef, for instance. Wins over auto-wiring when set.",
    ),
    secretsRef: SecretsRef.optional().describe(
      "The SecretsManagement of this namespace that provides the Secrets the gateway reads (its models' apiKeySecretRef, its database's Secret): nothing is applied before it is Ready, and each of those Secrets must be one it lists in status.secrets. Default: the Secrets are yours.",
    ),
  })
  .strict()
  .describe("Desired state of an LLM gateway (LiteLLM): its models, its database and its master key.");
export type GatewaySpec = z.infer<typeof GatewaySpec>;
/** What a program writes as a Gateway's spec, each field documented (generated from GatewaySpec). */
export type { GatewaySpecInput } from "../../api/generated/gateway-spec.js";

export const GatewayModelStatus = z
  .object({
    name: z.string().describe("The model's name (spec.models[].name)."),
    synced: z.boolean().describe("Whether the LiteLLM operator reports the model synced to the proxy."),
  })
  .strict();

export const GatewayStatus = z
  .object({
    ...ENGINE_STATUS,
    connection: Connection.optional().describe(
      "Where clients reach the gateway (url http://host:port), and the Secret holding its master key (key password).",
    ),
    models: z.array(GatewayModelStatus).optional().describe("Each model, and whether it is synced to the proxy."),
    wiring: z
      .array(z.string())
      .optional()
      .describe("How each reference is wired: auto-wired, or by hand through the field named."),
    claims: z
      .array(PublishedClaim)
      .optional()
      .describe(
        "The virtual keys issued for the consumers auto-wired to it (a ChatUI's), each its own: where its key is.",
      ),
    observability: z
      .string()
      .optional()
      .describe("What became of spec.observabilityRef: where the gateway sends its traces, or why not yet."),
  })
  .strict();
export type GatewayStatus = z.infer<typeof GatewayStatus>;

/** A Gateway as stored in the cluster. */
export const Gateway = storedResource(GATEWAY_KIND, GatewaySpec, GatewayStatus, gatewayName);
export type Gateway = z.infer<typeof Gateway>;

const text = (name: string, jsonPath: string, description: string, priority?: number): PrinterColumn => ({
  name,
  type: "string",
  jsonPath,
  description,
  ...(priority ? { priority } : {}),
});

export const GATEWAY_DEFINITION: KindDefinition = {
  kind: GATEWAY_KIND,
  plural: GATEWAY_PLURAL,
  singular: "gateway",
  // Not "gw" (Istio's Gateway) nor "gtw" (Gateway API's).
  shortNames: ["llmgw"],
  scope: "Namespaced",
  description:
    "An LLM gateway: a LiteLLM proxy run by the LiteLLM operator, its models (provider keys by Secret reference), its generated master key and its PostgreSQL (a PostgresCluster or an external one).",
  spec: GatewaySpec,
  status: GatewayStatus,
  printerColumns: [
    text("Database", ".spec.database.mode", "postgresCluster or external"),
    READY_COLUMN,
    text("URL", ".status.connection.url", "Where clients reach the gateway", 1),
    AGE_COLUMN,
  ],
  namePattern: DATASTORE_NAME_PATTERN,
  rootValidations: datastoreNameRules(GATEWAY_KIND, MAX_GATEWAY_NAME, NAMED_AFTER_GATEWAY),
};
