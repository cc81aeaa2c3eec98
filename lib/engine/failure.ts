import { ApiException } from "@kubernetes/client-node";
import { StepFailure } from "../capabilities/step-failure.js";
import { CATALOG } from "../catalog/catalog.js";
import { ChartSourceError } from "../catalog/chart-source.js";
import { type FailedWebhookCall, failedWebhookCall } from "../cluster/admission-webhook-failure.js";
import { CommandFailedError, killedBy } from "../cluster/process.js";

/** The longest error summary a condition, an Event and a log line carry. */
const SUMMARY_LIMIT = 400;

/** What a failed step did, as much of it as naming the failure needs. */
export interface FailedStep {
  readonly kind: string;
  readonly description: string;
  /** The object applied or created, when the step applies one. */
  readonly object?: {
    readonly kind: string;
    readonly metadata: { readonly name: string; readonly namespace?: string };
    readonly stringData?: Readonly<Record<string, string>>;
  };
  /** The object deleted or released, when the step removes one. */
  readonly target?: { readonly kind: string; readonly name: string; readonly namespace: string };
  /** The capability installed or released, when the step is about one. */
  readonly capability?: string;
}

/**
 * One or two lines of an error: its first lines, whitespace collapsed, cut to a bounded length. A stack
 * trace or a response dump never reaches a condition, an Event or a log line through here.
 */
export function summarise(text: string, limit = SUMMARY_LIMIT): string {
  const lines = text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line.length > 0 && !/^at\s/.test(line));
  const flat = lines.slice(0, 2).join(" ").replace(/\s+/g, " ");
  return flat.length > limit ? `${flat.slice(0, limit - 1)}…` : flat;
}

/** The apiserver's own message in a refused request (its Status body), when it sent one. */
function apiserverMessage(error: ApiException<unknown>): string | undefined {
  let body: unknown = error.body;
  const text = typeof body === "string" ? body : undefined;
  if (text !== undefined) {
    try {
      body = JSON.parse(text);
    } catch {
      return text.length > 0 ? text : undefined;
    }
  }
  const message = (body as { message?: unknown } | undefined)?.message;
  return typeof message === "string" ? message : undefined;
}

/**
 * A request the apiserver refused as invalid (400, 422: a schema, a CEL rule, an admission policy) as
 * one sentence with what it said — which names the field — or undefined for any other failure.
 */
export function apiserverRefusal(error: unknown): string | undefined {
  if (!(error instanceof ApiException) || (error.code !== 422 && error.code !== 400)) return undefined;
  return `the apiserver refused it (${error.code}): ${summarise(apiserverMessage(error) ?? `HTTP ${error.code}`)}`;
}

/** The line of a failed command's output that names the error (helm's `Error: …`), else its last line. */
function commandError(error: CommandFailedError): string {
  const killed = killedBy(error.command, error.result);
  if (killed) return killed;
  const lines = (error.result.stderr || error.result.stdout)
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);
  return lines.find((l) => /^Error\b/.test(l)) ?? lines[lines.length - 1] ?? `exit code ${error.result.code}`;
}

/** What a step acts on, as a phrase: `Secret ns/name`. */
function subjectOf(step: FailedStep): string {
  if (step.object) {
    const { name, namespace } = step.object.metadata;
    return `${step.object.kind} ${namespace ? `${namespace}/` : ""}${name}`;
  }
  if (step.target) return `${step.target.kind} ${step.target.namespace}/${step.target.name}`;
  if (step.capability) return `capability ${step.capability}`;
  return step.description;
}

/** Values that must never be printed: the credentials the step carries. */
function redact(text: string, step: FailedStep): string {
  let out = text;
  for (const value of Object.values(step.object?.stringData ?? {})) {
    if (value.length >= 4) out = out.split(value).join("<redacted>");
  }
  return out;
}

const VERB: Record<string, string> = {
  apply: "apply of",
  "generate-secret": "creation of",
  delete: "deletion of",
  retain: "release of",
  "ensure-capability": "install of",
  "release-capability": "release of",
  "remove-finalizer": "finalizer removal of",
};

/** Reasons for errors that carry none of their own, by the kind of step that failed. */
const STEP_REASON: Record<string, string> = {
  apply: "ApplyFailed",
  "generate-secret": "CredentialsFailed",
  delete: "DeleteFailed",
  retain: "RetainFailed",
  "ensure-capability": "InstallFailed",
  "release-capability": "ReleaseFailed",
  "remove-finalizer": "FinalizeFailed",
};

/** Reason of a step failure when the apiserver could not call an admission webhook for it. */
export const ADMISSION_WEBHOOK_FAILED = "AdmissionWebhookFailed";

/** The reason of a write refused because the namespace it goes to is being deleted. */
export const NAMESPACE_TERMINATING = "NamespaceTerminating";

/**
 * kube-apiserver's NamespaceLifecycle admission plugin's refusal (403 Forbidden): "unable to create new
 * content in namespace NS because it is being terminated".
 */
const TERMINATING_NAMESPACE = /unable to create new content in namespace \S+ because it is being terminated/;

/**
 * A write the apiserver could not admit because an admission webhook it must call (failurePolicy Fail)
 * did not answer: the webhook is named, with its Service and — when that Service lives in a capability's
 * release namespace — the capability, so that the reader looks there and not at the apiserver.
 */
function webhookFailure(
  step: FailedStep,
  call: FailedWebhookCall,
  subject: string,
  verb: string,
  code: number,
  said: string,
): StepFailure {
  const { service } = call;
  const owner = service
    ? [...CATALOG.values()].find((entry) => entry.release.namespace === service.namespace)
    : undefined;
  const where = service ? `Its Service ${service.namespace}/${service.name}` : "Its Service";
  const capability = owner
    ? `; it belongs to capability ${owner.name} (release ${owner.release.namespace}/${owner.release.name}): check that its controller is Ready`
    : "";
  return new StepFailure(
    ADMISSION_WEBHOOK_FAILED,
    `admission webhook "${call.webhook}" could not be called for the ${verb} ${subject} (${code}): ${said}. ${where} has no ready endpoint or does not answer: check the Deployment behind it${capability}. The next pass retries`,
    `${ADMISSION_WEBHOOK_FAILED}:${step.kind}:${subject}:${call.webhook}`,
  );
}

function apiFailure(step: FailedStep, error: ApiException<unknown>, subject: string, verb: string): StepFailure {
  const said = summarise(apiserverMessage(error) ?? `HTTP ${error.code}`);
  const code = error.code;
  if (code === 422 || code === 400) {
    return new StepFailure(
      "ApplyRejected",
      `the apiserver refused the ${verb} ${subject} (${code}): ${said}. Correct what it names (this resource's spec or name, or the object in the way) and the next retry applies it`,
      `ApplyRejected:${step.kind}:${subject}:${said}`,
      { stalled: true },
    );
  }
  if (code === 403 && TERMINATING_NAMESPACE.test(said)) {
    // The NamespaceLifecycle admission refuses new content in a namespace being deleted: no permission is
    // missing, and what would be written goes with the namespace.
    return new StepFailure(
      NAMESPACE_TERMINATING,
      `the ${verb} ${subject} was refused because its namespace is being deleted (${code}): ${said}. Nothing to grant: what the namespace held goes with it; if it should stay, recreate the namespace once it is gone and the next pass writes this again`,
      `${NAMESPACE_TERMINATING}:${step.kind}:${subject}`,
    );
  }
  if (code === 401 || code === 403) {
    return new StepFailure(
      "Forbidden",
      `the apiserver forbade the ${verb} ${subject} (${code}): ${said}. Grant the operator's service account this permission (see its ClusterRole)`,
      `Forbidden:${step.kind}:${subject}`,
      { stalled: true },
    );
  }
  if (code === 404) {
    return new StepFailure(
      "KindNotServed",
      `the ${verb} ${subject} found nothing to act on (404): ${said}. Its kind may not be served yet: check that its CRD is installed`,
      `KindNotServed:${step.kind}:${subject}`,
    );
  }
  if (code === 409) {
    return new StepFailure(
      "Conflict",
      `the ${verb} ${subject} conflicted with another change (409): ${said}. It is retried; nothing to do unless this persists`,
      `Conflict:${step.kind}:${subject}`,
    );
  }
  const call = failedWebhookCall(apiserverMessage(error) ?? "");
  if (call) return webhookFailure(step, call, subject, verb, code, said);
  return new StepFailure(
    "ApiUnavailable",
    `the apiserver did not complete the ${verb} ${subject} (${code}): ${said}. It is retried with backoff; check the apiserver's health if this persists`,
    `ApiUnavailable:${step.kind}:${subject}:${code}`,
  );
}

/**
 * The failure of one step as it is reported on the resource: a StepFailure keeps its own reason and
 * fingerprint; an apiserver refusal becomes ApplyRejected (or Forbidden, …) naming the object and the
 * apiserver's message; anything else is named after the step. Messages are summarised and carry no
 * credential of the step.
 */
export function stepFailureOf(step: FailedStep, error: unknown): StepFailure {
  const subject = subjectOf(step);
  const verb = VERB[step.kind] ?? "step on";
  const failure = (() => {
    if (error instanceof StepFailure) return error;
    if (error instanceof ApiException) return apiFailure(step, error, subject, verb);
    if (error instanceof ChartSourceError) {
      // Its message already says what to do.
      const said = summarise(error.message);
      return new StepFailure("ChartUnavailable", `the ${verb} ${subject} found no chart: ${said}`, said);
    }
    if (error instanceof CommandFailedError) {
      // The command line says little; helm's own `Error: …` line says what went wrong.
      const said = summarise(commandError(error));
      return new StepFailure(
        STEP_REASON[step.kind] ?? "StepFailed",
        `the ${verb} ${subject} failed: ${said}. It is retried with backoff; correct the cause it names`,
        `${step.kind}:${subject}:${said}`,
      );
    }
    const said = summarise(error instanceof Error ? error.message : String(error));
    const reason = STEP_REASON[step.kind] ?? "StepFailed";
    return new StepFailure(
      reason,
      `the ${verb} ${subject} failed: ${said}. It is retried with backoff`,
      `${reason}:${step.kind}:${subject}:${said}`,
    );
  })();
  const message = redact(summarise(failure.message, SUMMARY_LIMIT * 2), step);
  return new StepFailure(failure.reason, message, redact(failure.fingerprint, step), {
    cause: error,
    stalled: failure.stalled,
  });
}

/**
 * What a reconcile pass throws when a step failed, after the failure is on the resource (condition,
 * Event): one line that every front end shows as it is — the operator's log, `pulumi up`'s error.
 */
export class ReconcileFailure extends StepFailure {
  override name = "ReconcileFailure";

  constructor(
    readonly subject: string,
    readonly condition: string,
    failure: StepFailure,
  ) {
    super(
      failure.reason,
      `${subject}: ${condition} False (${failure.reason}): ${failure.message}`,
      failure.fingerprint,
      { cause: failure, stalled: failure.stalled },
    );
  }
}
