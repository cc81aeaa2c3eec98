import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { ConsoleAuthenticator, Verdict } from "../../lib/console/console-auth.js";
import type { ServedSnapshot, SnapshotSource } from "../../lib/console/console-snapshot.js";
import type { Html } from "../../lib/console/html.js";
import { TURNED_OFF } from "../../lib/console/management-plane.js";
import { capabilitiesPage } from "../../lib/console/pages/capabilities-page.js";
import { dependencyGraph } from "../../lib/console/pages/dependency-graph.js";
import { eventsPage } from "../../lib/console/pages/events-page.js";
import { licencePage } from "../../lib/console/pages/licence-page.js";
import { loginPage, refusalPage } from "../../lib/console/pages/login-page.js";
import { overviewPage } from "../../lib/console/pages/overview-page.js";
import { PAGES, type PagePath, page, STYLESHEET, STYLESHEET_PATH } from "../../lib/console/pages/page-layout.js";
import { resourcesPage } from "../../lib/console/pages/resources-page.js";
import type { Reporter } from "../../lib/reporter.js";
import type { BindAddress } from "./bind-address.js";
import { type EndpointServer, listenOn } from "./endpoint-server.js";

/** The cookie the browser keeps the token in: HttpOnly, so that no script of any page can read it. */
export const SESSION_COOKIE = "navique-console";
/** How long the browser keeps it: a working day; the token's own expiry may end it sooner. */
const SESSION_SECONDS = 8 * 3600;
/** The most a sign-in form may weigh: a token is a few KiB at most. */
const MOST_FORM_BYTES = 64 * 1024;

const RENDER: Readonly<Record<PagePath, (snapshot: ServedSnapshot) => Html>> = {
  "/": overviewPage,
  "/resources": resourcesPage,
  "/capabilities": capabilitiesPage,
  "/graph": dependencyGraph,
  "/licence": licencePage,
  "/events": eventsPage,
};

/**
 * Each page's body, rendered once per reading: a body depends on the reading alone (the frame around it
 * holds the reader's name), and a reading serves every reader for 5 s — without this, each request would
 * lay out the graph and render every resource again, a core's worth under a few readers (docs/performance.md,
 * "The console under load"). Kept with the reading, so dropped with it.
 */
const rendered = new WeakMap<ServedSnapshot, Map<PagePath, Html>>();

function bodyOf(snapshot: ServedSnapshot, path: PagePath): Html {
  let bodies = rendered.get(snapshot);
  if (!bodies) {
    bodies = new Map();
    rendered.set(snapshot, bodies);
  }
  let body = bodies.get(path);
  if (body === undefined) {
    body = RENDER[path](snapshot);
    bodies.set(path, body);
  }
  return body;
}

/**
 * Every answer's headers: no script may run, nothing is framed or cached, no referrer leaves. The pages
 * need none of it: they are plain HTML, a style sheet and inline SVG.
 */
const SECURITY_HEADERS = {
  "Content-Security-Policy":
    "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  "X-Content-Type-Options": "nosniff",
  "X-Frame-Options": "DENY",
  "Referrer-Policy": "no-referrer",
  "Cache-Control": "no-store",
};

function send(response: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  response.writeHead(status, { "Content-Type": "text/html; charset=utf-8", ...SECURITY_HEADERS, ...headers });
  response.end(body);
}

function redirect(response: ServerResponse, to: string, headers: Record<string, string> = {}): void {
  response.writeHead(303, { Location: to, ...SECURITY_HEADERS, ...headers });
  response.end();
}

/** The token a request carries: its Authorization header's bearer token, else the session cookie's. */
function tokenOf(request: IncomingMessage): string | undefined {
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? "");
  if (bearer?.[1]) return bearer[1];
  for (const part of (request.headers.cookie ?? "").split(";")) {
    const [name, ...value] = part.trim().split("=");
    if (name === SESSION_COOKIE && value.length > 0) return decodeURIComponent(value.join("="));
  }
  return undefined;
}

/** The session cookie: Secure when the request came over HTTPS (an Ingress terminating TLS says so). */
function sessionCookie(request: IncomingMessage, token: string | undefined): string {
  const secure = request.headers["x-forwarded-proto"] === "https" ? "; Secure" : "";
  const value = token === undefined ? "; Max-Age=0" : `; Max-Age=${SESSION_SECONDS}`;
  return `${SESSION_COOKIE}=${token === undefined ? "" : encodeURIComponent(token)}; HttpOnly; SameSite=Strict; Path=/${value}${secure}`;
}

/** The `token` field of a posted form, read up to MOST_FORM_BYTES. */
async function postedToken(request: IncomingMessage): Promise<string | undefined> {
  let body = "";
  for await (const chunk of request) {
    body += String(chunk);
    if (body.length > MOST_FORM_BYTES) return undefined;
  }
  return new URLSearchParams(body).get("token")?.trim() || undefined;
}

/** Whether the asker is a browser, sent to the sign-in page, rather than a script, answered 401. */
function wantsPage(request: IncomingMessage): boolean {
  return (request.headers.accept ?? "").includes("text/html");
}

function message(error: unknown): string {
  return error instanceof Error ? (error.message.split("\n")[0] ?? error.message) : String(error);
}

/** What the console is served from. */
export interface ConsoleServerOptions {
  readonly address: BindAddress;
  readonly authenticator: ConsoleAuthenticator;
  readonly snapshots: SnapshotSource;
  readonly report: Reporter;
}

/**
 * Serves the read-only console (docs/console.md) on `address`: the pages of PAGES, each shown only to a
 * request whose token the authenticator allows — a bearer token in the Authorization header, or the one
 * the sign-in form put in the session cookie —; the sign-in form at /login, sign-out at /logout (POST).
 * A browser without a token is sent to /login; a script gets 401. Nothing is written to the cluster, and
 * no token is logged: a refusal is reported with its reason only.
 */
export async function serveConsole(options: ConsoleServerOptions): Promise<EndpointServer> {
  const { authenticator, snapshots, report } = options;

  const signIn = async (request: IncomingMessage, response: ServerResponse, token: string | undefined) => {
    if (!token) {
      send(response, 400, page({ title: "Sign in" }, loginPage(authenticator.asks, "Give a token to sign in.")));
      return;
    }
    const verdict = await authenticator.check(token);
    if (!verdict.allowed) {
      report(`[console] sign-in refused (${verdict.status}): ${verdict.reason}`);
      send(response, verdict.status, page({ title: "Sign in" }, loginPage(authenticator.asks, verdict.reason)));
      return;
    }
    redirect(response, "/", { "Set-Cookie": sessionCookie(request, token) });
  };

  const refused = (request: IncomingMessage, response: ServerResponse, verdict: Verdict & { allowed: false }) => {
    if (verdict.status === 403) {
      send(response, 403, page({ title: "Not allowed" }, refusalPage(verdict.reason)));
      return;
    }
    // A token no longer accepted (expired, revoked): forgotten, and the sign-in form shown again.
    send(response, 401, page({ title: "Sign in" }, loginPage(authenticator.asks, verdict.reason)), {
      "Set-Cookie": sessionCookie(request, undefined),
      "WWW-Authenticate": 'Bearer realm="navique console"',
    });
  };

  const showPage = async (request: IncomingMessage, response: ServerResponse, path: PagePath) => {
    const token = tokenOf(request);
    if (!token) {
      if (wantsPage(request)) redirect(response, "/login");
      else
        send(response, 401, "a token is needed: send Authorization: Bearer TOKEN, or sign in at /login\n", {
          "Content-Type": "text/plain; charset=utf-8",
          "WWW-Authenticate": 'Bearer realm="navique console"',
        });
      return;
    }
    const verdict = await authenticator.check(token);
    if (!verdict.allowed) {
      refused(request, response, verdict);
      return;
    }
    const title = PAGES.find((p) => p.path === path)?.title ?? "";
    const snapshot = await snapshots.snapshot();
    if (!snapshot.served) {
      send(response, 503, page({ title, user: verdict.user, current: path }, refusalPage(TURNED_OFF)));
      return;
    }
    const frame = {
      title,
      current: path,
      user: verdict.user,
      refreshSeconds: snapshot.settings.spec.refreshSeconds,
      observedAt: snapshot.status.observedAt,
    };
    send(response, 200, page(frame, bodyOf(snapshot, path)));
  };

  const signInOrForm = async (request: IncomingMessage, response: ServerResponse, url: URL) => {
    if (request.method === "POST") return signIn(request, response, await postedToken(request));
    // A link with the key (navique console prints one) signs in at once.
    const key = url.searchParams.get("key");
    if (key && authenticator.signsInByLink) return signIn(request, response, key);
    send(response, 200, page({ title: "Sign in" }, loginPage(authenticator.asks)));
  };

  const signOut = async (request: IncomingMessage, response: ServerResponse) => {
    redirect(response, "/login", { "Set-Cookie": sessionCookie(request, undefined) });
  };

  const stylesheet = async (_request: IncomingMessage, response: ServerResponse) => {
    send(response, 200, STYLESHEET, { "Content-Type": "text/css; charset=utf-8", "Cache-Control": "max-age=300" });
  };

  /** Each path's methods and handlers: the pages answer GET; signing in GET and POST; signing out POST. */
  type Handler = (request: IncomingMessage, response: ServerResponse, url: URL) => Promise<void>;
  const routes = new Map<string, Readonly<Record<string, Handler>>>([
    [STYLESHEET_PATH, { GET: stylesheet }],
    ["/login", { GET: signInOrForm, POST: signInOrForm }],
    ["/logout", { POST: signOut }],
    ...PAGES.map((p): [string, Record<string, Handler>] => [p.path, { GET: (rq, rs) => showPage(rq, rs, p.path) }]),
  ]);

  const answer = async (request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? "/", "http://console");
    const route = routes.get(url.pathname);
    if (!route) {
      send(response, 404, `no page ${url.pathname}: the console has ${PAGES.map((p) => p.path).join(", ")}\n`, {
        "Content-Type": "text/plain; charset=utf-8",
      });
      return;
    }
    const handler = route[request.method ?? "GET"];
    if (!handler) {
      send(response, 405, "the console is read-only: its pages answer GET, /login GET and POST, /logout POST\n", {
        "Content-Type": "text/plain; charset=utf-8",
        Allow: Object.keys(route).join(", "),
      });
      return;
    }
    await handler(request, response, url);
  };

  const server = createServer((request, response) => {
    answer(request, response).catch((error: unknown) => {
      // The cluster unreachable, a review refused: said on the page, the request not retried behind its back.
      report(`[console] ${request.method} ${request.url?.split("?")[0]} failed: ${message(error)}`);
      if (!response.headersSent)
        send(
          response,
          502,
          page(
            { title: "Cluster not read" },
            refusalPage(`The console could not read the cluster: ${message(error)}. Reload to try again.`),
          ),
        );
      else response.end();
    });
  });
  const listening = await listenOn(server, options.address);
  report(`[console] serving the console on ${listening.url}`);
  return listening;
}
