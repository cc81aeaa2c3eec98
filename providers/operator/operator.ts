import { type CoreV1Api, type KubernetesObject, makeInformer } from "@kubernetes/client-node";
import { API_GROUP, API_GROUP_VERSION, API_VERSION, OWNED_BY_LABEL } from "../../lib/api/group.js";
import { fieldPath, formatProblem } from "../../lib/api/validation.js";
import { ensureNaviqueCrds } from "../../lib/apply/navique-crds.js";
import { CATALOG } from "../../lib/catalog/catalog.js";
import type { ChartSource } from "../../lib/catalog/chart-source.js";
import type { HelmCli } from "../../lib/cluster/helm-cli.js";
import { type KubeClient, orUndefined } from "../../lib/cluster/kube-client.js";
import { instanceOf, wasAdmitted } from "../../lib/engine/admission.js";
import { neededNow } from "../../lib/engine/capabilities.js";
import { observeOptions } from "../../lib/engine/context.js";
import { allReferences, dependenciesOf } from "../../lib/engine/dependencies.js";
import { summarise } from "../../lib/engine/failure.js";
import type { EngineResource, KindModule } from "../../lib/engine/kind-module.js";
import type { KubeObject } from "../../lib/engine/objects.js";
import type { CachedInstances, ObjectKey } from "../../lib/engine/observe.js";
import { ownerOf } from "../../lib/engine/ownership.js";
import { type ReconcileOutcome, reconcileResource } from "../../lib/engine/reconcile.js";
import { watchedAs } from "../../lib/engine/workload-release.js";
import { REGISTRY, type Registry } from "../../lib/kinds/registry.js";
import { capOrder } from "../../lib/licence/enforce.js";
import { createReconcileContext, type ReconcileContext } from "../../lib/reconcile/context.js";
import { type Reporter, stderrReporter } from "../../lib/reporter.js";
import { CapabilityDecisions } from "./capability-decisions.js";
import { METADATA_LIST, metadataOnlyWatches } from "./metadata-only.js";
import type { OperatorObserver, ReconcileResult } from "./operator-observer.js";
import { OwnWrites } from "./own-writes.js";
import { HELM_RECORD_SELECTOR, ownedReleases } from "./owned-releases.js";
import { ReferenceIndex } from "./reference-index.js";
import { RefusedResources } from "./refused-resources.js";
import { ReverseIndex } from "./reverse-index.js";
import { UserSecrets } from "./user-secrets.js";
import { type Readiness, WatchReadiness } from "./watch-readiness.js";
import { backoffMs, WorkQueue } from "./work-queue.js";

export interface OperatorOptions {
  readonly client: KubeClient;
  readonly helm: HelmCli;
  readonly source?: ChartSource;
  /** Every resource is reconciled again this often, whatever the watches saw. @default 30_000 */
  readonly resyncMs?: number;
  /** Delay before looking again at a resource that is not Ready yet, unless its verdict asks for another (a slow rollout). @default 2_000 */
  readonly requeueMs?: number;
  readonly report?: Reporter;
  /** The clock licences are judged by. @default the system clock */
  readonly now?: () => Date;
  /** Public keys licences are verified with. @default the product's TRUSTED_KEYS */
  readonly trustedKeys?: ReadonlyMap<string, string>;
  /**
   * The namespaces to serve (`--watch-namespaces`); resources elsewhere are left to another operator.
   * Caps and capability reference counts stay cluster-wide. @default every namespace
   */
  readonly watchNamespaces?: readonly string[];
  /** The kinds served. @default the product's registry */
  readonly registry?: Registry;
  /**
   * How many resources are reconciled at once; one resource is never reconciled twice at once.
   * @default DEFAULT_WORKERS
   */
  readonly workers?: number;
  /** Told of each pass and each capability install (the process's metrics). @default none */
  readonly observer?: OperatorObserver;
}

/**
 * Reconciles run at once by default: a change re-queueing the referrers of a resource is seen by them all
 * within a pass or two, not one pass per referrer; few enough that the operator's one thread and the
 * apiserver are not flooded at a resync (docs/performance.md, the re-wiring of referrers).
 */
export const DEFAULT_WORKERS = 4;

/**
 * How soon a failed watch is started again: short, so that an apiserver back after an outage is watched
 * again — and the drift of the outage seen — within a second or two. A watch refused meanwhile costs one
 * refused connection a second.
 */
const WATCH_RETRY_MS = 1_000;

type Watch = {
  start(): Promise<void>;
  stop(): Promise<void>;
  on(event: string, cb: (arg: unknown) => void): void;
  /** Every object held, or a namespace's only (client-node's cache indexes them by namespace). */
  list(namespace?: string): KubernetesObject[];
  get(name: string, namespace?: string): KubernetesObject | undefined;
};

/**
 * A registered kind's watch cache: complete once its informer listed, its instances (and the seats the
 * cap gave: the admitted instances) computed once per change.
 */
interface KindCache {
  readonly informer: Watch;
  synced: boolean;
  instances: KindInstances | undefined;
}

/** How a list-watch is made. */
interface WatchOptions {
  readonly labelSelector?: string;
  /** Told whether the informer's cache is complete: after each (re)start's list, and when its watch fails. */
  readonly onSynced?: (synced: boolean) => void;
  /** Its watch events carry the objects' metadata only; its list must ask for the same (METADATA_LIST). */
  readonly metadataOnly?: boolean;
}

/** One list-watch's cache of a kind, complete once listed and while its watch runs. */
interface ObjectCache {
  readonly informer: Watch;
  synced: boolean;
}

/** The key of the one cache of a kind watched in every namespace. */
const ALL_NAMESPACES = "";

/** A kind's instances as the cap sees them, and the seats taken: who is admitted, as one comparable string. */
type KindInstances = CachedInstances & { readonly seats: string };

/** One watch the registry calls for: a kind, whether only the objects carrying an owned-by label matter. */
interface WatchedKind {
  readonly apiVersion: string;
  readonly kind: string;
  readonly plural: string;
  readonly ownedOnly: boolean;
}

/**
 * What of a resource a pass decides from: its spec (through its generation), labels, annotations and
 * deletion. Not its status, which the pass itself writes; nor its finalizers, which the first pass itself
 * adds and no decision reads (a finalizer of ours removed by hand is added again at the resync).
 */
function decidingSignature(object: KubernetesObject): string {
  const { generation, deletionTimestamp, labels, annotations } = object.metadata ?? {};
  return JSON.stringify([generation, deletionTimestamp, labels, annotations]);
}

/** `Kind/namespace/name` of a resource: the one key shape of the work queue. */
function keyOf(kind: string, namespace: string, name: string): string {
  return `${kind}/${namespace}/${name}`;
}

/** How each core kind a module may emit is listed: the core group has no generic path in the client. */
const CORE_LISTS: Readonly<
  Record<
    string,
    {
      all: (core: CoreV1Api, selector: { labelSelector?: string }) => Promise<unknown>;
      in: (core: CoreV1Api, namespace: string, selector: { labelSelector?: string }) => Promise<unknown>;
    }
  >
> = {
  Secret: {
    all: (core, selector) => core.listSecretForAllNamespaces(selector),
    in: (core, namespace, selector) => core.listNamespacedSecret({ namespace, ...selector }),
  },
  PersistentVolumeClaim: {
    all: (core, selector) => core.listPersistentVolumeClaimForAllNamespaces(selector),
    in: (core, namespace, selector) => core.listNamespacedPersistentVolumeClaim({ namespace, ...selector }),
  },
  Service: {
    all: (core, selector) => core.listServiceForAllNamespaces(selector),
    in: (core, namespace, selector) => core.listNamespacedService({ namespace, ...selector }),
  },
  ServiceAccount: {
    all: (core, selector) => core.listServiceAccountForAllNamespaces(selector),
    in: (core, namespace, selector) => core.listNamespacedServiceAccount({ namespace, ...selector }),
  },
};

/**
 * The watches the registry needs, each once: every registered kind (all its objects) and every kind a
 * module emits (only the objects carrying the owned-by label), merged by kind — a kind both registered
 * and emitted (a composite's members) is watched once, in full.
 */
export function watchedKinds(kinds: readonly KindModule[]): WatchedKind[] {
  const watched = new Map<string, WatchedKind>();
  for (const module of kinds) {
    const { kind, plural } = module.definition;
    watched.set(`${API_GROUP_VERSION}/${kind}`, { apiVersion: API_GROUP_VERSION, kind, plural, ownedOnly: false });
  }
  for (const module of kinds) {
    for (const emitted of module.emits.map(watchedAs)) {
      const id = `${emitted.apiVersion}/${emitted.kind}`;
      if (!watched.has(id)) watched.set(id, { ...emitted, ownedOnly: true });
    }
  }
  return [...watched.values()];
}

/**
 * The in-cluster front end, a loop over the registry: it watches every registered kind, the objects they
 * emit (mapped back to their owner through the owner annotation), the grants (re-queueing exactly the
 * resources whose references point into the grant's namespace, from a reverse index) and the licence
 * singleton, and runs the same reconcile as every other front end, a few resources at a time (never one
 * twice at once), requeueing what is not Ready and backing off exponentially on real failures. Drift is corrected because every
 * watch event and every resync re-applies the desired state: every kind a module emits is watched, and so
 * is every capability release the product installed (a release uninstalled by hand re-queues, from a
 * keyed index, the resources needing it, which install it again).
 */
export class NaviqueOperator {
  private readonly context: ReconcileContext;
  private readonly registry: Registry;
  /** The registered kinds' names: an emitted object's owner annotation must name one of them. */
  private readonly kindNames: readonly string[];
  private readonly queue: WorkQueue;
  private readonly failures = new Map<string, number>();
  /** When a failing key is due again: a resync does not cut its backoff short (a watch event may: it can be the fix). */
  private readonly retryAt = new Map<string, number>();
  private readonly references = new ReferenceIndex();
  /** By resource key, the capabilities it needs now, prerequisites included: who to re-queue when a release goes. */
  private readonly consumers = new ReverseIndex();
  /** By registered kind, its watch cache; only when every namespace is watched (caps count cluster-wide). */
  private readonly caches = new Map<string, KindCache>();
  /**
   * By `apiVersion/kind`, every watched kind's caches: by namespace served, or one (ALL_NAMESPACES) when
   * every namespace is watched. A pass reads the objects it emitted from them (cachedObject).
   */
  private readonly objectCaches = new Map<string, Map<string, ObjectCache>>();
  private readonly watches: Watch[] = [];
  /** Whether every watch has listed and watches: the process's readiness. */
  private readonly watchReadiness = new WatchReadiness(WATCH_RETRY_MS);
  private resync: NodeJS.Timeout | undefined;
  private readonly report: Reporter;
  private stopped = false;
  /** Whether the watches are started (watchAll). */
  private watching = false;
  /** Watches waiting to be started again after a failure; cleared by `stop`. */
  private readonly restarts = new Set<NodeJS.Timeout>();
  /** The namespaces served; undefined: every namespace. */
  private readonly namespaces: readonly string[] | undefined;
  /** The entitlements the last singleton pass found, to notice when they change. */
  private entitlementsInForce: string | undefined;
  /** The licence singleton's watch, complete once listed. */
  private licenceWatch: { informer: Watch; synced: boolean } | undefined;
  private readonly refused = new RefusedResources();
  /** By resource key, what its last watch event showed of the inputs a pass decides from (decidingChanged). */
  private readonly deciding = new Map<string, string>();
  /** The resources each claimant claims on, by key: told when it changes or goes. */
  private readonly claimTargets = new Map<string, readonly string[]>();
  /** This operator's status writes its watch caches do not hold yet: those resources are read from the apiserver. */
  private readonly ownWrites = new OwnWrites();
  /** The capability decisions, kept between watch events of what they are decided from. */
  private readonly decisions: CapabilityDecisions;
  /** By namespace served (ALL_NAMESPACES when every one is), the metadata-only watch of Secrets. */
  private readonly secretMetadata = new Map<string, ObjectCache>();
  /** The users' Secrets the passes read, kept while that watch shows them unchanged. */
  private readonly userSecrets = new UserSecrets((namespace) => {
    const cache = this.secretMetadata.get(this.namespaces ? namespace : ALL_NAMESPACES);
    return cache && { synced: cache.synced, get: (name, ns) => cache.informer.get(name, ns) };
  });

  constructor(private readonly options: OperatorOptions) {
    this.report = options.report ?? stderrReporter;
    this.registry = options.registry ?? REGISTRY;
    this.kindNames = this.registry.kinds.map((m) => m.definition.kind);
    this.namespaces =
      options.watchNamespaces && options.watchNamespaces.length > 0 ? [...options.watchNamespaces] : undefined;
    this.context = {
      ...createReconcileContext({
        client: options.client,
        helm: options.helm,
        ...(options.source ? { source: options.source } : {}),
        report: this.report,
        ...(options.now ? { now: options.now } : {}),
        ...(options.trustedKeys ? { trustedKeys: options.trustedKeys } : {}),
        ...(this.namespaces ? { watchNamespaces: this.namespaces } : {}),
        ...(options.observer ? { installObserver: options.observer } : {}),
      }),
      registry: this.registry.kinds,
      instances: (kind) => this.cachedInstances(kind),
      licences: () => (this.licenceWatch?.synced ? this.licenceWatch.informer.list() : undefined),
      resources: (kind) => {
        const cache = this.caches.get(kind);
        return cache?.synced ? cache.informer.list() : undefined;
      },
      cached: (key) => this.cachedObject(key),
      grants: (namespace) => this.cachedGrants(namespace),
      userSecret: (key, reader, read) => this.userSecrets.read(key, reader, read),
      detect: (capability) => this.decisions.decide(capability),
      statusWritten: (resource, resourceVersion) =>
        this.ownWrites.wrote(
          keyOf(resource.kind, resource.metadata.namespace, resource.metadata.name),
          resourceVersion,
        ),
    };
    this.decisions = new CapabilityDecisions(
      (capability) => this.context.installer.observe(capability),
      new Set(ownedReleases(CATALOG).namespaces),
    );
    this.queue = new WorkQueue((key) => this.pass(key), Date.now, options.workers ?? DEFAULT_WORKERS);
  }

  private get singletonKey(): string {
    return this.registry.singleton.definition.kind;
  }

  /**
   * Every resource of a kind as the cap sees it, from the kind's watch cache: the same objects a list would
   * return, without a request per decision. Undefined while the cache is not complete (not listed yet, or
   * its watch failed and restarts): the engine lists then.
   */
  private cachedInstances(kind: string): KindInstances | undefined {
    const cache = this.caches.get(kind);
    if (!cache?.synced) return undefined;
    if (!cache.instances) {
      const now = (this.options.now ?? (() => new Date()))().toISOString();
      const list = cache.informer
        .list()
        .flatMap((object) =>
          object.metadata?.name && object.metadata.namespace ? [instanceOf(object as EngineResource, now)] : [],
        );
      const seats = list
        .filter((i) => i.admitted)
        .map((i) => `${i.namespace}/${i.name}`)
        .sort()
        .join(",");
      cache.instances = { list, ahead: capOrder(list), seats };
    }
    return cache.instances;
  }

  /**
   * An object as this operator's watches hold it: any registered kind's, an emitted kind's carrying the
   * owned-by label. Undefined when no complete cache holds it (the engine reads it then): a miss never
   * says the object is absent — one without the product's marks is in no cache.
   */
  private cachedObject(key: ObjectKey): KubeObject | undefined {
    const caches = this.objectCaches.get(`${key.apiVersion}/${key.kind}`);
    const cache = caches?.get(this.namespaces ? key.namespace : ALL_NAMESPACES);
    if (!cache?.synced) return undefined;
    return cache.informer.get(key.name, key.namespace) as KubeObject | undefined;
  }

  /**
   * The ReferenceGrants of a namespace as the grants watch holds them: no list per pass. Undefined while
   * that watch is not complete, or when it does not cover the namespace (one not served): they are listed.
   */
  private cachedGrants(namespace: string): readonly KubernetesObject[] | undefined {
    const caches = this.objectCaches.get(`${API_GROUP_VERSION}/${this.registry.grants.kind}`);
    const cache = caches?.get(this.namespaces ? namespace : ALL_NAMESPACES);
    return cache?.synced ? cache.informer.list(namespace) : undefined;
  }

  /** A list-watch's cache, recorded under its kind and namespace (incomplete until its informer says). */
  private recordCache(watched: WatchedKind, namespace: string, informer: Watch): ObjectCache {
    const id = `${watched.apiVersion}/${watched.kind}`;
    const caches = this.objectCaches.get(id) ?? new Map<string, ObjectCache>();
    this.objectCaches.set(id, caches);
    const cache: ObjectCache = { informer, synced: false };
    caches.set(namespace, cache);
    return cache;
  }

  private module(kind: string): KindModule | undefined {
    return this.registry.kinds.find((m) => m.definition.kind === kind);
  }

  /**
   * Ready once every watch has listed and watches, a standby's as a leader's (WatchReadiness); not ready
   * before the watches start, nor while one that failed is restoring, the reason saying which and why.
   */
  readiness(): Readiness {
    return this.watchReadiness.readiness();
  }

  /** The keys waiting in the work queue: its depth, as the metrics report it. */
  get queueDepth(): number {
    return this.queue.size;
  }

  /**
   * Starts as one process without election does: the watches, then the lead. With election,
   * lib/cli/operator-command.ts calls `watch` at once and `lead` once the leader Lease is held.
   */
  async start(): Promise<void> {
    // The CRDs first, so that the watches of the product's kinds list at once instead of failing once.
    await ensureNaviqueCrds(this.options.client);
    this.watchAll();
    await this.runPasses();
  }

  /**
   * Starts every watch and runs no pass: a standby's caches are complete by the time it leads, so that its
   * first passes read nothing the watches hold (a failover costs the lease, not the lists). Their events
   * are kept in the queue, which starts nothing until `lead`. Writes nothing. Once only.
   */
  watchAll(): void {
    if (this.watching) return;
    this.watching = true;
    void this.queue.pause();
    for (const watched of watchedKinds(this.registry.kinds)) {
      this.watchKind(watched, (object, event) => this.keysConcerned(watched, object, event));
    }
    // A grant created, changed or removed: every resource referencing its namespace is judged again at
    // once (a removed grant revokes what it allowed), not at the next resync.
    const { grants } = this.registry;
    this.watchKind(
      { apiVersion: API_GROUP_VERSION, kind: grants.kind, plural: grants.plural, ownedOnly: false },
      (object) => {
        const namespace = object.metadata?.namespace;
        return namespace ? this.references.referringInto(namespace) : [];
      },
    );
    const singleton = this.registry.singleton.definition;
    const licenceWatch = this.watch(
      `/apis/${API_GROUP}/${API_VERSION}/${singleton.plural}`,
      async () =>
        this.options.client.custom.listClusterCustomObject({
          group: API_GROUP,
          version: API_VERSION,
          plural: singleton.plural,
        }),
      () => [this.singletonKey],
      {
        onSynced: (synced) => {
          if (this.licenceWatch) this.licenceWatch.synced = synced;
        },
      },
    );
    this.licenceWatch = { informer: licenceWatch, synced: false };
    this.watchCapabilities();
    this.watchSecretMetadata();
  }

  /**
   * Runs passes: every resource queued now (what the watches kept, and the rest), a resync every
   * `resyncMs`. A new term starts without the backoffs of the last one: a pass that failed while the
   * apiserver was away or the lead was lost is tried at once.
   */
  async lead(): Promise<void> {
    this.watchAll();
    // Each term: the leader before may have been another version, with other CRDs.
    await ensureNaviqueCrds(this.options.client);
    await this.runPasses();
  }

  private async runPasses(): Promise<void> {
    this.failures.clear();
    this.retryAt.clear();
    this.queue.resume();
    await this.enqueueAll();
    if (this.resync) clearInterval(this.resync);
    this.resync = setInterval(() => void this.enqueueAll(), this.options.resyncMs ?? 30_000);
    const scope = this.namespaces ? `namespaces ${this.namespaces.join(", ")}` : "every namespace";
    const emitted = watchedKinds(this.registry.kinds)
      .filter((w) => w.ownedOnly)
      .map((w) => `owned ${w.kind}s`);
    this.report(
      `[operator] started: watching ${[...this.kindNames.map((k) => `${k}s`), ...emitted].join(", ")} in ${scope}, the capability release namespaces' helm records and Deployments, the CRDs and the Secrets (metadata only), and the ${this.registry.singleton.definition.kind}`,
    );
  }

  /**
   * Stops running passes and keeps watching, after the lead was lost: the passes under way end first (the
   * caller fenced the writes and dropped the connections, so they end at once). `lead` takes over again.
   */
  async standBy(): Promise<void> {
    if (this.resync) clearInterval(this.resync);
    this.resync = undefined;
    await this.queue.pause();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.resync) clearInterval(this.resync);
    for (const timer of this.restarts) clearTimeout(timer);
    this.restarts.clear();
    await Promise.all(this.watches.map((w) => w.stop().catch(() => undefined)));
    await this.queue.stop();
  }

  /**
   * The keys a watch event concerns: a registered kind's resource itself (unless nothing it decides
   * from changed), the resources refused for a seat it held (when it is gone), the owner of an emitted
   * object (a member's change too), and the resources referring to it.
   */
  private keysConcerned(watched: WatchedKind, object: KubernetesObject, event: string): string[] {
    const { namespace, name } = object.metadata ?? {};
    const keys: string[] = [];
    const module = watched.apiVersion === API_GROUP_VERSION ? this.module(watched.kind) : undefined;
    if (module && namespace && name) {
      const key = keyOf(watched.kind, namespace, name);
      if (this.decidingChanged(key, object, event)) keys.push(key);
      // The targets it claims on, before and after: each makes, keeps or drops the claim.
      keys.push(...this.index(module, key, object, event));
      // An admitted resource gone freed a seat: those refused are judged again now, not at the resync.
      if (event === "delete" && wasAdmitted(object as EngineResource)) {
        keys.push(...this.refused.withPrefix(`${watched.kind}/`));
      }
    }
    const owner = ownerOf(object, this.kindNames);
    if (owner) keys.push(owner);
    // A Secret of a resource changed (a claim's password re-created, a rotation): those that copied from it
    // through a reference — the claimant of a claim — are told at once, not at the resync.
    if (owner && watched.kind === "Secret") {
      const [kind = "", ownerNamespace = "", ownerName = ""] = owner.split("/");
      const target = ReferenceIndex.targetKey({ group: API_GROUP, kind, namespace: ownerNamespace, name: ownerName });
      keys.push(...this.references.referring(target));
    }
    if (namespace && name) {
      const group = watched.apiVersion.includes("/") ? (watched.apiVersion.split("/")[0] ?? "") : "";
      keys.push(...this.references.referring(ReferenceIndex.targetKey({ group, kind: watched.kind, namespace, name })));
    }
    return keys;
  }

  /**
   * Whether a watch event of a registered kind changed anything a pass decides from (decidingSignature).
   * An update of the status or finalizers alone — what the passes themselves write — would only start
   * another pass deciding the same (controller-runtime's GenerationChangedPredicate with the label and
   * annotation predicates). Owners and referrers of the object are told either way: a member's status is
   * what its composite reports.
   */
  private decidingChanged(key: string, object: KubernetesObject, event: string): boolean {
    if (event === "delete") {
      this.deciding.delete(key);
      return true;
    }
    const deciding = decidingSignature(object);
    const before = this.deciding.get(key);
    this.deciding.set(key, deciding);
    if (event !== "update" || before !== deciding) return true;
    this.refused.renewed(key, object.metadata?.resourceVersion ?? "");
    return false;
  }

  /**
   * Keeps the reverse indexes (references, capabilities needed, claims) in step with what a resource says
   * now; returns the keys of the resources it claimed on before and claims on now.
   */
  private index(module: KindModule, key: string, object: KubernetesObject, event: string): string[] {
    const before = [...(this.claimTargets.get(key) ?? [])];
    if (event === "delete") {
      this.forget(key);
      return before;
    }
    const parsed = module.schema.safeParse(object);
    if (!parsed.success) return before;
    this.references.set(key, allReferences(module, parsed.data));
    this.consumers.set(key, neededNow(module, parsed.data, this.context));
    const now = dependenciesOf(module, parsed.data)
      .filter((d) => d.claim)
      .map((d) => keyOf(d.kind, d.namespace, d.name));
    if (now.length > 0) this.claimTargets.set(key, now);
    else this.claimTargets.delete(key);
    return [...new Set([...before, ...now])];
  }

  private forget(key: string): void {
    this.ownWrites.forget(key);
    this.claimTargets.delete(key);
    this.references.forget(key);
    this.consumers.forget(key);
    this.userSecrets.forget(key);
  }

  /**
   * Every Secret of the namespaces served, in metadata only: whether a user's Secret a pass read has
   * changed since (UserSecrets). Its events re-queue the resources that read the Secret.
   */
  private watchSecretMetadata(): void {
    const { core } = this.options.client;
    const keysOf = (object: KubernetesObject, event: string) => this.userSecrets.changed(object, event);
    const scopes = this.namespaces ?? [ALL_NAMESPACES];
    for (const scope of scopes) {
      let cache: ObjectCache | undefined;
      const everywhere = scope === ALL_NAMESPACES;
      const informer = this.watch(
        everywhere ? "/api/v1/secrets" : `/api/v1/namespaces/${scope}/secrets`,
        async () =>
          everywhere
            ? core.listSecretForAllNamespaces({}, METADATA_LIST)
            : core.listNamespacedSecret({ namespace: scope }, METADATA_LIST),
        keysOf,
        {
          metadataOnly: true,
          onSynced: (synced) => {
            if (cache) cache.synced = synced;
          },
        },
      );
      cache = { informer, synced: false };
      this.secretMetadata.set(scope, cache);
    }
  }

  /**
   * What capability decisions are decided from, watched in metadata only: helm's release records and the
   * Deployments of each release namespace of the catalog, and the cluster's CRDs. Any event of theirs
   * forgets the kept decisions (CapabilityDecisions). An owned release uninstalled by hand re-queues the
   * resources needing it (its dependants' through their prerequisites), which install it again at once
   * rather than at the resync: the decisions are forgotten before those passes are queued. So does any
   * change of a Deployment in a release namespace (scaled, deleted, its replicas gone unavailable or back):
   * OperatorsReady says a controller that stopped serving at once, and an Owned one is restored.
   */
  private watchCapabilities(): void {
    const releases = ownedReleases(CATALOG);
    const { core, apps, extensions } = this.options.client;
    const changed = () => {
      this.decisions.changed();
      return [];
    };
    for (const namespace of releases.namespaces) {
      this.watch(
        `/api/v1/namespaces/${namespace}/secrets`,
        async () => core.listNamespacedSecret({ namespace, labelSelector: HELM_RECORD_SELECTOR }, METADATA_LIST),
        (object, event) => {
          this.decisions.changed();
          const capability = releases.released(object, event);
          return capability ? this.consumers.holders(capability) : [];
        },
        {
          labelSelector: HELM_RECORD_SELECTOR,
          metadataOnly: true,
          onSynced: this.decisions.source(`release records in ${namespace}`),
        },
      );
      this.watch(
        `/apis/apps/v1/namespaces/${namespace}/deployments`,
        async () => apps.listNamespacedDeployment({ namespace }, METADATA_LIST),
        () => {
          this.decisions.changed();
          return releases.installedIn(namespace).flatMap((capability) => this.consumers.holders(capability));
        },
        { metadataOnly: true, onSynced: this.decisions.source(`Deployments in ${namespace}`) },
      );
    }
    this.watch(
      "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
      async () => extensions.listCustomResourceDefinition({}, METADATA_LIST),
      changed,
      { metadataOnly: true, onSynced: this.decisions.source("CRDs") },
    );
  }

  /**
   * A list-watch whose events enqueue the resources concerned. client-node's informer relists
   * after a 410 but stops on other errors (and on a kind not served yet, such as CNPG's before the
   * operator is installed): it is restarted here after a pause.
   */
  private watch(
    path: string,
    list: () => Promise<unknown>,
    keysOf: (object: KubernetesObject, event: string) => readonly string[],
    options: WatchOptions = {},
  ): Watch {
    const { labelSelector, onSynced = () => {}, metadataOnly = false } = options;
    const { kubeconfig } = this.options.client;
    const progress = this.watchReadiness.track(path);
    const informer = makeInformer(
      metadataOnly ? metadataOnlyWatches(kubeconfig) : kubeconfig,
      path,
      list as never,
      labelSelector,
    ) as unknown as Watch;
    for (const event of ["add", "update", "delete"]) {
      informer.on(event, (object: unknown) => {
        onSynced(true);
        for (const key of keysOf(object as KubernetesObject, event)) this.queue.add(key);
      });
    }
    // client-node's start resolves after a failed list too (its error said through the "error" event): the
    // cache is complete only when the start it belongs to saw no error.
    let failedSince: number | undefined;
    let startFailed = false;
    const started = () => {
      if (startFailed) return;
      onSynced(true);
      progress.listed();
      if (failedSince !== undefined) {
        this.report(`[operator] watch ${path} restored after ${Date.now() - failedSince} ms`);
        failedSince = undefined;
      }
    };
    const begin = () => {
      startFailed = false;
      void informer.start().then(started, (error: unknown) => {
        // Its watch request refused after the list (no "error" event then): not watching, so not synced.
        progress.failed(error);
        restart();
      });
    };
    const restart = () => {
      if (this.stopped) return;
      // Stopped while waiting: the watch is not started again (a watch opened after stop holds the process).
      const timer = setTimeout(() => {
        this.restarts.delete(timer);
        if (!this.stopped) begin();
      }, WATCH_RETRY_MS);
      this.restarts.add(timer);
    };
    informer.on("error", (error: unknown) => {
      startFailed = true;
      onSynced(false);
      progress.failed(error);
      // Said once per outage, not once a second.
      if (failedSince === undefined && !this.stopped) {
        failedSince = Date.now();
        this.report(
          `[operator] watch ${path} failed (${error instanceof Error ? error.message.split("\n")[0] : String(error)}): started again every ${WATCH_RETRY_MS} ms until it lists`,
        );
      }
      restart();
    });
    this.watches.push(informer);
    begin();
    return informer;
  }

  /**
   * Watches one namespaced kind: across the cluster, or with --watch-namespaces one list-watch per
   * namespace served, so that the operator needs to read nothing elsewhere.
   */
  private watchKind(
    watched: WatchedKind,
    keysOf: (object: KubernetesObject, event: string) => readonly string[],
  ): void {
    const { custom, core } = this.options.client;
    const [group = "", version = ""] = watched.apiVersion.includes("/")
      ? watched.apiVersion.split("/")
      : ["", watched.apiVersion];
    const labelSelector = watched.ownedOnly ? OWNED_BY_LABEL : undefined;
    const selector = labelSelector ? { labelSelector } : {};
    const base = group === "" ? `/api/${version}` : `/apis/${group}/${version}`;
    const coreLists = CORE_LISTS[watched.kind];
    if (group === "" && !coreLists) {
      throw new Error(
        `the operator watches no core kind but ${Object.keys(CORE_LISTS).join(" and ")}; ${watched.kind} was declared watched`,
      );
    }
    const listAll = async () =>
      coreLists
        ? coreLists.all(core, selector)
        : custom.listClusterCustomObject({ group, version, plural: watched.plural, ...selector });
    const listIn = async (namespace: string) =>
      coreLists
        ? coreLists.in(core, namespace, selector)
        : custom.listNamespacedCustomObject({ group, version, namespace, plural: watched.plural, ...selector });
    // The informers start asynchronously: their caches are recorded before they can say they are complete.
    if (!this.namespaces) {
      let objects: ObjectCache | undefined;
      const informer = this.watch(`${base}/${watched.plural}`, listAll, keysOf, {
        ...selector,
        onSynced: (synced) => {
          if (objects) objects.synced = synced;
          const cache = this.caches.get(watched.kind);
          if (cache && !watched.ownedOnly && watched.apiVersion === API_GROUP_VERSION) {
            cache.synced = synced;
            cache.instances = undefined;
          }
        },
      });
      objects = this.recordCache(watched, ALL_NAMESPACES, informer);
      if (!watched.ownedOnly && watched.apiVersion === API_GROUP_VERSION && this.module(watched.kind)) {
        this.caches.set(watched.kind, { informer, synced: false, instances: undefined });
      }
      return;
    }
    for (const namespace of this.namespaces) {
      let objects: ObjectCache | undefined;
      const informer = this.watch(
        `${base}/namespaces/${namespace}/${watched.plural}`,
        () => listIn(namespace),
        keysOf,
        {
          ...selector,
          onSynced: (synced) => {
            if (objects) objects.synced = synced;
          },
        },
      );
      objects = this.recordCache(watched, namespace, informer);
    }
  }

  private async enqueueAll(): Promise<void> {
    this.queue.add(this.singletonKey);
    await this.enqueueResources();
  }

  /**
   * Every resource of every registered kind: at each resync, and at once when the entitlements in force
   * change — but those whose last pass was a licence refusal decided from the same inputs (RefusedResources),
   * and those still backing off. From the watch caches when they are complete, else listed.
   */
  private async enqueueResources(): Promise<void> {
    try {
      const entitlements = this.entitlementsInForce;
      for (const module of this.registry.kinds) {
        const { kind } = module.definition;
        const resources = await this.resourcesOf(module);
        // The kind's seats once per resync, not once per resource.
        const seats = this.cachedInstances(kind)?.seats;
        const now = Date.now();
        for (const item of resources) {
          const { namespace = "", name = "", resourceVersion = "" } = item.metadata ?? {};
          const key = keyOf(kind, namespace, name);
          if ((this.retryAt.get(key) ?? 0) > now) continue;
          if (seats !== undefined && entitlements !== undefined) {
            if (this.refused.unchanged(key, { resourceVersion, seats, entitlements })) continue;
          }
          this.queue.add(key);
        }
      }
    } catch (error) {
      this.report(`[operator] resync failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /** A registered kind's resources: its watch cache when complete, else a list of the namespaces served. */
  private async resourcesOf(module: KindModule): Promise<readonly KubernetesObject[]> {
    const cache = this.caches.get(module.definition.kind);
    if (cache?.synced) return cache.informer.list();
    const { custom } = this.options.client;
    const kind = { group: API_GROUP, version: API_VERSION, plural: module.definition.plural };
    const items = async (response: Promise<unknown>) =>
      ((await response) as { items?: KubernetesObject[] }).items ?? [];
    if (!this.namespaces) return items(custom.listClusterCustomObject(kind));
    const lists = await Promise.all(
      this.namespaces.map((namespace) => items(custom.listNamespacedCustomObject({ ...kind, namespace }))),
    );
    return lists.flat();
  }

  private async reconcileSingleton(): Promise<ReconcileResult> {
    const key = this.singletonKey;
    try {
      // The same clock and keys as every other reconcile.
      const { now, trustedKeys } = observeOptions(this.context);
      const outcome = await this.registry.singleton.reconcile(this.options.client, {
        now,
        ...(trustedKeys ? { trustedKeys } : {}),
      });
      if (outcome?.downgraded) this.report(`[operator] ${outcome.downgraded}`);
      this.succeeded(key);
      // A licence applied, renewed, expired or removed: every resource is judged again now, not at the next resync.
      const entitlements = outcome?.entitlements;
      const inForce = JSON.stringify(
        entitlements
          ? { id: entitlements.licenseId, features: [...entitlements.features], caps: entitlements.caps }
          : "Community",
      );
      const changed = this.entitlementsInForce !== undefined && inForce !== this.entitlementsInForce;
      this.entitlementsInForce = inForce;
      if (changed) await this.enqueueResources();
      return "success";
    } catch (error) {
      this.retryLater(key, error);
      return "error";
    }
  }

  /** A pass that ended refused by the licence, nothing done, with what it was decided from; any other forgets it. */
  private rememberRefusal(
    key: string,
    kind: string,
    resource: EngineResource | undefined,
    outcome: ReconcileOutcome | undefined,
  ): void {
    const seats = this.cachedInstances(kind)?.seats;
    const entitlements = this.entitlementsInForce;
    const resourceVersion = resource && this.resourceVersionAfter(kind, resource);
    const refused = outcome?.plan.refusal && outcome.plan.steps.length === 0 && !outcome.requeue;
    if (refused && seats !== undefined && entitlements !== undefined && resourceVersion !== undefined) {
      this.refused.record(key, { resourceVersion, seats, entitlements });
    } else {
      this.refused.forget(key);
    }
  }

  /**
   * The resource's resourceVersion once the pass's own writes are in: the watch cache's, when the cache
   * holds it changed in nothing a pass decides from (the writes came back before the pass ended), else
   * the one read (the writes' events, when they come, renew it: RefusedResources.renewed).
   */
  private resourceVersionAfter(kind: string, resource: EngineResource): string | undefined {
    const { name, namespace, resourceVersion } = resource.metadata;
    const cached = this.caches.get(kind)?.informer.get(name, namespace);
    const sameInputs = cached && decidingSignature(cached) === decidingSignature(resource as KubernetesObject);
    return sameInputs ? (cached.metadata?.resourceVersion ?? resourceVersion) : resourceVersion;
  }

  private succeeded(key: string): void {
    this.failures.delete(key);
    this.retryAt.delete(key);
  }

  /**
   * A real failure (already reported on the resource by the reconcile): the key is tried again after a
   * capped exponential backoff, counted per key. The log line is the failure's one-line summary.
   */
  private retryLater(key: string, error: unknown): void {
    const attempt = (this.failures.get(key) ?? 0) + 1;
    this.failures.set(key, attempt);
    const delay = backoffMs(attempt);
    this.retryAt.set(key, Date.now() + delay);
    const message = summarise(error instanceof Error ? error.message : String(error));
    this.report(
      `[operator] ${key}: reconcile failed (attempt ${attempt}, retrying in ${Math.round(delay / 1000)}s): ${message}`,
    );
    this.queue.add(key, delay);
  }

  /**
   * Reads and parses one resource — from its kind's watch cache once that is complete and holds this
   * operator's last status write of it (OwnWrites: a pass deciding from an older copy would find its new
   * status unchanged against the stale one and never write it), else from the apiserver. A copy older
   * than another process's write is decided on all the same: the status write is conditional on its
   * resourceVersion, and the write's own event brings the next pass. An invalid one is reported with its
   * field paths and left alone (its reconcile cannot decide anything for it), never retried in a loop.
   */
  private async read(
    key: string,
    module: KindModule,
    namespace: string,
    name: string,
  ): Promise<EngineResource | undefined> {
    const cache = this.caches.get(module.definition.kind);
    const candidate = cache?.synced ? cache.informer.get(name, namespace) : undefined;
    const cached = candidate && this.ownWrites.holds(key, candidate.metadata?.resourceVersion) ? candidate : undefined;
    const raw =
      cached ??
      (await orUndefined(
        this.options.client.custom.getNamespacedCustomObject({
          group: API_GROUP,
          version: API_VERSION,
          plural: module.definition.plural,
          namespace,
          name,
        }),
      ));
    if (!raw) return undefined;
    const parsed = module.schema.safeParse(raw, { reportInput: true });
    if (parsed.success) return parsed.data;
    const problems = parsed.error.issues.map((issue) =>
      formatProblem({ path: fieldPath(issue.path), message: issue.message }),
    );
    this.report(`[operator] ${key} is invalid and left alone: ${problems.join("; ")}`);
    return undefined;
  }

  /** One pass of a key, told to the observer with its kind, how it ended and how long it took. */
  private async pass(key: string): Promise<void> {
    const started = performance.now();
    const result = await this.reconcile(key);
    const kind = key.split("/")[0] ?? key;
    if (result) this.options.observer?.reconciled(kind, result, (performance.now() - started) / 1000);
  }

  /** How the pass ended; undefined when the key is not this operator's to reconcile (no pass made). */
  private async reconcile(key: string): Promise<ReconcileResult | undefined> {
    if (key === this.singletonKey) return this.reconcileSingleton();
    const [kind = "", namespace = "", name = ""] = key.split("/");
    const module = this.module(kind);
    if (!module) return undefined;
    // A key can name another namespace (an owner of an adopted object, a referrer): not ours to serve.
    if (this.namespaces && !this.namespaces.includes(namespace)) return undefined;
    try {
      const resource = await this.read(key, module, namespace, name);
      const outcome = resource ? await reconcileResource(this.context, resource) : undefined;
      // Its own install, upgrade or release: the next pass decides from the new state, not a kept decision.
      if (outcome?.plan.steps.some((s) => s.kind === "ensure-capability" || s.kind === "release-capability")) {
        this.decisions.changed();
      }
      if (!resource) this.forget(key);
      this.rememberRefusal(key, kind, resource, outcome);
      this.succeeded(key);
      if (!outcome?.requeue) return "success";
      this.queue.add(key, outcome.requeueAfterMs ?? this.options.requeueMs ?? 2_000);
      return "requeue";
    } catch (error) {
      // A step failed, maybe an install midway: nothing kept is trusted.
      this.decisions.changed();
      this.retryLater(key, error);
      return "error";
    }
  }
}
