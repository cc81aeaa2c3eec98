import { readFileSync } from "node:fs";
import type * as Http from "node:http";
import type * as Https from "node:https";
import type { RequestOptions } from "node:https";
import { createRequire } from "node:module";
import { parse } from "yaml";
import { ambientKubeconfigPath, isKubeconfigContent } from "./kubeconfig-location.js";

/**
 * One GET from the API server with nothing but Node's own HTTP client: for a front end that needs one
 * object before it decides whether to load the Kubernetes client at all (a Pulumi preview of a resource
 * already in place). It understands the plain kubeconfigs — a server with its CA (inline or a file, or
 * TLS verification skipped), a client certificate and key or a bearer token (inline or files) — and
 * nothing else: for anything it does not understand (an exec plugin, an auth provider, a proxy, basic
 * auth), and for any failure, it answers undefined, and the caller goes the usual way.
 */

interface NamedEntry<T> {
  readonly name?: string;
  readonly cluster?: T;
  readonly user?: T;
  readonly context?: T;
}

type Fields = Readonly<Record<string, unknown>>;

interface Kubeconfig {
  readonly "current-context"?: string;
  readonly contexts?: readonly NamedEntry<{ readonly cluster?: string; readonly user?: string }>[];
  readonly clusters?: readonly NamedEntry<Fields>[];
  readonly users?: readonly NamedEntry<Fields>[];
}

const CLUSTER_FIELDS = new Set([
  "server",
  "certificate-authority-data",
  "certificate-authority",
  "insecure-skip-tls-verify",
]);
const USER_FIELDS = new Set([
  "client-certificate-data",
  "client-key-data",
  "client-certificate",
  "client-key",
  "token",
  "tokenFile",
]);

/**
 * Node's HTTP clients by `require`: an ES-module import of `node:http` makes Node evaluate every export
 * of it for the import's facade, its lazy `WebSocket` and `EventSource` too, which loads Node's bundled
 * undici — 30–45 ms of CPU in each process that loads this module (the program of every Pulumi preview).
 */
const builtin = createRequire(import.meta.url);
const { request: httpRequest } = builtin("node:http") as typeof Http;
const { request: httpsRequest } = builtin("node:https") as typeof Https;

const text = (value: unknown) => (typeof value === "string" ? value : undefined);
const decoded = (value: unknown) => (typeof value === "string" ? Buffer.from(value, "base64") : undefined);
const file = (value: unknown) => (typeof value === "string" ? readFileSync(value) : undefined);

/** The request options a plain kubeconfig's current context gives; undefined for one it does not understand. */
function connection(
  content: string | undefined,
): { readonly server: URL; readonly options: RequestOptions } | undefined {
  const raw =
    content !== undefined && isKubeconfigContent(content)
      ? content
      : readFileSync(content ?? ambientKubeconfigPath(), "utf8");
  const kubeconfig = parse(raw) as Kubeconfig;
  const context = kubeconfig.contexts?.find((c) => c.name === kubeconfig["current-context"])?.context;
  const cluster = kubeconfig.clusters?.find((c) => c.name === context?.cluster)?.cluster;
  const user = kubeconfig.users?.find((u) => u.name === context?.user)?.user ?? {};
  const server = text(cluster?.server);
  if (!cluster || !server) return undefined;
  if (Object.keys(cluster).some((key) => !CLUSTER_FIELDS.has(key))) return undefined;
  if (Object.keys(user).some((key) => !USER_FIELDS.has(key))) return undefined;
  const token = text(user.token) ?? file(user.tokenFile)?.toString("utf8").trim();
  return {
    server: new URL(server),
    options: {
      ca: decoded(cluster["certificate-authority-data"]) ?? file(cluster["certificate-authority"]),
      rejectUnauthorized: cluster["insecure-skip-tls-verify"] !== true,
      cert: decoded(user["client-certificate-data"]) ?? file(user["client-certificate"]),
      key: decoded(user["client-key-data"]) ?? file(user["client-key"]),
      headers: { accept: "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
      timeout: 5000,
    },
  };
}

/**
 * The object at `path` (`/apis/<group>/<version>/namespaces/<ns>/<plural>/<name>`), parsed; undefined when
 * it is not there, when the kubeconfig is not a plain one, or on any failure.
 */
export async function plainGet(kubeconfig: string | undefined, path: string): Promise<unknown> {
  try {
    const reached = connection(kubeconfig);
    if (!reached) return undefined;
    const url = new URL(path, reached.server);
    const request = url.protocol === "https:" ? httpsRequest : httpRequest;
    return await new Promise((resolve) => {
      const sent = request(url, { ...reached.options, method: "GET" }, (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () => {
          if (response.statusCode !== 200) return resolve(undefined);
          try {
            resolve(JSON.parse(Buffer.concat(chunks).toString("utf8")));
          } catch {
            resolve(undefined);
          }
        });
        response.on("error", () => resolve(undefined));
      });
      sent.on("timeout", () => sent.destroy());
      sent.on("error", () => resolve(undefined));
      sent.end();
    });
  } catch {
    return undefined;
  }
}
