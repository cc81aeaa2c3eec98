/**
 * An admission webhook the apiserver could not call, as its refusal of a write says it: the webhook's
 * name, and — for a webhook reached through a Service — that Service.
 *
 * The wording is kube-apiserver's (k8s.io/apiserver pkg/util/webhook/error.go, ErrCallingWebhook):
 * `failed calling webhook "NAME": <cause>`, wrapped by the validating and mutating dispatchers in an
 * InternalError (500, `Internal error occurred: …`) when the webhook's failurePolicy is Fail. The cause of
 * a call that never got an answer names the URL it posted to, `Post "https://SERVICE.NAMESPACE.svc:PORT/…"`
 * (the service resolver of k8s.io/apiserver pkg/util/webhook/serviceresolver.go builds that host).
 */
export interface FailedWebhookCall {
  /** The webhook's name in its ValidatingWebhookConfiguration or MutatingWebhookConfiguration. */
  readonly webhook: string;
  /** The Service the webhook is served by, when the apiserver's message names its URL. */
  readonly service?: { readonly name: string; readonly namespace: string };
}

const FAILED_CALL = /failed calling webhook "([^"]+)"/;
const SERVICE_URL = /Post "https:\/\/([a-z0-9-]+)\.([a-z0-9-]+)\.svc(?::\d+)?\//;

/** The failed webhook call a message of the apiserver reports, or undefined when it reports none. */
export function failedWebhookCall(message: string): FailedWebhookCall | undefined {
  const webhook = FAILED_CALL.exec(message)?.[1];
  if (webhook === undefined) return undefined;
  const url = SERVICE_URL.exec(message);
  return url?.[1] && url[2] ? { webhook, service: { name: url[1], namespace: url[2] } } : { webhook };
}

/** The `message` of a Status body (the apiserver's answer to a refused request), or undefined. */
export function statusMessage(body: string): string | undefined {
  try {
    const message = (JSON.parse(body) as { message?: unknown } | null)?.message;
    return typeof message === "string" ? message : undefined;
  } catch {
    return undefined;
  }
}
