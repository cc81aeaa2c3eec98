import { type ConsoleAuthenticator, cachedVerdicts, VERDICT_TTL_MS } from "../../lib/console/console-auth.js";
import type { ConsoleSnapshot } from "../../lib/console/console-snapshot.js";
import { DEFAULT_SETTINGS } from "../../lib/console/management-plane.js";
import { parseBindAddress } from "../../providers/operator/bind-address.js";
import { SESSION_COOKIE, serveConsole } from "../../providers/operator/console-server.js";
import type { EndpointServer } from "../../providers/operator/endpoint-server.js";
import { resource, snapshot } from "../support/status-reports.js";

// The console's HTTP server on a loopback port, with an authenticator that knows one token and a reading
// made of a report written here: what the server does with requests, cookies and failures. The cluster's
// own reviews and readings are tested against the local plane (test/e2e/console.test.ts).

const GOOD = "good-token";
const CAROL = "carol-token";

const authenticator: ConsoleAuthenticator = {
  asks: "a test token",
  signsInByLink: false,
  check: async (token) =>
    token === GOOD
      ? { allowed: true, user: "alice" }
      : token === CAROL
        ? { allowed: true, user: "carol" }
        : token === "bob"
          ? { allowed: false, status: 403, reason: "bob may not read" }
          : { allowed: false, status: 401, reason: "unknown token" },
};

const TURNED_OFF: ConsoleSnapshot = { served: false, settings: DEFAULT_SETTINGS };

describe("the console's server", () => {
  let server: EndpointServer;
  let reading: () => Promise<ConsoleSnapshot> = async () => TURNED_OFF;
  const reports: string[] = [];

  beforeAll(async () => {
    const address = parseBindAddress("--console-bind-address", "127.0.0.1:0", "the console");
    if (!address) throw new Error("127.0.0.1:0 is an address: the console serves there");
    server = await serveConsole({
      address,
      authenticator,
      snapshots: { snapshot: () => reading() },
      report: (line) => reports.push(line),
    });
  });
  afterAll(() => server.close());

  it("sends a browser without a token to the sign-in form, and answers a script 401", async () => {
    const browser = await fetch(`${server.url}/capabilities`, { headers: { Accept: "text/html" }, redirect: "manual" });
    expect(browser.status).toBe(303);
    expect(browser.headers.get("location")).toBe("/login");
    const script = await fetch(`${server.url}/capabilities`);
    expect(script.status).toBe(401);
    expect(script.headers.get("www-authenticate")).toBe('Bearer realm="navique console"');
  });

  it("keeps the token of a sign-in in a cookie no script reads, Secure behind TLS; forgets it at sign-out", async () => {
    const form = new URLSearchParams({ token: GOOD }).toString();
    const headers = { "Content-Type": "application/x-www-form-urlencoded" };
    const plain = await fetch(`${server.url}/login`, { method: "POST", body: form, headers, redirect: "manual" });
    expect(plain.status).toBe(303);
    expect(plain.headers.get("set-cookie")).toBe(
      `${SESSION_COOKIE}=${GOOD}; HttpOnly; SameSite=Strict; Path=/; Max-Age=28800`,
    );
    const tls = await fetch(`${server.url}/login`, {
      method: "POST",
      body: form,
      headers: { ...headers, "X-Forwarded-Proto": "https" },
      redirect: "manual",
    });
    expect(tls.headers.get("set-cookie")).toMatch(/; Secure$/);
    const out = await fetch(`${server.url}/logout`, { method: "POST", redirect: "manual" });
    expect(out.headers.get("set-cookie")).toBe(`${SESSION_COOKIE}=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0`);
  });

  it("says why a sign-in is refused, with the review's status, and never the token", async () => {
    const refused = await fetch(`${server.url}/login`, {
      method: "POST",
      body: new URLSearchParams({ token: "bob" }).toString(),
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
    });
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain("bob may not read");
    expect(reports.join("\n")).toContain("sign-in refused (403): bob may not read");
    expect(reports.join("\n")).not.toContain(GOOD);
  });

  it("forbids scripts, framing and caching on every page", async () => {
    const login = await fetch(`${server.url}/login`);
    expect(login.headers.get("content-security-policy")).toContain("default-src 'none'");
    expect(login.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(login.headers.get("x-frame-options")).toBe("DENY");
    expect(login.headers.get("cache-control")).toBe("no-store");
  });

  it("answers 503 while turned off, 502 naming the cause when the cluster cannot be read", async () => {
    const auth = { Authorization: `Bearer ${GOOD}` };
    reading = async () => TURNED_OFF;
    const off = await fetch(`${server.url}/`, { headers: auth });
    expect(off.status).toBe(503);
    expect(await off.text()).toContain("The console is turned off");
    reading = async () => {
      throw new Error("connect ECONNREFUSED 127.0.0.1:6443");
    };
    const down = await fetch(`${server.url}/resources`, { headers: auth });
    expect(down.status).toBe(502);
    expect(await down.text()).toContain("The console could not read the cluster: connect ECONNREFUSED 127.0.0.1:6443");
  });

  it("renders a page's body once per reading, each reader under their own name; a new reading anew", async () => {
    let renders = 0;
    const counted = (): ConsoleSnapshot => {
      const base = snapshot([resource("PostgresCluster", "apps", "db")]);
      // Only the events page reads a reading's events: each read is one render of its body.
      return {
        ...base,
        get events() {
          renders += 1;
          return base.events;
        },
      };
    };
    const first = counted();
    reading = async () => first;
    const as = (token: string) => fetch(`${server.url}/events`, { headers: { Authorization: `Bearer ${token}` } });
    const [alice, carol] = await Promise.all([as(GOOD), as(CAROL)]);
    const [aliceText, carolText] = [await alice.text(), await carol.text()];
    expect([alice.status, carol.status]).toEqual([200, 200]);
    expect(aliceText).toContain("alice");
    expect(aliceText).not.toContain("carol");
    expect(carolText).toContain("carol");
    expect(carolText).not.toContain("alice");
    expect(renders).toBe(1);
    const second = counted();
    reading = async () => second;
    expect((await as(GOOD)).status).toBe(200);
    expect(renders).toBe(2);
  });

  it("is read-only: a page refuses POST, naming what it answers; an unknown path lists the pages", async () => {
    const posted = await fetch(`${server.url}/resources`, {
      method: "POST",
      headers: { Authorization: `Bearer ${GOOD}` },
    });
    expect(posted.status).toBe(405);
    expect(posted.headers.get("allow")).toBe("GET");
    const logout = await fetch(`${server.url}/logout`);
    expect(logout.status).toBe(405);
    expect(logout.headers.get("allow")).toBe("POST");
    const unknown = await fetch(`${server.url}/secrets`);
    expect(unknown.status).toBe(404);
    expect(await unknown.text()).toBe(
      "no page /secrets: the console has /, /resources, /capabilities, /graph, /licence, /events\n",
    );
  });
});

describe("the console's verdicts", () => {
  const allowed = { allowed: true as const, user: "alice" };

  it("judges a token once for the requests that bring it at the same time, then keeps the verdict 30 s", async () => {
    let clock = 0;
    const judged: string[] = [];
    let release: () => void = () => {};
    const check = cachedVerdicts(
      async (token) => {
        judged.push(token);
        await new Promise<void>((resolve) => {
          release = resolve;
        });
        return allowed;
      },
      () => clock,
    );
    const together = Promise.all([check("t"), check("t"), check("t")]);
    release();
    expect(await together).toEqual([allowed, allowed, allowed]);
    expect(judged).toEqual(["t"]);
    clock = VERDICT_TTL_MS - 1;
    await check("t");
    expect(judged).toEqual(["t"]);
    clock = VERDICT_TTL_MS + 1;
    const again = check("t");
    release();
    await again;
    expect(judged).toEqual(["t", "t"]);
  });

  it("keeps no judgment that failed: the next request asks again", async () => {
    let calls = 0;
    const check = cachedVerdicts(
      async () => {
        calls += 1;
        if (calls === 1) throw new Error("connect ECONNREFUSED 127.0.0.1:6443");
        return allowed;
      },
      () => 0,
    );
    await expect(check("t")).rejects.toThrow("ECONNREFUSED");
    expect(await check("t")).toEqual(allowed);
    expect(calls).toBe(2);
  });
});
