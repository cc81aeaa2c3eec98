import * as z from "zod";
import { AGE_COLUMN, type KindDefinition, READY_COLUMN } from "../../api/crd.js";
import { API_GROUP } from "../../api/group.js";
import { httpUrl } from "../../api/http-url.js";
import { withDefault } from "../../api/named-default.js";
import { byteQuantity } from "../../api/quantity.js";
import { localSecretKeyRef, ObjectRef, objectName, referenceTo } from "../../api/refs.js";
import { Connection, ENGINE_STATUS } from "../../api/resource-status.js";
import { storedResource } from "../../api/stored-resource.js";
import { DATASTORE_NAME_PATTERN, datastoreName, datastoreNameRules } from "../datastore/name.js";
import { SecretsRef } from "../secrets-management/secrets-ref.js";

export const CHAT_UI_KIND = "ChatUI";
export const CHAT_UI_PLURAL = "chatuis";

/**
 * Longest ChatUI name: its Helm release bears its name, and helm refuses a release name of more than 53
 * characters (the chart's Deployment and Service, named after it, stay within a DNS label's 63).
 */
export const MAX_CHAT_UI_NAME = 53;

const NAMED_AFTER_CHAT_UI =
  "its Helm release is named after it, and helm allows a release name of at most 53 characters";

/** A ChatUI's metadata.name: see MAX_CHAT_UI_NAME. */
export const chatUIName = datastoreName(CHAT_UI_KIND, MAX_CHAT_UI_NAME, NAMED_AFTER_CHAT_UI);

const refTo = <const K extends string>(kind: K) => referenceTo({ group: API_GROUP, kinds: [kind] } as const, ObjectRef);

/** @default for `spec.replicas`. */
export const DEFAULT_CHAT_UI_REPLICAS = 1;
/** @default for `spec.endpointName`. */
export const DEFAULT_ENDPOINT_NAME = "Gateway";
/** @default for `spec.imageStorage.size`. */
export const DEFAULT_IMAGE_STORAGE_SIZE = "10Gi";

/** LibreChat's own endpoints, which a custom endpoint may not be named (its config schema refuses them). */
export const RESERVED_ENDPOINT_NAMES = [
  "azureOpenAI",
  "openAI",
  "google",
  "anthropic",
  "assistants",
  "azureAssistants",
  "agents",
  "custom",
  "bedrock",
] as const;

export const ChatUISpec = z
  .object({
    gatewayRef: refTo("Gateway").describe(
      "The Gateway the UI sends every conversation to, as a LibreChat custom endpoint; in another namespace only under a ReferenceGrant there. Its key is a virtual key issued for this UI with the licensed feature auto-wiring; otherwise set spec.gatewayKeySecretRef.",
    ),
    gatewayKeySecretRef: localSecretKeyRef(CHAT_UI_KIND)
      .optional()
      .describe(
        "Wiring spec.gatewayRef by hand (without the licensed feature auto-wiring): a Secret key in the ChatUI's namespace holding a key of the gateway (a LiteLLM virtual key, sk-…). Wins over auto-wiring when set.",
      ),
    mongoClusterRef: refTo("MongoCluster").describe(
      "The MongoCluster LibreChat keeps conversations and users in: its own database and user are claimed there.",
    ),
    meilisearchInstanceRef: refTo("MeilisearchInstance").describe(
      "The MeilisearchInstance LibreChat indexes conversations in (search on).",
    ),
    endpointName: withDefault(
      z
        .string()
        .min(1)
        .max(63)
        .regex(/^[A-Za-z0-9][A-Za-z0-9 ._-]*$/, {
          message: "must be letters, digits, spaces, '.', '_' and '-', starting with a letter or digit (e.g. Gateway)",
        })
        .refine((name) => !(RESERVED_ENDPOINT_NAMES as readonly string[]).includes(name), {
          message: `must not be one of LibreChat's own endpoints (${RESERVED_ENDPOINT_NAMES.join(", ")}): choose another name`,
        }),
      { DEFAULT_ENDPOINT_NAME },
    ).describe(`The gateway's name in LibreChat's endpoint menu. Default ${DEFAULT_ENDPOINT_NAME}.`),
    url: httpUrl(2048, "https://chat.example.com")
      .optional()
      .describe(
        "Where users open LibreChat (DOMAIN_CLIENT and DOMAIN_SERVER: links in e-mails, OAuth callbacks). Default: the Service's URL inside the cluster.",
      ),
    replicas: withDefault(z.number().int().min(1).max(20), { DEFAULT_CHAT_UI_REPLICAS }).describe(
      `Replicas of LibreChat. Default ${DEFAULT_CHAT_UI_REPLICAS}.`,
    ),
    imageStorage: z
      .object({
        size: withDefault(byteQuantity(DEFAULT_IMAGE_STORAGE_SIZE), { DEFAULT_IMAGE_STORAGE_SIZE }).describe(
          `Size of the volume of uploaded images, a Kubernetes quantity in bytes. Default ${DEFAULT_IMAGE_STORAGE_SIZE}.`,
        ),
        storageClass: objectName
          .optional()
          .describe("StorageClass of the volume. Default: the cluster's default StorageClass."),
      })
      .strict()
      .default({ size: DEFAULT_IMAGE_STORAGE_SIZE })
      .describe(
        `The volume LibreChat keeps uploaded images on (the chart's, deleted with the release). Default: ${DEFAULT_IMAGE_STORAGE_SIZE}.`,
      ),
    secretsRef: SecretsRef.optional().describe(
      "The SecretsManagement of this namespace that provides the Secret of spec.gatewayKeySecretRef: nothing is applied before it is Ready, and it must list that Secret in status.secrets. Default: the Secret is yours.",
    ),
  })
  .strict()
  .describe("Desired state of a LibreChat: the gateway it talks to and the datastores it keeps its data in.");
export type ChatUISpec = z.infer<typeof ChatUISpec>;
/** What a program writes as a ChatUI's spec, each field documented (generated from ChatUISpec). */
export type { ChatUISpecInput } from "../../api/generated/chat-ui-spec.js";

export const ChatUIStatus = z
  .object({
    ...ENGINE_STATUS,
    connection: Connection.optional().describe("Where users reach LibreChat (url http://host:3080)."),
    wiring: z
      .array(z.string())
      .optional()
      .describe("How each reference is wired: auto-wired, or by hand through the field named."),
    gateway: z.string().optional().describe("Which gateway endpoint LibreChat offers, and with which models."),
  })
  .strict();
export type ChatUIStatus = z.infer<typeof ChatUIStatus>;

/** A ChatUI as stored in the cluster. */
export const ChatUI = storedResource(CHAT_UI_KIND, ChatUISpec, ChatUIStatus, chatUIName);
export type ChatUI = z.infer<typeof ChatUI>;

export const CHAT_UI_DEFINITION: KindDefinition = {
  kind: CHAT_UI_KIND,
  plural: CHAT_UI_PLURAL,
  singular: "chatui",
  shortNames: ["chat"],
  scope: "Namespaced",
  description:
    "A chat UI: a LibreChat (the official chart, one release per resource) talking to a Gateway, its data in a MongoCluster and its search in a MeilisearchInstance.",
  spec: ChatUISpec,
  status: ChatUIStatus,
  printerColumns: [
    READY_COLUMN,
    {
      name: "URL",
      type: "string",
      jsonPath: ".status.connection.url",
      description: "Where users open it",
      priority: 1,
    },
    AGE_COLUMN,
  ],
  namePattern: DATASTORE_NAME_PATTERN,
  rootValidations: datastoreNameRules(CHAT_UI_KIND, MAX_CHAT_UI_NAME, NAMED_AFTER_CHAT_UI),
};
