import * as z from "zod";

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
 * Present, and True, only while the resource cannot become Ready without a change made by someone — its
 * spec, an object it names, the licence, a grant —, never while it is merely waiting for something to
 * happen. The condition kstatus (sigs.k8s.io/cli-utils pkg/kstatus/status/generic.go) reads: Stalled=True
 * makes the resource Failed there, so Flux health checks and `kubectl wait --for=condition=Stalled` stop
 * at once instead of running into their timeout; `pulumi up` fails at once on it too. Its reason and
 * message are Ready's.
 */
export const STALLED = "Stalled";

/** The Stalled condition when it is True: the cause waiting cannot clear. */
export function stalledOf(conditions: readonly Condition[] | undefined): Condition | undefined {
  return conditions?.find((c) => c.type === STALLED && c.status === "True");
}

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

/** A step's real failure, as conditions report it (reason CamelCase; message saying what to do). */
export interface ReportedFailure {
  readonly reason: string;
  readonly message: string;
  /** Retrying cannot clear it: only a change by someone can (a refusal by the apiserver, a missing permission). */
  readonly stalled?: boolean;
}

/**
 * The conditions of a pass whose step failed: the phase condition the step belongs to (`phase`) and
 * Ready turn False with the failure's reason and message; the others stay as planned. A phase of Ready
 * alone (a step of no phase) changes Ready only. Stalled follows Ready: there when the failure is one
 * that retrying cannot clear, gone otherwise.
 */
export function failedConditions(
  planned: readonly Condition[],
  phase: string,
  failure: ReportedFailure,
  observedGeneration: number,
): Condition[] {
  const failed = (type: string): Condition => ({
    type,
    status: "False",
    reason: failure.reason,
    message: failure.message,
    observedGeneration,
  });
  const types = new Set([READY, phase]);
  const conditions = planned.filter((c) => c.type !== STALLED).map((c) => (types.has(c.type) ? failed(c.type) : c));
  for (const type of types) if (!conditions.some((c) => c.type === type)) conditions.push(failed(type));
  if (failure.stalled) conditions.push({ ...failed(STALLED), status: "True" });
  return conditions;
}

/**
 * Whether a resource already reports this very failure (its phase condition False with the same reason
 * and message): its Warning Event is recorded only when it does not, so that a failure retried with
 * backoff is one Event, not one per retry.
 */
export function failureReportedBefore(
  previous: readonly Condition[] | undefined,
  phase: string,
  failure: ReportedFailure,
): boolean {
  return (
    previous?.some(
      (c) => c.type === phase && c.status === "False" && c.reason === failure.reason && c.message === failure.message,
    ) ?? false
  );
}
