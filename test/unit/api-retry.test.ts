import {
  type AttemptOutcome,
  DEFAULT_RETRY_POLICY,
  type RetryPolicy,
  repeatable,
  retryAfterMs,
  retryDelay,
  sendWithRetries,
  transportErrorCode,
} from "../../lib/cluster/api-retry.js";

// The retry policy of the one Kubernetes client seam (lib/cluster/kube-client.ts), decided without a
// network: the apiserver's real answers to it are tested in test/cluster/api-retry.test.ts.
const policy: RetryPolicy = {
  ...DEFAULT_RETRY_POLICY,
  baseDelayMs: 100,
  maxDelayMs: 1_000,
  maxRetryAfterMs: 5_000,
  random: () => 0,
};
const GET = { method: "GET" };
const POST = { method: "POST", contentType: "application/json" };
const APPLY = { method: "PATCH", contentType: "application/apply-patch+yaml" };
const JSON_PATCH = { method: "PATCH", contentType: "application/json-patch+json" };
const response = (status: number, retryAfter?: string): AttemptOutcome => ({ kind: "response", status, retryAfter });
const transport = (code: string | undefined): AttemptOutcome => ({ kind: "error", code });

describe("retryDelay", () => {
  it.each<[string, { method: string; contentType?: string }, AttemptOutcome, number, number | undefined]>([
    ["200 is the caller's", GET, response(200), 1, undefined],
    ["404 is the caller's", GET, response(404), 1, undefined],
    ["409 is the caller's", POST, response(409), 1, undefined],
    ["429 without Retry-After: backoff, any verb", POST, response(429), 1, 100],
    ["429 with Retry-After 2: waits 2 s, any verb", POST, response(429, "2"), 1, 2_000],
    ["429 with Retry-After beyond the cap: the cap", GET, response(429, "60"), 1, 5_000],
    ["429 with a Retry-After shorter than the backoff: the backoff", GET, response(429, "0"), 4, 800],
    ["503 with Retry-After: any verb", POST, response(503, "1"), 1, 1_000],
    ["503 without Retry-After on a read", GET, response(503), 1, 100],
    ["503 without Retry-After on a create: the caller's", POST, response(503), 1, undefined],
    ["504 on server-side apply", APPLY, response(504), 2, 200],
    ["500 on a JSON patch: the caller's", JSON_PATCH, response(500), 1, undefined],
    [
      "500 naming an admission webhook it could not call, on server-side apply: the caller's at once",
      APPLY,
      { kind: "response", status: 500, failedWebhook: "vcluster.cnpg.io" },
      1,
      undefined,
    ],
    ["500 on server-side apply otherwise: backoff", APPLY, response(500), 1, 100],
    ["501 is not transient", GET, response(501), 1, undefined],
    ["connection reset on a read", GET, transport("ECONNRESET"), 3, 400],
    ["connection reset on server-side apply", APPLY, transport("ECONNRESET"), 1, 100],
    [
      "connection reset on a create: the caller's (it may have been created)",
      POST,
      transport("ECONNRESET"),
      1,
      undefined,
    ],
    ["socket closed by the server (undici) on a read", GET, transport("UND_ERR_SOCKET"), 1, 100],
    ["connection refused: never sent, any verb", POST, transport("ECONNREFUSED"), 1, 100],
    ["an unknown transport error is the caller's", GET, transport(undefined), 1, undefined],
    ["backoff capped", GET, response(429), 9, 1_000],
    ["no retry past maxRetries", GET, response(429), 11, undefined],
  ])("%s", (_case, request, outcome, retry, delay) => {
    expect(retryDelay(policy, request, outcome, retry)).toBe(delay);
  });
});

describe("jitter", () => {
  it("lengthens each wait by up to `jitter` times itself", () => {
    const jittered = { ...policy, jitter: 1, random: () => 0.5 };
    expect(retryDelay(jittered, GET, response(429, "1"), 1)).toBe(1_500);
    expect(retryDelay({ ...jittered, random: () => 0.999 }, GET, response(429), 2)).toBe(400);
  });
});

describe("repeatable", () => {
  it.each<[{ method: string; contentType?: string }, boolean]>([
    [GET, true],
    [{ method: "HEAD" }, true],
    [APPLY, true],
    [{ method: "PATCH", contentType: "application/merge-patch+json" }, false],
    [JSON_PATCH, false],
    [POST, false],
    [{ method: "PUT" }, false],
    [{ method: "DELETE" }, false],
  ])("%o: %s", (request, expected) => {
    expect(repeatable(request)).toBe(expected);
  });
});

describe("retryAfterMs", () => {
  it("reads delta-seconds and HTTP dates", () => {
    expect(retryAfterMs("3")).toBe(3_000);
    expect(retryAfterMs(" 1 ")).toBe(1_000);
    expect(retryAfterMs("Tue, 01 Dec 2026 10:00:05 GMT", () => Date.parse("Tue, 01 Dec 2026 10:00:00 GMT"))).toBe(
      5_000,
    );
    expect(retryAfterMs(undefined)).toBeUndefined();
    expect(retryAfterMs("soon")).toBeUndefined();
  });
});

describe("transportErrorCode", () => {
  it("finds the code through undici's 'fetch failed' wrapper", () => {
    const reset = Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" });
    expect(transportErrorCode(new TypeError("fetch failed", { cause: reset }))).toBe("ECONNRESET");
    expect(transportErrorCode(new Error("plain"))).toBeUndefined();
  });
});

describe("sendWithRetries", () => {
  function recorder() {
    const waits: number[] = [];
    return { waits, policy: { ...policy, sleep: async (ms: number) => void waits.push(ms) } };
  }

  it("sends again after each 429 until an answer is the caller's, waiting as told", async () => {
    const { waits, policy: recorded } = recorder();
    const answers = [429, 429, 503, 200];
    const discarded: number[] = [];
    const result = await sendWithRetries(
      recorded,
      GET,
      async () => answers.shift() ?? 0,
      (status) => response(status, status === 503 ? "2" : undefined),
      async (status) => void discarded.push(status),
    );
    expect(result).toBe(200);
    expect(waits).toEqual([100, 200, 2_000]);
    expect(discarded).toEqual([429, 429, 503]);
  });

  it("gives the last answer to the caller after maxRetries", async () => {
    const { waits, policy: recorded } = recorder();
    let sent = 0;
    const result = await sendWithRetries(
      { ...recorded, maxRetries: 3 },
      GET,
      async () => {
        sent += 1;
        return 429;
      },
      (status) => response(status),
      async () => {},
    );
    expect(result).toBe(429);
    expect(sent).toBe(4);
    expect(waits).toEqual([100, 200, 400]);
  });

  it("throws a connection reset of a create at once: it may have been carried out", async () => {
    const { waits, policy: recorded } = recorder();
    const reset = Object.assign(new Error("socket hang up"), { code: "ECONNRESET" });
    await expect(
      sendWithRetries(
        recorded,
        POST,
        async () => {
          throw reset;
        },
        () => response(200),
        async () => {},
      ),
    ).rejects.toBe(reset);
    expect(waits).toEqual([]);
  });

  it("sends a read again after a connection reset", async () => {
    const { waits, policy: recorded } = recorder();
    let sent = 0;
    const result = await sendWithRetries(
      recorded,
      GET,
      async () => {
        sent += 1;
        if (sent === 1)
          throw new TypeError("fetch failed", { cause: Object.assign(new Error("x"), { code: "ECONNRESET" }) });
        return 200;
      },
      (status) => response(status),
      async () => {},
    );
    expect(result).toBe(200);
    expect(waits).toEqual([100]);
  });
});
