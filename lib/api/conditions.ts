import { z } from "zod";

export const ConditionStatus = z.enum(["True", "False", "Unknown"]);

/** A status condition, shaped like metav1.Condition. */
export const Condition = z
  .object({
    type: z.string().min(1).describe("Condition type, e.g. Ready, OperatorsReady, DatastoreReady."),
    status: ConditionStatus.describe("True, False or Unknown."),
    reason: z.string().min(1).describe("CamelCase reason, stable for machines."),
    message: z.string().describe("What happened and, when something is wrong, what to do."),
    observedGeneration: z.number().int().min(0).optional().describe("The spec generation this condition describes."),
    lastTransitionTime: z.string().optional().describe("When the status last changed (RFC 3339)."),
  })
  .strict();
export type Condition = z.infer<typeof Condition>;

/** Condition types shared by every kind; each kind adds phase conditions of its own. */
export const READY = "Ready";
export const OPERATORS_READY = "OperatorsReady";
export const DATASTORE_READY = "DatastoreReady";

/**
 * Whether a resource already reports this problem (a condition of `type`, False, for `reason`). Its
 * Event is recorded only when it is not, so that a resource waiting for room, a licence or a namespace
 * does not repeat it at every pass.
 */
export function reportedBefore(
  previous: readonly { readonly type: string; readonly status: string; readonly reason: string }[] | undefined,
  type: string,
  reason: string,
): boolean {
  return previous?.some((c) => c.type === type && c.status === "False" && c.reason === reason) ?? false;
}
