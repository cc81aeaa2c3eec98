/**
 * A real failure of one step of a reconcile (an install refused or failed, an object the apiserver
 * rejected), as it is reported on the resource: a stable CamelCase `reason` for the condition and the
 * Event, and a message that says what went wrong and what to do. `fingerprint` identifies the cause, so
 * that the same cause is not retried into new side effects (a new Helm revision) and is reported once.
 */
export class StepFailure extends Error {
  override name = "StepFailure";

  constructor(
    readonly reason: string,
    message: string,
    readonly fingerprint: string = `${reason}:${message}`,
    options?: { readonly cause?: unknown; readonly stalled?: boolean },
  ) {
    super(message, options);
    this.stalled = options?.stalled ?? false;
  }

  /** Retrying cannot clear it: only a change by someone can (see STALLED in lib/api/conditions.ts). */
  readonly stalled: boolean;
}
