import type { Condition } from "../../api/conditions.js";
import type { EmittedKind } from "../../engine/kind-module.js";

// The LiteLLM operator's API as the product uses it. Facts read in PalenaAI/litellm-operator chart 0.23.0
// (crds/litellm.palena.ai_litellminstances.yaml, crds/litellm.palena.ai_litellmmodels.yaml) and its
// controllers (internal/controller): docs/gateway.md says where each comes from.

export const LITELLM_GROUP = "litellm.palena.ai";
export const LITELLM_API_VERSION = `${LITELLM_GROUP}/v1alpha1`;

export const LITELLM_INSTANCE: EmittedKind = {
  apiVersion: LITELLM_API_VERSION,
  kind: "LiteLLMInstance",
  plural: "litellminstances",
};

export const LITELLM_MODEL: EmittedKind = {
  apiVersion: LITELLM_API_VERSION,
  kind: "LiteLLMModel",
  plural: "litellmmodels",
};

export const LITELLM_VIRTUAL_KEY: EmittedKind = {
  apiVersion: LITELLM_API_VERSION,
  kind: "LiteLLMVirtualKey",
  plural: "litellmvirtualkeys",
};

/**
 * What the operator writes on a LiteLLMVirtualKey once it has generated the key through the proxy
 * (`POST /key/generate`): `synced`, and `keySecretRef`, the Secret it wrote the key into and its key
 * (`api_key`). Read in internal/controller/litellmvirtualkey_controller.go; docs/gateway.md.
 */
export interface LiteLLMVirtualKeyStatus {
  readonly synced?: boolean;
  readonly keySecretRef?: { readonly name: string; readonly key: string };
  readonly conditions?: readonly Condition[];
}

/** The proxy's port: the Service's default `spec.service.port`, the container's port 4000. */
export const LITELLM_PORT = 4000;

/** What the operator writes on a LiteLLMInstance: `ready` once its Deployment has a ready replica. */
export interface LiteLLMInstanceStatus {
  readonly ready?: boolean;
  readonly endpoint?: string;
  readonly conditions?: readonly Condition[];
}

/** What the operator writes on a LiteLLMModel: `synced` once the proxy holds the model. */
export interface LiteLLMModelStatus {
  readonly synced?: boolean;
  readonly conditions?: readonly Condition[];
}

/** The instance's Service and Deployment, which the operator names after it. */
export function proxyHost(instance: string, namespace: string): string {
  return `${instance}.${namespace}.svc`;
}

// The identities (Organization, Team, User) map to these. Facts read in PalenaAI/litellm-operator
// api/v1alpha1/litellm{organization,team,user}_types.go and common_types.go: every reference
// (`instanceRef`, `teams[].teamRef`) names an object of the resource's own namespace; docs/identities.md.

export const LITELLM_ORGANIZATION: EmittedKind = {
  apiVersion: LITELLM_API_VERSION,
  kind: "LiteLLMOrganization",
  plural: "litellmorganizations",
};

export const LITELLM_TEAM: EmittedKind = {
  apiVersion: LITELLM_API_VERSION,
  kind: "LiteLLMTeam",
  plural: "litellmteams",
};

export const LITELLM_USER: EmittedKind = {
  apiVersion: LITELLM_API_VERSION,
  kind: "LiteLLMUser",
  plural: "litellmusers",
};

/**
 * What the operator writes on a LiteLLMOrganization, LiteLLMTeam or LiteLLMUser once LiteLLM holds it:
 * `synced`, the id LiteLLM gave it (`litellmOrganizationId`, `litellmTeamId`, `litellmUserId`) and the
 * spend so far in USD.
 */
export interface LiteLLMIdentityStatus {
  readonly synced?: boolean;
  readonly litellmOrganizationId?: string;
  readonly litellmTeamId?: string;
  readonly litellmUserId?: string;
  readonly currentSpend?: number;
  readonly conditions?: readonly Condition[];
}
