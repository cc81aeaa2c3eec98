import { type Condition, failedConditions, failureReportedBefore, type ReportedFailure } from "../api/conditions.js";
import type { PlannedEvent } from "./steps.js";

/** What a plan of any kind holds that a failure changes. */
interface ReportablePlan {
  readonly conditions: readonly Condition[];
  readonly events: readonly PlannedEvent[];
  readonly status: { readonly conditions: readonly Condition[] };
  readonly requeue: boolean;
}

/** The resource planned for, as much of it as reporting a failure needs. */
interface Reported {
  readonly metadata: { readonly generation?: number | undefined };
  readonly status?: { readonly conditions?: readonly Condition[] } | undefined;
}

/**
 * The plan of a pass whose step failed, as it is reported, for every kind: the failed phase's condition
 * (`phase`) and Ready False with the failure's reason and message, everything else as planned, and one
 * Warning Event unless the resource already reports this very failure (a retry is not a new cause).
 */
export function withFailure<P extends ReportablePlan>(
  resource: Reported,
  plan: P,
  phase: string,
  failure: ReportedFailure & { readonly fingerprint: string },
): P {
  const conditions = failedConditions(plan.status.conditions, phase, failure, resource.metadata.generation ?? 0);
  const reported = failureReportedBefore(resource.status?.conditions, phase, failure);
  const event: PlannedEvent = {
    type: "Warning",
    reason: failure.reason,
    message: failure.message,
    cause: failure.fingerprint,
  };
  return {
    ...plan,
    conditions,
    events: [...plan.events, ...(reported ? [] : [event])],
    status: { ...plan.status, conditions },
    requeue: true,
  };
}
