import type { BackendTypes } from "../api/backend-types.js";
import type { Verdict } from "./kind-module.js";

/** Reason of the phase condition of a resource whose `spec.type` its kind declares but does not implement. */
export const NOT_IMPLEMENTED = "NotImplemented";

/**
 * The verdict on a resource whose `spec.type` is declared by its kind's schema but not implemented: the
 * operator's condition, `navique plan`, `pulumi preview` and cdk8s synth all say this. Stalled: only a
 * change of the spec clears it. Undefined for an implemented type (or a kind without backend types).
 */
export function notImplemented(types: BackendTypes | undefined, spec: unknown): Verdict | undefined {
  const type = (spec as { readonly type?: unknown } | undefined)?.type;
  if (!types || typeof type !== "string" || types.implemented.includes(type)) return undefined;
  return {
    ok: false,
    reason: NOT_IMPLEMENTED,
    message: `spec.type ${type} is not implemented yet; use ${types.instead}`,
    stalled: true,
  };
}
