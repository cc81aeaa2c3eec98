import type { Verdict } from "../../engine/kind-module.js";
import { type KubeObject, keyOf } from "../../engine/objects.js";
import type { DesiredStep } from "../../engine/steps.js";
import type { EngineView } from "../../engine/view.js";
import type { LiteLLMIdentityStatus } from "../gateway/litellm-api.js";

/** The condition an identity reports its LiteLLM object on. */
export const IDENTITY_SYNCED = "IdentitySynced";

/**
 * The decision every identity makes: apply its LiteLLM object beside the gateway's instance, and be
 * Ready once the LiteLLM operator reports it synced — LiteLLM holds it. Until then it says what it waits
 * for, with the operator's own condition message when it wrote one (an Enterprise-only feature, say).
 */
export function syncedIdentity(
  object: KubeObject,
  view: EngineView,
  idOf: (status: LiteLLMIdentityStatus) => string | undefined,
  extra: readonly DesiredStep[] = [],
): { steps: DesiredStep[]; verdict: Verdict; status: { litellmId?: string; spend?: number } } {
  const { namespace, name } = object.metadata;
  const label = `${object.kind} ${namespace}/${name}`;
  const live = view.objects.get(keyOf(object))?.status as LiteLLMIdentityStatus | undefined;
  const id = live ? idOf(live) : undefined;
  const said = live?.conditions?.find((c) => c.status === "False")?.message;
  return {
    steps: [...extra, { kind: "apply", object, description: `apply ${label}` }],
    status: {
      ...(id ? { litellmId: id } : {}),
      ...(live?.currentSpend !== undefined ? { spend: live.currentSpend } : {}),
    },
    verdict:
      live?.synced === true
        ? { ok: true, reason: "Synced", message: `LiteLLM holds it (${label})` }
        : {
            ok: false,
            reason: "WaitingForLiteLLM",
            message: `waiting for the LiteLLM operator to sync ${label}${said ? `: ${said}` : ""}`,
          },
  };
}
