import type { ClientRequest } from "node:http";
import { request as httpsRequest, type RequestOptions } from "node:https";
import {
  ApiException,
  ApiextensionsV1Api,
  AppsV1Api,
  CoordinationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  createConfiguration,
  EventsV1Api,
  type HttpLibrary,
  KubeConfig,
  type KubernetesObject,
  KubernetesObjectApi,
  type Middleware,
  Observable,
  type RequestContext,
  type ResponseContext,
  ServerConfiguration,
  setHeaderMiddleware,
} from "@kubernetes/client-node";
import { OPERATOR_NAME } from "../api/group.js";
import { failedWebhookCall, statusMessage } from "./admission-webhook-failure.js";
import { type AttemptOutcome, DEFAULT_RETRY_POLICY, type RetryPolicy, sendWithRetries } from "./api-retry.js";

/** The field manager of every server-side apply the product makes. */
export const FIELD_MANAGER = OPERATOR_NAME;

/** The identifying part of any object: enough to read, apply or delete it. */
export interface ObjectHeader {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: { readonly name: string; readonly namespace?: string };
}

/** How many recent write requests a client remembers (`METHOD path`), for tests and benchmarks. */
const WRITES_REMEMBERED = 200;

/** Counts the HTTP requests made through one client: detection's cost is measured, not guessed. */
class RequestCounter implements Middleware {
  count = 0;
  /** Every write (any method but GET), counted; the most recent ones remembered as `METHOD path`. */
  writes = 0;
  readonly recentWrites: string[] = [];
  recordWrite(method: string, path: string): void {
    this.writes += 1;
    this.recentWrites.push(`${method} ${path}`);
    if (this.recentWrites.length > WRITES_REMEMBERED) this.recentWrites.shift();
  }
  async pre(context: RequestContext): Promise<RequestContext> {
    this.count += 1;
    const method = String(context.getHttpMethod());
    if (method !== "GET") this.recordWrite(method, new URL(context.getUrl()).pathname);
    return context;
  }
  async post(context: ResponseContext): Promise<ResponseContext> {
    return context;
  }
}

/**
 * A write this client refused to send, or a read it refused to send again: its fence says the process may
 * not write now (an operator that lost the lead: lib/cli/operator-command.ts). Not a transport error, so
 * it is never retried.
 */
export class WriteFencedError extends Error {
  constructor(what: string, why: string) {
    super(`${what} not sent: ${why}`);
    this.name = "WriteFencedError";
  }
}

/** Why writes may not be sent now, or undefined when they may. */
export type WriteFence = () => string | undefined;

/** Hears of each request sent again: what the apiserver answered, and how long the client waits. */
export type RetryListener = (what: string, outcome: AttemptOutcome, waitMs: number, retry: number) => void;

export interface KubeClientOptions {
  /** When failed requests are sent again (lib/cluster/api-retry.ts); DEFAULT_RETRY_POLICY unless given. */
  readonly retry?: RetryPolicy;
  readonly onRetry?: RetryListener;
}

/**
 * client-node's HTTP library with the retry policy around it: every typed API call goes through
 * `httpApi.send`, below the middleware (which a call's own options may replace), so no call escapes it.
 */
class RetryingHttpLibrary implements HttpLibrary {
  /**
   * The connection pool every request of this client shares. client-node 2.0.1 makes a new undici Agent
   * for every call (KubeConfig.applySecurityAuthentication → createDispatcher), so each request opened a
   * TLS connection of its own: over half of the operator's CPU at a thousand resources went to handshakes
   * (docs/performance.md). A client talks to one cluster with one identity: the first request's Agent,
   * kept alive, serves every later one.
   */
  private pool: ReturnType<RequestContext["getDispatcher"]>;

  constructor(
    private readonly inner: HttpLibrary,
    private readonly policy: RetryPolicy,
    private readonly onRetry: RetryListener | undefined,
    private readonly fence: WriteFence,
  ) {}

  /** Closes every connection of the pool, requests under way included: the next request opens a new one. */
  dropConnections(): void {
    const pool = this.pool as { destroy?: () => Promise<void> } | undefined;
    this.pool = undefined;
    void pool?.destroy?.().catch(() => undefined);
  }

  send(request: RequestContext): Observable<ResponseContext> {
    const dispatcher = request.getDispatcher();
    if (dispatcher !== undefined) {
      this.pool ??= dispatcher;
      request.setDispatcher(this.pool);
    }
    const method = request.getHttpMethod().toString();
    const headers = request.getHeaders();
    const contentType = Object.entries(headers).find(([key]) => key.toLowerCase() === "content-type")?.[1];
    const what = `${method} ${new URL(request.getUrl()).pathname}`;
    let attempts = 0;
    return new Observable(
      sendWithRetries(
        this.policy,
        { method, contentType },
        () => {
          // Checked before every attempt, a retry's too: a fence raised meanwhile stops a write, and stops a
          // read from being sent again (a pass of an operator that lost the lead ends at once, not after
          // a minute of retries against an apiserver away; its watches restart on their own).
          attempts += 1;
          const fenced = method === "GET" && attempts === 1 ? undefined : this.fence();
          if (fenced) return Promise.reject(new WriteFencedError(what, fenced));
          return this.inner.send(request).toPromise();
        },
        (response) => ({
          kind: "response",
          status: response.httpStatusCode,
          retryAfter: response.headers["retry-after"],
        }),
        async (response) => {
          await response.body.text();
        },
        (outcome, waitMs, retry) => this.onRetry?.(what, outcome, waitMs, retry),
      ),
    );
  }
}

/** The generic object client, with its discovery-backed path resolution made callable. */
class ObjectPaths extends KubernetesObjectApi {
  resolvePath(spec: KubernetesObject, action: "patch" | "read" | "delete"): Promise<string> {
    return this.specUriPath(spec, action);
  }

  async namespaced(apiVersion: string, kind: string): Promise<boolean | undefined> {
    return (await this.resource(apiVersion, kind))?.namespaced;
  }

  useDefaultNamespaceOf(kubeconfig: KubeConfig): void {
    this.setDefaultNamespace(kubeconfig);
  }
}

interface RawResponse {
  readonly status: number;
  readonly body: string;
  readonly retryAfter: string | undefined;
  readonly etag: string | undefined;
}

/** What a raw GET answered: 200 with a body, or 304 (nothing changed since `etag`) without one. */
export interface RawGetResponse {
  readonly status: number;
  readonly body: string;
  readonly etag: string | undefined;
}

function send(url: URL, options: RequestOptions, body: string, underWay: Set<ClientRequest>): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const request = httpsRequest(url, options, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () =>
        resolve({
          status: response.statusCode ?? 0,
          body: Buffer.concat(chunks).toString("utf8"),
          retryAfter: response.headers["retry-after"],
          etag: response.headers.etag,
        }),
      );
      response.on("error", reject);
    });
    request.on("error", reject);
    underWay.add(request);
    request.on("close", () => underWay.delete(request));
    request.end(body);
  });
}

/** The HTTP status of a failed API call, or undefined for any other error. */
export function statusOf(error: unknown): number | undefined {
  return error instanceof ApiException ? error.code : undefined;
}

/** Resolves to undefined instead of rejecting when the object does not exist (404). */
export async function orUndefined<T>(call: Promise<T>): Promise<T | undefined> {
  try {
    return await call;
  } catch (error) {
    if (statusOf(error) === 404) return undefined;
    throw error;
  }
}

/**
 * The product's one way into a cluster: typed clients over @kubernetes/client-node built from a
 * kubeconfig, all sharing a request counter, plus server-side apply and delete of arbitrary objects.
 */
export class KubeClient {
  readonly core: CoreV1Api;
  readonly apps: AppsV1Api;
  readonly extensions: ApiextensionsV1Api;
  readonly custom: CustomObjectsApi;
  readonly coordination: CoordinationV1Api;
  readonly events: EventsV1Api;
  private objects: ObjectPaths;
  private readonly server: string;
  private readonly counter = new RequestCounter();
  private readonly configuration: ReturnType<typeof createConfiguration>;
  private readonly retry: RetryPolicy;
  private readonly onRetry: RetryListener | undefined;
  private readonly http: RetryingHttpLibrary;
  /** The raw requests (applies, discovery) under way: closed with the pool's by `dropConnections`. */
  private readonly rawUnderWay = new Set<ClientRequest>();
  private fence: WriteFence = () => undefined;

  constructor(
    readonly kubeconfig: KubeConfig,
    options: KubeClientOptions = {},
  ) {
    const cluster = kubeconfig.getCurrentCluster();
    if (!cluster) throw new Error("the kubeconfig has no current cluster: set current-context");
    this.retry = options.retry ?? DEFAULT_RETRY_POLICY;
    this.onRetry = options.onRetry;
    // client-node's default HTTP library (undici's fetch), wrapped in the retry policy and the write fence.
    this.http = new RetryingHttpLibrary(createConfiguration().httpApi, this.retry, this.onRetry, () => this.fence());
    const configuration = createConfiguration({
      baseServer: new ServerConfiguration(cluster.server, {}),
      authMethods: { default: kubeconfig },
      httpApi: this.http,
      middleware: [setHeaderMiddleware("User-Agent", OPERATOR_NAME)],
      promiseMiddleware: [this.counter],
    });
    this.configuration = configuration;
    this.core = new CoreV1Api(configuration);
    this.apps = new AppsV1Api(configuration);
    this.extensions = new ApiextensionsV1Api(configuration);
    this.custom = new CustomObjectsApi(configuration);
    this.coordination = new CoordinationV1Api(configuration);
    this.events = new EventsV1Api(configuration);
    this.server = cluster.server.replace(/\/+$/, "");
    this.objects = this.makeObjectApi();
  }

  static fromFile(path: string, options: KubeClientOptions = {}): KubeClient {
    const kubeconfig = new KubeConfig();
    kubeconfig.loadFromFile(path);
    return new KubeClient(kubeconfig, options);
  }

  /** HTTP requests made so far through this client. */
  get requests(): number {
    return this.counter.count;
  }

  /** Write requests (any method but GET) made so far through this client, server-side applies included. */
  get writes(): number {
    return this.counter.writes;
  }

  /** The most recent write requests, oldest first, as `METHOD path` (`APPLY path` for a server-side apply). */
  get recentWrites(): readonly string[] {
    return [...this.counter.recentWrites];
  }

  /**
   * Refuses every write from now on while `fence` gives a reason (reads go on): an operator that lost the
   * lead writes nothing until it leads again, whatever pass is still under way.
   */
  fenceWrites(fence: WriteFence): void {
    this.fence = fence;
  }

  /**
   * Closes every connection, the requests under way included (they fail as a connection lost): what a
   * process that exits does to them, without exiting. The next request connects again.
   */
  dropConnections(): void {
    this.http.dropConnections();
    for (const request of this.rawUnderWay) request.destroy();
    this.rawUnderWay.clear();
  }

  private makeObjectApi(): ObjectPaths {
    const objects = new ObjectPaths(this.configuration);
    objects.useDefaultNamespaceOf(this.kubeconfig);
    return objects;
  }

  /**
   * Forgets what API discovery learnt. The generic object client caches which kinds each group serves;
   * after a chart installs new CRDs, the next apply must see them.
   */
  refreshDiscovery(): void {
    this.objects = this.makeObjectApi();
  }

  /**
   * Whether the API serves `kind` of `apiVersion` in namespaces (true) or cluster-wide (false);
   * undefined when it does not serve the kind at all (e.g. a CRD not installed yet).
   */
  async namespaced(apiVersion: string, kind: string): Promise<boolean | undefined> {
    this.counter.count += 1;
    return this.objects.namespaced(apiVersion, kind);
  }

  /**
   * Server-side apply with the product's field manager, taking ownership of the fields it sets. With
   * `dryRun`, the apiserver validates and admits the object without persisting it (`dryRun=All`).
   */
  async apply(
    object: ObjectHeader,
    options: { readonly fieldManager?: string; readonly dryRun?: boolean } = {},
  ): Promise<KubernetesObject> {
    this.counter.count += 1;
    // client-node's generic patch re-serialises built-in kinds through its typed models, which drops
    // JSON names it maps differently (`default`, `enum`, `x-kubernetes-validations` in a CRD): the
    // apply body is therefore sent as written, to the path the generic client resolves.
    const path = await this.objects.resolvePath(object as KubernetesObject, "patch");
    this.counter.recordWrite("APPLY", path);
    const url = new URL(`${this.server}${path}`);
    url.searchParams.set("fieldManager", options.fieldManager ?? FIELD_MANAGER);
    url.searchParams.set("force", "true");
    if (options.dryRun) url.searchParams.set("dryRun", "All");
    const requestOptions: RequestOptions = {
      method: "PATCH",
      headers: { "content-type": "application/apply-patch+yaml", accept: "application/json" },
    };
    await this.kubeconfig.applyToHTTPSOptions(requestOptions);
    const payload = JSON.stringify(object);
    const { status, body } = await sendWithRetries(
      this.retry,
      { method: "PATCH", contentType: "application/apply-patch+yaml" },
      () => {
        const fenced = this.fence();
        if (fenced) return Promise.reject(new WriteFencedError(`PATCH ${url.pathname}`, fenced));
        return send(url, requestOptions, payload, this.rawUnderWay);
      },
      (response) => ({
        kind: "response",
        status: response.status,
        retryAfter: response.retryAfter,
        // An apply passes through admission: a webhook that cannot be called is not a transient 500.
        failedWebhook:
          response.status === 500
            ? failedWebhookCall(statusMessage(response.body) ?? response.body)?.webhook
            : undefined,
      }),
      async () => {},
      (outcome, waitMs, retry) => this.onRetry?.(`PATCH ${url.pathname}`, outcome, waitMs, retry),
    );
    if (status >= 400)
      throw new ApiException(status, `server-side apply of ${object.kind} ${object.metadata.name} failed`, body, {});
    return JSON.parse(body) as KubernetesObject;
  }

  /**
   * A GET the typed clients cannot make: API discovery and server-side Tables, whose shapes client-node
   * does not model. `etag`, when given, is sent as If-None-Match: a 304 answer carries no body.
   */
  async get(path: string, accept: string, etag?: string): Promise<RawGetResponse> {
    this.counter.count += 1;
    const url = new URL(`${this.server}${path}`);
    const requestOptions: RequestOptions = {
      method: "GET",
      headers: { accept, ...(etag ? { "if-none-match": etag } : {}) },
    };
    await this.kubeconfig.applyToHTTPSOptions(requestOptions);
    const response = await sendWithRetries(
      this.retry,
      { method: "GET" },
      () => send(url, requestOptions, "", this.rawUnderWay),
      (answer) => ({ kind: "response", status: answer.status, retryAfter: answer.retryAfter }),
      async () => {},
      (outcome, waitMs, retry) => this.onRetry?.(`GET ${url.pathname}`, outcome, waitMs, retry),
    );
    if (response.status >= 400)
      throw new ApiException(response.status, `GET ${url.pathname} failed`, response.body, {});
    return { status: response.status, body: response.body, etag: response.etag };
  }

  /** The object as stored, or undefined when it does not exist. */
  async read(object: ObjectHeader): Promise<KubernetesObject | undefined> {
    // Counted by the request middleware, as the generic client's requests go through it.
    return orUndefined(this.objects.read(object as KubernetesObject & { metadata: { name: string } }));
  }

  /** Deletes an object; true when it existed. Dependents are collected in the background. */
  async delete(object: ObjectHeader): Promise<boolean> {
    this.counter.count += 1;
    this.counter.recordWrite("DELETE", `${object.kind} ${object.metadata.namespace ?? ""}/${object.metadata.name}`);
    const status = await orUndefined(
      this.objects.delete(object as KubernetesObject, undefined, undefined, undefined, undefined, "Background"),
    );
    return status !== undefined;
  }
}
