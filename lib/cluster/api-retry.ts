import { setTimeout as sleep } from "node:timers/promises";

/**
 * When and how long to wait before sending a Kubernetes API request again, after an answer a real
 * apiserver gives under load or while a CRD's storage initialises. Modelled on client-go
 * (kubernetes/client-go rest/request.go and rest/with_retry.go):
 *
 * - 429 Too Many Requests (API Priority and Fairness rejecting the request, or "storage is
 *   (re)initializing" from the watch cache) and any 5xx that carries Retry-After: the apiserver says it did
 *   not do the work and when to come back, so every verb is sent again, after at least Retry-After.
 * - 500, 502, 503, 504 without Retry-After, and a connection reset or closed mid-request: the request may
 *   or may not have been carried out, so only a request that can be repeated without changing its outcome
 *   is sent again — reads, and server-side apply (which converges to the same object however often it is
 *   sent). client-go retries connection resets for GET only; a POST (create), a JSON patch (an appended
 *   finalizer) or a DELETE repeated after it succeeded would answer differently, and are left to the caller.
 * - A connection refused never reached the apiserver (it is restarting): every verb is sent again.
 * - A 500 that says an admission webhook could not be called (lib/cluster/admission-webhook-failure.ts) is
 *   the caller's at once: the apiserver is healthy and answered; the webhook behind it has no ready
 *   endpoint or does not answer, which no retry within one request clears — ten of them only made the
 *   failure take ~100 s to be reported, as "check the apiserver's health". The caller names the webhook;
 *   the reconcile's own backoff retries the pass.
 *
 * Waits grow exponentially from `baseDelayMs`, capped at `maxDelayMs`; a Retry-After is honoured up to
 * `maxRetryAfterMs`; after `maxRetries` (client-go's default: 10) the last answer is the caller's. Each
 * wait is lengthened by a random part of up to `jitter` times itself: requests rejected together (one
 * APF rejection wave, all told "Retry-After: 1") must not all come back in the same instant; client-go
 * spreads them with its client-side rate limiter, which this client does not have.
 */
export interface RetryPolicy {
  readonly maxRetries: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  readonly maxRetryAfterMs: number;
  readonly jitter: number;
  /** A number in [0, 1): injectable, so that waits are predictable in tests. */
  readonly random: () => number;
  /** How a wait is waited: injectable, so that the policy's behaviour is testable without waiting. */
  readonly sleep: (ms: number) => Promise<void>;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxRetries: 10,
  baseDelayMs: 250,
  maxDelayMs: 8_000,
  maxRetryAfterMs: 10_000,
  jitter: 1,
  random: Math.random,
  sleep: (ms) => sleep(ms),
};

/** No retry at all: every answer goes straight to the caller. */
export const NO_RETRY: RetryPolicy = { ...DEFAULT_RETRY_POLICY, maxRetries: 0 };

/** What a retry decision needs to know of the request. */
export interface RetriedRequest {
  readonly method: string;
  readonly contentType?: string | undefined;
}

/** One attempt's outcome: an HTTP answer, or a transport error (its Node.js `code`, when it has one). */
export type AttemptOutcome =
  | {
      readonly kind: "response";
      readonly status: number;
      readonly retryAfter?: string | undefined;
      /** The admission webhook the apiserver says it could not call, when its answer says so. */
      readonly failedWebhook?: string | undefined;
    }
  | { readonly kind: "error"; readonly code: string | undefined };

const RETRIED_WITHOUT_RETRY_AFTER = new Set([500, 502, 503, 504]);
/** Transport failures after the request may have reached the server (undici names them UND_ERR_*). */
const CONNECTION_LOST = new Set(["ECONNRESET", "EPIPE", "UND_ERR_SOCKET", "UND_ERR_CLOSED", "ECONNABORTED"]);
/** Transport failures before anything was sent. */
const NEVER_SENT = new Set(["ECONNREFUSED"]);

/** True when sending the request again cannot change what it does (see RetryPolicy). */
export function repeatable(request: RetriedRequest): boolean {
  const method = request.method.toUpperCase();
  if (method === "GET" || method === "HEAD") return true;
  return method === "PATCH" && (request.contentType ?? "").startsWith("application/apply-patch");
}

/** Retry-After in milliseconds: delta-seconds or an HTTP date, as RFC 9110 allows; undefined if absent or unreadable. */
export function retryAfterMs(value: string | undefined, now: () => number = Date.now): number | undefined {
  if (value === undefined || value.trim() === "") return undefined;
  const seconds = Number(value.trim());
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now());
}

/**
 * The wait before retry number `retry` (1 for the first retry) of `request` after `outcome`, or
 * undefined when the outcome is the caller's to handle.
 */
export function retryDelay(
  policy: RetryPolicy,
  request: RetriedRequest,
  outcome: AttemptOutcome,
  retry: number,
): number | undefined {
  const base = baseDelay(policy, request, outcome, retry);
  return base === undefined ? undefined : Math.round(base * (1 + policy.jitter * policy.random()));
}

function baseDelay(
  policy: RetryPolicy,
  request: RetriedRequest,
  outcome: AttemptOutcome,
  retry: number,
): number | undefined {
  if (retry > policy.maxRetries) return undefined;
  const backoff = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (retry - 1));
  if (outcome.kind === "error") {
    const code = outcome.code ?? "";
    if (NEVER_SENT.has(code)) return backoff;
    return CONNECTION_LOST.has(code) && repeatable(request) ? backoff : undefined;
  }
  if (outcome.failedWebhook !== undefined) return undefined;
  const asked = retryAfterMs(outcome.retryAfter);
  const serverSaysRetry = outcome.status === 429 || (outcome.status >= 500 && asked !== undefined);
  if (serverSaysRetry) return Math.max(backoff, Math.min(asked ?? 0, policy.maxRetryAfterMs));
  return RETRIED_WITHOUT_RETRY_AFTER.has(outcome.status) && repeatable(request) ? backoff : undefined;
}

/** The Node.js error code of a transport failure, looking through the `cause` chain (undici's fetch wraps it). */
export function transportErrorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth += 1) {
    const code = (current as NodeJS.ErrnoException).code;
    if (typeof code === "string") return code;
    current = current.cause;
  }
  return undefined;
}

/**
 * Sends `attempt` until its outcome is not to be retried, waiting as `policy` says between attempts.
 * `onRetry` hears of each retry (status or error code, and the wait) so that callers can report it.
 */
export async function sendWithRetries<T>(
  policy: RetryPolicy,
  request: RetriedRequest,
  attempt: () => Promise<T>,
  outcomeOf: (response: T) => AttemptOutcome,
  discard: (response: T) => Promise<void>,
  onRetry?: (outcome: AttemptOutcome, waitMs: number, retry: number) => void,
): Promise<T> {
  for (let retry = 1; ; retry += 1) {
    let response: T;
    try {
      response = await attempt();
    } catch (error) {
      const outcome: AttemptOutcome = { kind: "error", code: transportErrorCode(error) };
      const wait = retryDelay(policy, request, outcome, retry);
      if (wait === undefined) throw error;
      onRetry?.(outcome, wait, retry);
      await policy.sleep(wait);
      continue;
    }
    const outcome = outcomeOf(response);
    const wait = retryDelay(policy, request, outcome, retry);
    if (wait === undefined) return response;
    // The answer is dropped: its body is read to the end so that the connection can be reused.
    await discard(response).catch(() => undefined);
    onRetry?.(outcome, wait, retry);
    await policy.sleep(wait);
  }
}
