import type { ClientRequest } from "node:http";
import { request as httpsRequest, type RequestOptions } from "node:https";
import {
  ApiException,
  ApiextensionsV1Api,
  AppsV1Api,
  AuthenticationV1Api,
  AuthorizationV1Api,
  type Configuration,
  CoordinationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  createConfiguration,
  EventsV1Api,
  type HttpLibrary,
  HttpMethod,
  KubeConfig,
  type KubernetesObject,
  KubernetesObjectApi,
  Observable,
  type RequestContext,
  ResponseContext,
  ServerConfiguration,
  setHeaderMiddleware,
  type V1APIResource,
} from "@kubernetes/client-node";
import { OPERATOR_NAME } from "../api/group.js";
import { failedWebhookCall, statusMessage } from "./admission-webhook-failure.js";
import { type AttemptOutcome, DEFAULT_RETRY_POLICY, type RetryPolicy, sendWithRetries } from "./api-retry.js";
import { type DiscoveredKind, discoveredKindKey, discoveredKinds } from "./discovered-kinds.js";
import { METADATA_ACCEPT } from "./metadata-list.js";
import { type KeptAnswer, ReadOnce } from "./read-once.js";

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
class RequestCounter {
  count = 0;
  /** Every write (any method but GET), counted; the most recent ones remembered as `METHOD path`. */
  writes = 0;
  readonly recentWrites: string[] = [];
  recordWrite(method: string, path: string): void {
    this.writes += 1;
    this.recentWrites.push(`${method} ${path}`);
    if (this.recentWrites.length > WRITES_REMEMBERED) this.recentWrites.shift();
  }
  /** A typed or generic API call sent: counted where it leaves, so that an answer served again is not. */
  sent(context: RequestContext): void {
    this.count += 1;
    const method = String(context.getHttpMethod());
    if (method !== "GET") this.recordWrite(method, new URL(context.getUrl()).pathname);
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

/**
 * Hears of each request as it leaves for the apiserver: `GET`, `PATCH`…, the path with its query, and what
 * it accepts (a whole object, its metadata, a Table…).
 */
export type RequestListener = (method: string, path: string, accept: string) => void;

export interface KubeClientOptions {
  /** When failed requests are sent again (lib/cluster/api-retry.ts); DEFAULT_RETRY_POLICY unless given. */
  readonly retry?: RetryPolicy;
  readonly onRetry?: RetryListener;
  /**
   * Each GET sent once and its answer served again to every later asker, discovery included (read as a
   * whole: lib/cluster/discovered-kinds.ts), for the client's life (lib/cluster/read-once.ts): for a
   * process that reads the cluster once and changes nothing, `navique plan`. Never for a client that
   * writes, or lives on while the cluster changes.
   * @default false
   */
  readonly readOnce?: boolean;
  /** Told of each request sent (an answer served again sends none): what a run reads, path by path. @default none */
  readonly onRequest?: RequestListener;
}

/** What the client asked for, as `onRequest` hears it. */
function pathOf(url: string): string {
  const parsed = new URL(url);
  return `${parsed.pathname}${parsed.search}`;
}

/** The Accept header of a request, whatever its case: part of what makes an answer. */
function acceptOf(request: RequestContext): string {
  return Object.entries(request.getHeaders()).find(([key]) => key.toLowerCase() === "accept")?.[1] ?? "";
}

/** An answer kept by ReadOnce, as client-node reads a response: its body can be read again and again. */
function replayed(answer: KeptAnswer): ResponseContext {
  return new ResponseContext(
    answer.status,
    { ...answer.headers },
    {
      text: async () => answer.body,
      binary: async () => Buffer.from(answer.body, "utf8"),
      stream: () => null,
    },
  );
}

async function kept(response: ResponseContext): Promise<KeptAnswer> {
  // As text: client-node's binary() of an undici response calls a method undici's Response lacks.
  return { status: response.httpStatusCode, headers: response.headers, body: await response.body.text() };
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
    /** Told of each request that leaves (not of an answer served again). */
    private readonly sent: (request: RequestContext) => void,
    private readonly readOnce: ReadOnce | undefined,
  ) {}

  /** Closes every connection of the pool, requests under way included: the next request opens a new one. */
  dropConnections(): void {
    const pool = this.pool as { destroy?: () => Promise<void> } | undefined;
    this.pool = undefined;
    void pool?.destroy?.().catch(() => undefined);
  }

  send(request: RequestContext): Observable<ResponseContext> {
    const { readOnce } = this;
    if (!readOnce || request.getHttpMethod().toString() !== "GET") return new Observable(this.sendNow(request));
    const answer = readOnce.answer(`${request.getUrl()} ${acceptOf(request)}`, async () =>
      kept(await this.sendNow(request)),
    );
    return new Observable(answer.then(replayed));
  }

  /** The request sent at once, whatever answer is kept: every request of the client leaves here. */
  sendNow(request: RequestContext): Promise<ResponseContext> {
    this.sent(request);
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
    return sendWithRetries(
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
    );
  }
}

/**
 * The generic object client, with its discovery-backed path resolution made callable. Given `discovered`
 * (a client that reads once), a kind is looked up in the whole of discovery, read once, before client-node
 * reads its API version's resource list; a kind missing there is looked up as client-node does.
 */
class ObjectPaths extends KubernetesObjectApi {
  constructor(
    configuration: ConstructorParameters<typeof KubernetesObjectApi>[0],
    private readonly discovered?: () => Promise<ReadonlyMap<string, DiscoveredKind> | undefined>,
  ) {
    super(configuration);
  }

  protected override async resource(
    apiVersion: string,
    kind: string,
    options?: Configuration,
  ): Promise<V1APIResource | undefined> {
    const found = (await this.discovered?.())?.get(discoveredKindKey(apiVersion, kind));
    if (!found) return super.resource(apiVersion, kind, options);
    return { kind: found.kind, name: found.plural, namespaced: found.namespaced, singularName: "", verbs: [] };
  }

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
  /** TokenReviews: who a bearer token is (the console's login). */
  readonly authentication: AuthenticationV1Api;
  /** SubjectAccessReviews: whether a user may do something (the console's authorisation). */
  readonly authorization: AuthorizationV1Api;
  private objects: ObjectPaths;
  private readonly server: string;
  private readonly counter = new RequestCounter();
  private readonly configuration: ReturnType<typeof createConfiguration>;
  private readonly retry: RetryPolicy;
  private readonly onRetry: RetryListener | undefined;
  private readonly onRequest: RequestListener | undefined;
  private readonly http: RetryingHttpLibrary;
  /** The answers kept by a client that reads once; undefined for any other. */
  private readonly readOnce: ReadOnce | undefined;
  /** Every kind discovery serves, read once by a client that reads once (ObjectPaths). */
  private discovered: Promise<ReadonlyMap<string, DiscoveredKind> | undefined> | undefined;
  /** The server-side applies under way (sent apart from the pool): closed with the pool's by `dropConnections`. */
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
    this.onRequest = options.onRequest;
    this.readOnce = options.readOnce ? new ReadOnce() : undefined;
    // client-node's default HTTP library (undici's fetch), wrapped in the retry policy and the write fence.
    this.http = new RetryingHttpLibrary(
      createConfiguration().httpApi,
      this.retry,
      this.onRetry,
      () => this.fence(),
      (request) => {
        this.counter.sent(request);
        this.onRequest?.(request.getHttpMethod().toString(), pathOf(request.getUrl()), acceptOf(request));
      },
      this.readOnce,
    );
    const configuration = createConfiguration({
      baseServer: new ServerConfiguration(cluster.server, {}),
      authMethods: { default: kubeconfig },
      httpApi: this.http,
      middleware: [setHeaderMiddleware("User-Agent", OPERATOR_NAME)],
    });
    this.configuration = configuration;
    this.core = new CoreV1Api(configuration);
    this.apps = new AppsV1Api(configuration);
    this.extensions = new ApiextensionsV1Api(configuration);
    this.custom = new CustomObjectsApi(configuration);
    this.coordination = new CoordinationV1Api(configuration);
    this.events = new EventsV1Api(configuration);
    this.authentication = new AuthenticationV1Api(configuration);
    this.authorization = new AuthorizationV1Api(configuration);
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
    const discovered = this.readOnce
      ? () => {
          this.discovered ??= discoveredKinds(this);
          return this.discovered;
        }
      : undefined;
    const objects = new ObjectPaths(this.configuration, discovered);
    objects.useDefaultNamespaceOf(this.kubeconfig);
    return objects;
  }

  /**
   * Forgets what API discovery learnt. The generic object client caches which kinds each group serves;
   * after a chart installs new CRDs, the next apply must see them. A client that reads once forgets every
   * answer it kept.
   */
  refreshDiscovery(): void {
    this.discovered = undefined;
    this.readOnce?.forget();
    this.objects = this.makeObjectApi();
  }

  /**
   * Whether the API serves `kind` of `apiVersion` in namespaces (true) or cluster-wide (false);
   * undefined when it does not serve the kind at all (e.g. a CRD not installed yet). A request only when
   * discovery is not known yet (counted then, as it is sent): the answer is kept.
   */
  async namespaced(apiVersion: string, kind: string): Promise<boolean | undefined> {
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
    this.onRequest?.("PATCH", path, "application/json");
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
   * does not model. `etag`, when given, is sent as If-None-Match: a 304 answer carries no body. A client
   * that reads once serves the answer it kept, with its body (its ETag tells the asker it has it already).
   */
  async get(path: string, accept: string, etag?: string): Promise<RawGetResponse> {
    const answer = this.readOnce
      ? await this.keptGet(this.readOnce, path, accept)
      : await this.getNow(path, accept, etag);
    if (answer.status >= 400)
      throw new ApiException(answer.status, `GET ${path.split("?")[0]} failed`, answer.body, {});
    return answer;
  }

  /** A GET of a client that reads once: the answer kept, its refusals (404…) too, sent the first time only. */
  private async keptGet(readOnce: ReadOnce, path: string, accept: string): Promise<RawGetResponse> {
    const answer = await readOnce.answer(`${this.server}${path} ${accept}`, async (): Promise<KeptAnswer> => {
      const { status, body, etag } = await this.getNow(path, accept, undefined);
      return { status, body, headers: etag ? { etag } : {} };
    });
    return { status: answer.status, body: answer.body, etag: answer.headers.etag };
  }

  /**
   * The GET itself, through the client's one connection pool (RetryingHttpLibrary: its retries, its count),
   * as the typed clients' calls go: a request of its own opened a TLS connection of its own.
   */
  private async getNow(path: string, accept: string, etag: string | undefined): Promise<RawGetResponse> {
    const request = this.configuration.baseServer.makeRequestContext(path, HttpMethod.GET);
    request.setHeaderParam("Accept", accept);
    if (etag) request.setHeaderParam("If-None-Match", etag);
    await this.kubeconfig.applySecurityAuthentication(request);
    const response = await this.http.sendNow(request);
    return { status: response.httpStatusCode, body: await response.body.text(), etag: response.headers.etag };
  }

  /**
   * The object's metadata as stored (a PartialObjectMetadata: its labels and annotations, without what it
   * holds), or undefined when it does not exist: what a check of who holds an object reads, in a fraction
   * of the bytes and of the parsing a whole Deployment or CRD costs. A kind the API does not serve is
   * answered as `read` answers it.
   */
  async readMetadata(object: ObjectHeader): Promise<Pick<KubernetesObject, "metadata"> | undefined> {
    try {
      const path = await this.objects.resolvePath(object as KubernetesObject, "read");
      return JSON.parse((await this.get(path, METADATA_ACCEPT)).body) as Pick<KubernetesObject, "metadata">;
    } catch (error) {
      if (statusOf(error) === 404) return undefined;
      throw error;
    }
  }

  /** The object as stored, or undefined when it does not exist. */
  async read(object: ObjectHeader): Promise<KubernetesObject | undefined> {
    // Counted where it is sent (RetryingHttpLibrary), as the generic client's requests go through it.
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
