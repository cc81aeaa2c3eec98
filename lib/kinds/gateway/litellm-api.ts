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
