import type { PublishedClaim } from "../../api/resource-status.js";
import { type Claim, claimDigest } from "../../engine/claims.js";
import { type KubeObject, keyOf } from "../../engine/objects.js";
import type { DesiredStep } from "../../engine/steps.js";
import type { EngineView } from "../../engine/view.js";
import { LITELLM_API_VERSION, LITELLM_VIRTUAL_KEY, type LiteLLMVirtualKeyStatus } from "./litellm-api.js";
import type { Gateway } from "./schema.js";

/** The LiteLLMVirtualKey (and the Secret the operator writes its key into) of a claim: `<gateway>-vk-<digest>`. */
export function virtualKeyName(gateway: Gateway, claim: Pick<Claim, "claimant">): string {
  return `${gateway.metadata.name}-vk-${claimDigest(claim.claimant)}`;
}

/** What a Gateway makes for the claims on it: a virtual key each, and what it publishes of those issued. */
export interface VirtualKeys {
  readonly steps: readonly DesiredStep[];
  readonly published: readonly PublishedClaim[];
}

/**
 * One LiteLLM virtual key per consumer auto-wired to the gateway (a ChatUI's claim, lib/engine/claims.ts):
 * a LiteLLMVirtualKey beside the instance (the operator resolves instanceRef in its own namespace), aliased
 * by its consumer; the operator generates the key through the proxy and writes it into the Secret named
 * `keySecretName`. A claim is published once the operator reports the key synced, naming that Secret and
 * its key; until then its consumer waits (ClaimPending), the gateway itself stays Ready. A claim gone, its
 * LiteLLMVirtualKey is collected and the operator revokes the key (`POST /key/delete`, its finalizer).
 */
export function virtualKeys(gateway: Gateway, view: EngineView): VirtualKeys {
  const { name, namespace } = gateway.metadata;
  const made = (view.claims ?? []).map((claim) => {
    const object: KubeObject = {
      apiVersion: LITELLM_API_VERSION,
      kind: LITELLM_VIRTUAL_KEY.kind,
      metadata: { name: virtualKeyName(gateway, claim), namespace },
      spec: { instanceRef: { name }, keyAlias: claim.claimant, keySecretName: virtualKeyName(gateway, claim) },
    };
    const status = view.objects.get(keyOf(object))?.status as LiteLLMVirtualKeyStatus | undefined;
    const issued = status?.synced && status.keySecretRef ? status.keySecretRef : undefined;
    return { claim, object, issued };
  });
  return {
    steps: made.map(
      (m): DesiredStep => ({
        kind: "apply",
        object: m.object,
        description: `apply LiteLLMVirtualKey ${namespace}/${m.object.metadata.name} (a key of its own for ${m.claim.claimant})`,
      }),
    ),
    published: made.flatMap((m) =>
      m.issued
        ? [
            {
              claimant: m.claim.claimant,
              credentialsSecret: { name: m.issued.name, namespace },
              keys: { apiKey: m.issued.key },
            },
          ]
        : [],
    ),
  };
}
