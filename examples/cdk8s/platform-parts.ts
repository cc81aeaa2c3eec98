/**
 * What both cdk8s examples declare alike — the per-kind platform (app.ts) and the same platform as one
 * Stack (stack.ts): the gateway's models, Langfuse's object storage, and the Secrets a person provides
 * through Azure Key Vault.
 */

/** The namespace of the platform's own services. */
export const PLATFORM_NAMESPACE = "navique-example-platform";

/** The gateway's models, their keys from the Secret `llm-provider-keys`. */
export const MODELS = [
  {
    name: "gpt-4o",
    provider: "openai",
    model: "gpt-4o",
    apiKeySecretRef: { name: "llm-provider-keys", key: "OPENAI_API_KEY" },
  },
  {
    name: "claude-sonnet",
    provider: "anthropic",
    model: "claude-sonnet-4-5",
    apiKeySecretRef: { name: "llm-provider-keys", key: "ANTHROPIC_API_KEY" },
  },
];

/** Langfuse's S3-compatible storage, its keys from the Secret `langfuse-s3`. */
export const LANGFUSE_S3 = {
  bucket: "navique-example-langfuse",
  region: "westeurope",
  endpoint: "https://s3.navique-example.internal",
  forcePathStyle: true,
  accessKeyIdSecretRef: { name: "langfuse-s3", key: "access-key-id" },
  secretAccessKeySecretRef: { name: "langfuse-s3", key: "secret-access-key" },
};

/** The SecretStore's provider: Azure Key Vault, signed in with Workload Identity as `secrets-reader`. */
export const KEY_VAULT = {
  azureKeyVault: {
    vaultUrl: "https://navique-example.vault.azure.net",
    serviceAccountRef: { name: "secrets-reader" },
  },
};

/** The Secrets a person provides: the LLM providers' API keys and Langfuse's storage keys. */
export const PROVIDED_SECRETS = [
  {
    name: "llm-provider-keys",
    data: [
      { key: "OPENAI_API_KEY", remoteKey: "openai-api-key" },
      { key: "ANTHROPIC_API_KEY", remoteKey: "anthropic-api-key" },
    ],
  },
  // Langfuse's object storage.
  {
    name: "langfuse-s3",
    data: [
      { key: "access-key-id", remoteKey: "langfuse-s3-access-key-id" },
      { key: "secret-access-key", remoteKey: "langfuse-s3-secret-access-key" },
    ],
  },
];
