import type { CapabilityInstallObserver } from "../../lib/capabilities/install-observer.js";

/**
 * How a pass of one resource ended: `success` (nothing left to do until something changes), `requeue`
 * (looked at again soon: not Ready yet, a rollout under way) or `error` (failed, retried after a backoff).
 */
export type ReconcileResult = "success" | "error" | "requeue";

/**
 * What an operator tells of its work as it goes: each pass with its resource's kind, how it ended and how
 * long it took, and each capability install it began. The metrics implement it (operator-metrics.ts); an
 * interface, so that NaviqueOperator and the core load nothing of how it is counted, and an operator made
 * in a test or a bench without one counts nothing.
 */
export interface OperatorObserver extends CapabilityInstallObserver {
  reconciled(kind: string, result: ReconcileResult, seconds: number): void;
}
