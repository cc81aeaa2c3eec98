import * as z from "zod";
import { AGE_COLUMN, type KindDefinition, type PrinterColumn, READY_COLUMN } from "../../api/crd.js";
import { goDuration } from "../../api/duration.js";
import { withDefault } from "../../api/named-default.js";
import { objectName } from "../../api/refs.js";
import { ENGINE_STATUS } from "../../api/resource-status.js";
import { storedResource } from "../../api/stored-resource.js";
import type { SpecRule } from "../datastore/mode-rules.js";

export const SECRETS_MANAGEMENT_KIND = "SecretsManagement";
export const SECRETS_MANAGEMENT_PLURAL = "secretsmanagements";

/** The phase condition: its Secrets are there, synced from their backend. */
export const SECRETS_READY = "SecretsReady";

/**
 * Longest SecretsManagement name: the SecretStore made from spec.eso.provider bears its name, and an
 * object name has at most 253 characters.
 */
export const secretsManagementName = objectName;

/** A ServiceAccount of this namespace, by name: what the provider authenticates as (its token, never a key). */
const ServiceAccountRef = z
  .object({ name: objectName.describe("Name of a ServiceAccount in the SecretsManagement's namespace.") })
  .strict();

/** `https://host[:port][/]`: a server's address, as the providers take it. */
const serverUrl = (scheme: RegExp, example: string) =>
  z
    .string()
    .min(1)
    .max(253)
    .regex(scheme, { message: `must be a URL with a host and no path, e.g. ${example}` });

const HTTPS_URL = /^https:\/\/[a-zA-Z0-9]([-a-zA-Z0-9.]*[a-zA-Z0-9])?(:[0-9]{1,5})?\/?$/;
const HTTP_OR_HTTPS_URL = /^https?:\/\/[a-zA-Z0-9]([-a-zA-Z0-9.]*[a-zA-Z0-9])?(:[0-9]{1,5})?\/?$/;

/** A name of the provider's own (a role, a path, a tenant): printable ASCII without spaces or quotes. */
const providerText = (max: number, what: string) =>
  z
    .string()
    .min(1)
    .max(max)
    .regex(/^[-._:/@+=a-zA-Z0-9]+$/, {
      message: `must be ${what}: letters, digits and - . _ : / @ + =`,
    });

/** @default for `spec.eso.provider.azureKeyVault.authType`: no credential in the cluster at all. */
export const DEFAULT_AZURE_AUTH_TYPE = "WorkloadIdentity";

export const AzureKeyVaultProvider = z
  .object({
    vaultUrl: serverUrl(HTTPS_URL, "https://my-vault.vault.azure.net").describe(
      "The Key Vault's URL, e.g. https://my-vault.vault.azure.net.",
    ),
    authType: withDefault(z.enum(["WorkloadIdentity", "ManagedIdentity"]), { DEFAULT_AZURE_AUTH_TYPE }).describe(
      `How ESO authenticates to the vault: WorkloadIdentity (a ServiceAccount federated with Entra ID) or ManagedIdentity (the identity of the node's pods). Default ${DEFAULT_AZURE_AUTH_TYPE}. A service principal's secret is not offered: it would be a credential kept in the cluster.`,
    ),
    serviceAccountRef: ServiceAccountRef.optional().describe(
      "With WorkloadIdentity, the ServiceAccount federated with Entra ID (annotated azure.workload.identity/client-id). Default: ESO's own.",
    ),
    tenantId: z
      .string()
      .regex(/^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/, {
        message: "must be an Entra ID tenant id, a GUID (e.g. 72f988bf-86f1-41af-91ab-2d7cd011db47)",
      })
      .max(36)
      .optional()
      .describe("The Entra ID tenant of the vault, a GUID. Default: the ServiceAccount's annotation."),
  })
  .strict()
  .describe("Azure Key Vault (ESO provider azurekv).");
export type AzureKeyVaultProvider = z.infer<typeof AzureKeyVaultProvider>;

/** @default for `spec.eso.provider.vault.path`: the KV engine a Vault server mounts at first. */
export const DEFAULT_VAULT_PATH = "secret";
/** @default for `spec.eso.provider.vault.version`. */
export const DEFAULT_VAULT_KV_VERSION = "v2";
/** @default for `spec.eso.provider.vault.mountPath`. */
export const DEFAULT_VAULT_KUBERNETES_MOUNT = "kubernetes";

export const VaultProvider = z
  .object({
    server: serverUrl(HTTP_OR_HTTPS_URL, "https://vault.example.com:8200").describe(
      "The Vault server's address, e.g. https://vault.example.com:8200.",
    ),
    path: withDefault(providerText(253, "a Vault mount path"), { DEFAULT_VAULT_PATH }).describe(
      `Mount path of the KV secrets engine. Default ${DEFAULT_VAULT_PATH}.`,
    ),
    version: withDefault(z.enum(["v1", "v2"]), { DEFAULT_VAULT_KV_VERSION }).describe(
      `Version of the KV secrets engine. Default ${DEFAULT_VAULT_KV_VERSION}.`,
    ),
    namespace: providerText(253, "a Vault Enterprise namespace")
      .optional()
      .describe("The Vault Enterprise namespace, if any."),
    role: providerText(253, "a Vault role").describe(
      "The Vault role of the Kubernetes auth method, bound to the ServiceAccount.",
    ),
    mountPath: withDefault(providerText(253, "a Vault auth mount path"), { DEFAULT_VAULT_KUBERNETES_MOUNT }).describe(
      `Where the Kubernetes auth method is mounted in Vault. Default ${DEFAULT_VAULT_KUBERNETES_MOUNT}.`,
    ),
    serviceAccountRef: ServiceAccountRef.optional().describe(
      "The ServiceAccount whose token logs in to Vault. Default: ESO's own.",
    ),
  })
  .strict()
  .describe("HashiCorp Vault, KV engine, Kubernetes auth (ESO provider vault).");
export type VaultProvider = z.infer<typeof VaultProvider>;

/** @default for `spec.eso.provider.aws.service`. */
export const DEFAULT_AWS_SERVICE = "SecretsManager";

export const AwsProvider = z
  .object({
    service: withDefault(z.enum(["SecretsManager", "ParameterStore"]), { DEFAULT_AWS_SERVICE }).describe(
      `The AWS service the keys are read from. Default ${DEFAULT_AWS_SERVICE}.`,
    ),
    region: z
      .string()
      .max(32)
      .regex(/^[a-z]{2}(-[a-z]+)+-[0-9]+$/, { message: "must be an AWS region, e.g. eu-west-1" })
      .describe("The AWS region, e.g. eu-west-1."),
    role: z
      .string()
      .max(2048)
      .regex(/^arn:aws[-a-z]*:iam::[0-9]{12}:role\/[-\w+=,.@/]+$/, {
        message: "must be an IAM role ARN, e.g. arn:aws:iam::123456789012:role/secrets-reader",
      })
      .optional()
      .describe("An IAM role ARN to assume after authenticating."),
    serviceAccountRef: ServiceAccountRef.optional().describe(
      "The ServiceAccount annotated for IAM Roles for Service Accounts (eks.amazonaws.com/role-arn) whose token authenticates. Default: ESO's own credentials.",
    ),
  })
  .strict()
  .describe("AWS Secrets Manager or Parameter Store (ESO provider aws).");
export type AwsProvider = z.infer<typeof AwsProvider>;

const gcpName = (what: string) =>
  z
    .string()
    .min(1)
    .max(63)
    .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, { message: `must be ${what}: lowercase letters, digits and '-'` });

export const GcpProvider = z
  .object({
    projectID: z
      .string()
      .max(30)
      .regex(/^[a-z][-a-z0-9]{4,28}[a-z0-9]$/, { message: "must be a GCP project id, e.g. my-project-123" })
      .describe("The GCP project holding the secrets."),
    workloadIdentity: z
      .object({
        serviceAccountRef: ServiceAccountRef.describe(
          "The ServiceAccount bound to a Google service account (iam.gke.io/gcp-service-account).",
        ),
        clusterLocation: gcpName("a GCP location")
          .optional()
          .describe("The cluster's location. Default: read from the metadata server."),
        clusterName: gcpName("a GKE cluster name")
          .optional()
          .describe("The cluster's name. Default: read from the metadata server."),
        clusterProjectID: gcpName("a GCP project id")
          .optional()
          .describe("The cluster's project. Default: read from the metadata server."),
      })
      .strict()
      .optional()
      .describe("GKE Workload Identity. Default: ESO's own credentials (the node's or its pod's identity)."),
  })
  .strict()
  .describe("GCP Secret Manager (ESO provider gcpsm).");
export type GcpProvider = z.infer<typeof GcpProvider>;

const PROVIDERS = ["azureKeyVault", "vault", "aws", "gcp"] as const;

const ONE_PROVIDER: SpecRule = {
  rule: `${PROVIDERS.map((p) => `(has(self.${p}) ? 1 : 0)`).join(" + ")} == 1`,
  message: `spec.eso.provider names exactly one provider: ${PROVIDERS.join(", ")}`,
  path: [],
};

export const EsoProvider = z
  .object({
    azureKeyVault: AzureKeyVaultProvider.optional(),
    vault: VaultProvider.optional(),
    aws: AwsProvider.optional(),
    gcp: GcpProvider.optional(),
  })
  .strict()
  .superRefine((provider, ctx) => {
    if (PROVIDERS.filter((p) => provider[p] !== undefined).length !== 1)
      ctx.addIssue({ code: "custom", message: ONE_PROVIDER.message, path: [...ONE_PROVIDER.path] });
  })
  .meta({ "x-kubernetes-validations": [{ rule: ONE_PROVIDER.rule, message: ONE_PROVIDER.message }] })
  .describe(
    "The provider the keys are read from: exactly one of azureKeyVault, vault, aws and gcp. The product makes a SecretStore in this namespace from it, named after this resource.",
  );
export type EsoProvider = z.infer<typeof EsoProvider>;

/** A Secret key, as the apiserver accepts one (ESO's secretKey has the same rule). */
const secretKey = z
  .string()
  .min(1)
  .max(253)
  .regex(/^[-._a-zA-Z0-9]+$/, { message: "must consist of letters, digits, '-', '_' or '.'" });

export const RemoteKey = z
  .object({
    key: secretKey.describe("The key in the Secret."),
    remoteKey: z
      .string()
      .min(1)
      .max(512)
      .regex(/^[-._+=@/a-zA-Z0-9]+$/, { message: "must consist of letters, digits and - . _ + = @ /" })
      .describe("The secret's name (or path) in the provider, e.g. litellm-openai-key, or apps/gateway for Vault."),
    property: z
      .string()
      .min(1)
      .max(253)
      .regex(/^[-._/a-zA-Z0-9]+$/, { message: "must consist of letters, digits and - . _ /" })
      .optional()
      .describe("A property of a structured (JSON) remote secret. Default: the whole value."),
  })
  .strict();
export type RemoteKey = z.infer<typeof RemoteKey>;

/** Refuses a list that names an item twice, as the apiserver refuses it (the list is keyed by `by`). */
function refuseDuplicates<T>(
  items: readonly T[],
  by: (item: T) => string,
  field: string,
  key: string,
  ctx: z.RefinementCtx,
) {
  const seen = new Set<string>();
  items.forEach((item, index) => {
    const name = by(item);
    if (seen.has(name))
      ctx.addIssue({
        code: "custom",
        message: `${field} must name each ${key} once: "${name}" appears twice; remove or rename the duplicate`,
        path: [index, key],
      });
    seen.add(name);
  });
}

/** The most Secrets one SecretsManagement declares, and keys one Secret holds. */
export const MAX_SECRETS = 100;

export const EsoSecret = z
  .object({
    name: objectName.describe("The Secret's name in this namespace; its ExternalSecret bears the same name."),
    data: z
      .array(RemoteKey)
      .min(1)
      .max(MAX_SECRETS)
      .superRefine((data, ctx) => refuseDuplicates(data, (d) => d.key, "the keys of a Secret", "key", ctx))
      .meta({ "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["key"] })
      .describe("Its keys, each read from a remote key of the store."),
  })
  .strict();
export type EsoSecret = z.infer<typeof EsoSecret>;

/** The store of an eso backend: one of the two, stated for zod and for the apiserver. */
const ONE_STORE: SpecRule = {
  rule: "has(self.provider) != has(self.clusterSecretStoreRef)",
  message:
    "spec.eso needs exactly one of provider (a SecretStore the product makes) and clusterSecretStoreRef (a ClusterSecretStore you own)",
  path: ["provider"],
};

/** @default for `spec.eso.refreshInterval`: ESO's own default. */
export const DEFAULT_REFRESH_INTERVAL = "1h";

/**
 * An ExternalSecret's `refreshInterval`: ESO declares it a metav1.Duration (apis/externalsecrets/v1/
 * externalsecret_types.go), a Go duration string read by time.ParseDuration, 0s to read once; its CRD
 * types it a bare string (config/crds/bases/external-secrets.io_externalsecrets.yaml), so the apiserver
 * takes any text, and ESO's controller cannot decode an object whose duration has an unknown unit or lies
 * past Go's range (GO_MAX_DURATION). Judged here instead, by `goDuration`.
 */
const refreshInterval = goDuration("1h, 15m or 1h30m; 0 reads once");

export const Eso = z
  .object({
    provider: EsoProvider.optional(),
    clusterSecretStoreRef: z
      .object({ name: objectName.describe("Name of the ClusterSecretStore.") })
      .strict()
      .optional()
      .describe(
        "A ClusterSecretStore you own, instead of provider: nothing is made for the store; its Ready condition is read. Its spec.conditions must let this namespace use it.",
      ),
    refreshInterval: withDefault(refreshInterval, { DEFAULT_REFRESH_INTERVAL }).describe(
      `How often ESO reads the remote keys again: a Go duration, units h, m, s, ms, us, ns in that order, at most 999999h; 0 reads them once. Default ${DEFAULT_REFRESH_INTERVAL}.`,
    ),
    secrets: z
      .array(EsoSecret)
      .max(MAX_SECRETS)
      .default([])
      .superRefine((secrets, ctx) => refuseDuplicates(secrets, (s) => s.name, "spec.eso.secrets", "name", ctx))
      .meta({ "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"] })
      .describe(
        "The Secrets to materialise in this namespace, one ExternalSecret each (owned by this resource, the Secret owned by it). Default: none.",
      ),
  })
  .strict()
  .superRefine((eso, ctx) => {
    if ((eso.provider === undefined) === (eso.clusterSecretStoreRef === undefined))
      ctx.addIssue({ code: "custom", message: ONE_STORE.message, path: [...ONE_STORE.path] });
  })
  .meta({ "x-kubernetes-validations": [{ rule: ONE_STORE.rule, message: ONE_STORE.message }] })
  .describe("The External Secrets Operator backend (backend eso).");
export type Eso = z.infer<typeof Eso>;

export const SealedSecrets = z
  .object({
    secrets: z
      .array(z.object({ name: objectName.describe("The Secret's name in this namespace.") }).strict())
      .max(MAX_SECRETS)
      .default([])
      .superRefine((secrets, ctx) =>
        refuseDuplicates(secrets, (s) => s.name, "spec.sealedSecrets.secrets", "name", ctx),
      )
      .meta({ "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"] })
      .describe(
        "The Secrets your committed SealedSecrets produce in this namespace (a SealedSecret's Secret bears its name). Default: none.",
      ),
  })
  .strict()
  .describe(
    "The Sealed Secrets backend (backend sealed-secrets): the product makes nothing, it installs the controller.",
  );
export type SealedSecrets = z.infer<typeof SealedSecrets>;

export const SecretsBackend = z
  .enum(["eso", "sealed-secrets"])
  .describe(
    "eso: Secrets read from a provider (Azure Key Vault, Vault, AWS, GCP) by the External Secrets Operator. sealed-secrets: Secrets decrypted from SealedSecrets you commit, by the Sealed Secrets controller.",
  );
export type SecretsBackend = z.infer<typeof SecretsBackend>;

/** Each backend's block: required with it (eso's), allowed with no other. */
export const SECRETS_SPEC_RULES: readonly SpecRule[] = [
  {
    rule: "self.backend != 'eso' || has(self.eso)",
    message: "spec.eso is required when spec.backend is eso: set spec.eso.provider (or spec.eso.clusterSecretStoreRef)",
    path: ["eso"],
  },
  {
    rule: "self.backend == 'eso' || !has(self.eso)",
    message: "spec.eso is only allowed when spec.backend is eso: remove it or set spec.backend: eso",
    path: ["eso"],
  },
  {
    rule: "self.backend == 'sealed-secrets' || !has(self.sealedSecrets)",
    message:
      "spec.sealedSecrets is only allowed when spec.backend is sealed-secrets: remove it or set spec.backend: sealed-secrets",
    path: ["sealedSecrets"],
  },
];

function brokenRules(spec: { backend: string; eso?: unknown; sealedSecrets?: unknown }): SpecRule[] {
  const [esoRequired, esoOnly, sealedOnly] = SECRETS_SPEC_RULES;
  return [
    ...(spec.backend === "eso" && spec.eso === undefined && esoRequired ? [esoRequired] : []),
    ...(spec.backend !== "eso" && spec.eso !== undefined && esoOnly ? [esoOnly] : []),
    ...(spec.backend !== "sealed-secrets" && spec.sealedSecrets !== undefined && sealedOnly ? [sealedOnly] : []),
  ];
}

export const SecretsManagementSpec = z
  .object({
    backend: SecretsBackend,
    eso: Eso.optional(),
    sealedSecrets: SealedSecrets.optional(),
  })
  .strict()
  .superRefine((spec, ctx) => {
    for (const broken of brokenRules(spec))
      ctx.addIssue({ code: "custom", message: broken.message, path: [...broken.path] });
  })
  .meta({ "x-kubernetes-validations": SECRETS_SPEC_RULES.map(({ rule, message }) => ({ rule, message })) })
  .describe(
    "Where the Secrets of this namespace come from; one SecretsManagement per namespace. Workloads name it in their secretsRef.",
  );
export type SecretsManagementSpec = z.infer<typeof SecretsManagementSpec>;
/** What a program writes as a SecretsManagement's spec, each field documented (generated from SecretsManagementSpec). */
export type { SecretsManagementSpecInput } from "../../api/generated/secrets-management-spec.js";

export const ProvidedSecret = z
  .object({
    name: objectName.describe("The Secret's name in the SecretsManagement's namespace."),
    ready: z.boolean().describe("Whether it is there, synced from its backend."),
  })
  .strict();
export type ProvidedSecret = z.infer<typeof ProvidedSecret>;

export const SecretsManagementStatus = z
  .object({
    ...ENGINE_STATUS,
    backend: SecretsBackend.optional().describe(
      "The backend last reconciled; compared with spec.backend to collect what the former one made.",
    ),
    provenance: z
      .enum(["owned", "adopted"])
      .optional()
      .describe(
        "Who owns the store: owned (a SecretStore the product made), adopted (your ClusterSecretStore, or your SealedSecrets).",
      ),
    store: z
      .object({
        kind: z.string().describe("SecretStore (made from spec.eso.provider) or ClusterSecretStore (yours)."),
        name: z.string().describe("Its name."),
      })
      .strict()
      .optional()
      .describe("The ESO store its ExternalSecrets read from (SecretStore or ClusterSecretStore)."),
    secrets: z
      .array(ProvidedSecret)
      .optional()
      .describe("The Secrets it provides in its namespace, and whether each is there: what a secretsRef may read."),
  })
  .strict();
export type SecretsManagementStatus = z.infer<typeof SecretsManagementStatus>;

/** A SecretsManagement as stored in the cluster. */
export const SecretsManagement = storedResource(
  SECRETS_MANAGEMENT_KIND,
  SecretsManagementSpec,
  SecretsManagementStatus,
  secretsManagementName,
);
export type SecretsManagement = z.infer<typeof SecretsManagement>;

const text = (name: string, jsonPath: string, description: string): PrinterColumn => ({
  name,
  type: "string",
  jsonPath,
  description,
});

export const SECRETS_MANAGEMENT_DEFINITION: KindDefinition = {
  kind: SECRETS_MANAGEMENT_KIND,
  plural: SECRETS_MANAGEMENT_PLURAL,
  singular: "secretsmanagement",
  shortNames: ["scm"],
  scope: "Namespaced",
  description:
    "Where a namespace's Secrets come from: the External Secrets Operator (a provider's remote keys, one ExternalSecret per Secret) or Sealed Secrets (SealedSecrets you commit), the controller installed by the product. One per namespace.",
  spec: SecretsManagementSpec,
  status: SecretsManagementStatus,
  printerColumns: [
    text("Backend", ".spec.backend", "eso or sealed-secrets"),
    text("Provenance", ".status.provenance", "Who owns the store"),
    READY_COLUMN,
    { ...text("Store", ".status.store.name", "The ESO store read from"), priority: 1 },
    AGE_COLUMN,
  ],
};
