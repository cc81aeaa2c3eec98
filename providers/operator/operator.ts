import { type KubernetesObject, makeInformer } from "@kubernetes/client-node";
import type { z } from "zod";
import { API_GROUP, API_VERSION, OWNED_BY_LABEL } from "../../lib/api/group.js";
import { LICENSE_PLURAL } from "../../lib/api/license.js";
import { POSTGRES_CLUSTER_PLURAL, PostgresCluster } from "../../lib/api/postgres-cluster.js";
import { REFERENCE_GRANT_PLURAL } from "../../lib/api/reference-grant.js";
import { STACK_PLURAL, Stack } from "../../lib/api/stack.js";
import { fieldPath, formatProblem } from "../../lib/api/validation.js";
import { ensureNaviqueCrds } from "../../lib/apply/navique-crds.js";
import type { ChartSource } from "../../lib/catalog/chart-source.js";
import type { HelmCli } from "../../lib/cluster/helm-cli.js";
import { type KubeClient, orUndefined } from "../../lib/cluster/kube-client.js";
import { type Reporter, stderrReporter } from "../../lib/local-plane/progress.js";
import { CNPG_CLUSTERS, CNPG_GROUP, CNPG_VERSION } from "../../lib/plan/cnpg.js";
import { postgresReferences, postgresReferrer } from "../../lib/plan/postgres-cluster.js";
import { grantNamespaces } from "../../lib/plan/reference-grants.js";
import { stackOfMember } from "../../lib/plan/stack.js";
import { createReconcileContext } from "../../lib/reconcile/context.js";
import { summarise } from "../../lib/reconcile/failure.js";
import { reconcileLicense } from "../../lib/reconcile/license.js";
import {
  observeOptions,
  type ReconcileContext,
  reconcilePostgresCluster,
} from "../../lib/reconcile/postgres-cluster.js";
import { reconcileStack } from "../../lib/reconcile/stack.js";
import { backoffMs, WorkQueue } from "./work-queue.js";

export interface OperatorOptions {
  readonly client: KubeClient;
  readonly helm: HelmCli;
  readonly source?: ChartSource;
  /** Every resource is reconciled again this often, whatever the watches saw. @default 30_000 */
  readonly resyncMs?: number;
  /** Delay before looking again at a resource that is not Ready yet. @default 2_000 */
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
}

/** The work-queue key of the License singleton (a PostgresCluster key is always `namespace/name`). */
const LICENSE_KEY = "License:navique";
/** Work-queue keys of Stacks: `Stack:namespace/name`. */
const STACK_PREFIX = "Stack:";
/** Work-queue keys of a namespace whose ReferenceGrants changed: `ReferenceGrant:namespace`. */
const GRANTS_PREFIX = "ReferenceGrant:";

const WATCH_RETRY_MS = 5_000;

type Watch = { start(): Promise<void>; stop(): Promise<void>; on(event: string, cb: (arg: unknown) => void): void };

/** `postgrescluster.<namespace>.<name>` (the owned-by label) → `<namespace>/<name>`. */
export function ownerKey(ownedBy: string | undefined): string | undefined {
  const match = /^postgrescluster\.([a-z0-9-]+)\.(.+)$/.exec(ownedBy ?? "");
  return match ? `${match[1]}/${match[2]}` : undefined;
}

/**
 * The in-cluster front end: watches PostgresClusters, the CNPG Clusters they emitted, Stacks (and,
 * through their members' owned-by label, the members' changes) and the License, and runs the same
 * reconcile as every other front end, one resource at a time, requeueing what is not Ready and
 * backing off exponentially on real failures. Drift is corrected because every watch event and every
 * resync re-applies the desired state: a deleted or edited emitted object is restored, a capability
 * release removed by hand is installed again while still needed.
 */
export class NaviqueOperator {
  private readonly context: ReconcileContext;
  private readonly queue: WorkQueue;
  private readonly failures = new Map<string, number>();
  /** When a failing key is due again: a resync does not cut its backoff short (a watch event may: it can be the fix). */
  private readonly retryAt = new Map<string, number>();
  private readonly watches: Watch[] = [];
  private resync: NodeJS.Timeout | undefined;
  private readonly report: Reporter;
  private stopped = false;
  /** The namespaces served; undefined: every namespace. */
  private readonly namespaces: readonly string[] | undefined;
  /** The entitlements the last License pass found, to notice when they change. */
  private entitlementsInForce: string | undefined;

  constructor(private readonly options: OperatorOptions) {
    this.report = options.report ?? stderrReporter;
    this.namespaces =
      options.watchNamespaces && options.watchNamespaces.length > 0 ? [...options.watchNamespaces] : undefined;
    this.context = createReconcileContext({
      client: options.client,
      helm: options.helm,
      ...(options.source ? { source: options.source } : {}),
      report: this.report,
      ...(options.now ? { now: options.now } : {}),
      ...(options.trustedKeys ? { trustedKeys: options.trustedKeys } : {}),
      ...(this.namespaces ? { watchNamespaces: this.namespaces } : {}),
    });
    this.queue = new WorkQueue((key) => this.reconcile(key));
  }

  async start(): Promise<void> {
    await ensureNaviqueCrds(this.options.client);
    this.watchKind(API_GROUP, API_VERSION, POSTGRES_CLUSTER_PLURAL, (object) => {
      const { namespace, name, labels } = object.metadata ?? {};
      // A Stack's member: its Stack looks again too (its MembersReady follows the member's Ready).
      const stack = stackOfMember(labels?.[OWNED_BY_LABEL]);
      return [...(namespace && name ? [`${namespace}/${name}`] : []), ...(stack ? [`${STACK_PREFIX}${stack}`] : [])];
    });
    this.watchKind(API_GROUP, API_VERSION, STACK_PLURAL, (object) => {
      const { namespace, name } = object.metadata ?? {};
      return namespace && name ? [`${STACK_PREFIX}${namespace}/${name}`] : [];
    });
    this.watchKind(
      CNPG_GROUP,
      CNPG_VERSION,
      CNPG_CLUSTERS,
      (object) => {
        const owner = ownerKey(object.metadata?.labels?.[OWNED_BY_LABEL]);
        return owner ? [owner] : [];
      },
      OWNED_BY_LABEL,
    );
    // A grant created, changed or removed: every resource referencing its namespace is judged again at
    // once (Gateway API: a removed grant revokes what it allowed), not at the next resync.
    this.watchKind(API_GROUP, API_VERSION, REFERENCE_GRANT_PLURAL, (object) => {
      const namespace = object.metadata?.namespace;
      return namespace ? [`${GRANTS_PREFIX}${namespace}`] : [];
    });
    this.watch(
      `/apis/${API_GROUP}/${API_VERSION}/${LICENSE_PLURAL}`,
      async () =>
        this.options.client.custom.listClusterCustomObject({
          group: API_GROUP,
          version: API_VERSION,
          plural: LICENSE_PLURAL,
        }),
      () => [LICENSE_KEY],
    );
    await this.enqueueAll();
    this.resync = setInterval(() => void this.enqueueAll(), this.options.resyncMs ?? 30_000);
    const scope = this.namespaces ? `namespaces ${this.namespaces.join(", ")}` : "every namespace";
    this.report(
      `[operator] started: watching PostgresClusters, Stacks and owned CNPG Clusters in ${scope}, and the License`,
    );
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.resync) clearInterval(this.resync);
    this.queue.stop();
    await Promise.all(this.watches.map((w) => w.stop().catch(() => undefined)));
  }

  /**
   * A list-watch whose events enqueue the resources concerned. client-node's informer relists
   * after a 410 but stops on other errors (and on a kind not served yet, such as CNPG's before the
   * operator is installed): it is restarted here after a pause.
   */
  private watch(
    path: string,
    list: () => Promise<unknown>,
    keysOf: (object: KubernetesObject) => readonly string[],
    labelSelector?: string,
  ): void {
    const informer = makeInformer(
      this.options.client.kubeconfig,
      path,
      list as never,
      labelSelector,
    ) as unknown as Watch;
    const enqueue = (object: unknown) => {
      for (const key of keysOf(object as KubernetesObject)) this.queue.add(key);
    };
    for (const event of ["add", "update", "delete"]) informer.on(event, enqueue);
    informer.on("error", () => {
      if (this.stopped) return;
      setTimeout(() => void informer.start().catch(() => undefined), WATCH_RETRY_MS);
    });
    this.watches.push(informer);
    void informer.start().catch(() => {
      if (!this.stopped) setTimeout(() => void informer.start().catch(() => undefined), WATCH_RETRY_MS);
    });
  }

  /**
   * Watches one namespaced kind: across the cluster, or with --watch-namespaces one list-watch per
   * namespace served, so that the operator needs to read nothing elsewhere.
   */
  private watchKind(
    group: string,
    version: string,
    plural: string,
    keysOf: (object: KubernetesObject) => readonly string[],
    labelSelector?: string,
  ): void {
    const { custom } = this.options.client;
    const selector = labelSelector ? { labelSelector } : {};
    if (!this.namespaces) {
      this.watch(
        `/apis/${group}/${version}/${plural}`,
        async () => custom.listClusterCustomObject({ group, version, plural, ...selector }),
        keysOf,
        labelSelector,
      );
      return;
    }
    for (const namespace of this.namespaces) {
      this.watch(
        `/apis/${group}/${version}/namespaces/${namespace}/${plural}`,
        async () => custom.listNamespacedCustomObject({ group, version, namespace, plural, ...selector }),
        keysOf,
        labelSelector,
      );
    }
  }

  private async enqueueAll(): Promise<void> {
    this.queue.add(LICENSE_KEY);
    await this.enqueueResources();
  }

  /** Every PostgresCluster and Stack: at each resync, and at once when the entitlements in force change. */
  private async enqueueResources(): Promise<void> {
    try {
      const { custom } = this.options.client;
      const items = async (response: Promise<unknown>) =>
        ((await response) as { items?: KubernetesObject[] }).items ?? [];
      const list = async (plural: string) => {
        const kind = { group: API_GROUP, version: API_VERSION, plural };
        if (!this.namespaces) return items(custom.listClusterCustomObject(kind));
        const lists = await Promise.all(
          this.namespaces.map((namespace) => items(custom.listNamespacedCustomObject({ ...kind, namespace }))),
        );
        return lists.flat();
      };
      const key = (item: KubernetesObject) => `${item.metadata?.namespace}/${item.metadata?.name}`;
      const add = (queued: string) => {
        if ((this.retryAt.get(queued) ?? 0) <= Date.now()) this.queue.add(queued);
      };
      for (const item of await list(POSTGRES_CLUSTER_PLURAL)) add(key(item));
      for (const item of await list(STACK_PLURAL)) add(`${STACK_PREFIX}${key(item)}`);
    } catch (error) {
      this.report(`[operator] resync failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /** The PostgresClusters whose references point into `namespace` (its grants changed) are enqueued. */
  private async enqueueReferrersOf(namespace: string): Promise<void> {
    const { custom } = this.options.client;
    const kind = { group: API_GROUP, version: API_VERSION, plural: POSTGRES_CLUSTER_PLURAL };
    const lists = await Promise.all(
      this.namespaces
        ? this.namespaces.map((served) => custom.listNamespacedCustomObject({ ...kind, namespace: served }))
        : [custom.listClusterCustomObject(kind)],
    );
    for (const item of lists.flatMap((list) => (list as { items?: unknown[] }).items ?? [])) {
      const parsed = PostgresCluster.safeParse(item);
      if (!parsed.success) continue;
      const { namespace: own, name } = parsed.data.metadata;
      const into = grantNamespaces(postgresReferrer(own), postgresReferences(own, parsed.data.spec));
      if (into.includes(namespace)) this.queue.add(`${own}/${name}`);
    }
  }

  private async reconcileLicense(): Promise<void> {
    try {
      // The same clock and keys as the PostgresCluster reconciles.
      const { now, trustedKeys } = observeOptions(this.context);
      const outcome = await reconcileLicense(this.options.client, { now, ...(trustedKeys ? { trustedKeys } : {}) });
      if (outcome?.downgraded) this.report(`[operator] ${outcome.downgraded}`);
      this.succeeded(LICENSE_KEY);
      // A licence applied, renewed, expired or removed: every resource is judged again now, not at the next resync.
      const entitlements = outcome?.entitlements;
      const inForce = JSON.stringify(
        entitlements
          ? { id: entitlements.licenseId, features: [...entitlements.features], caps: entitlements.caps }
          : "Community",
      );
      if (this.entitlementsInForce !== undefined && inForce !== this.entitlementsInForce) await this.enqueueResources();
      this.entitlementsInForce = inForce;
    } catch (error) {
      this.retryLater(LICENSE_KEY, error);
    }
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
   * Reads and parses one resource; an invalid one is reported with its field paths and left alone (its
   * reconcile cannot decide anything for it), never retried in a loop.
   */
  private async read<T>(
    key: string,
    plural: string,
    schema: { safeParse(value: unknown, params: { reportInput: boolean }): z.ZodSafeParseResult<T> },
  ): Promise<T | undefined> {
    const [namespace = "", name = ""] = key.replace(STACK_PREFIX, "").split("/");
    const raw = await orUndefined(
      this.options.client.custom.getNamespacedCustomObject({
        group: API_GROUP,
        version: API_VERSION,
        plural,
        namespace,
        name,
      }),
    );
    if (!raw) return undefined;
    const parsed = schema.safeParse(raw, { reportInput: true });
    if (parsed.success) return parsed.data;
    const problems = parsed.error.issues.map((issue) =>
      formatProblem({ path: fieldPath(issue.path), message: issue.message }),
    );
    this.report(`[operator] ${key} is invalid and left alone: ${problems.join("; ")}`);
    return undefined;
  }

  private async reconcile(key: string): Promise<void> {
    if (key === LICENSE_KEY) return this.reconcileLicense();
    if (key.startsWith(GRANTS_PREFIX)) {
      return this.enqueueReferrersOf(key.slice(GRANTS_PREFIX.length)).then(
        () => void this.failures.delete(key),
        (error: unknown) => this.retryLater(key, error),
      );
    }
    // A key can name another namespace (a member's label, an adopted object's owner): not ours to serve.
    const namespace = key.replace(STACK_PREFIX, "").split("/")[0] ?? "";
    if (this.namespaces && !this.namespaces.includes(namespace)) return;
    try {
      let requeue = false;
      if (key.startsWith(STACK_PREFIX)) {
        const stack = await this.read(key, STACK_PLURAL, Stack);
        if (stack) requeue = (await reconcileStack(this.context, stack)).requeue;
      } else {
        const resource = await this.read(key, POSTGRES_CLUSTER_PLURAL, PostgresCluster);
        if (resource) requeue = (await reconcilePostgresCluster(this.context, resource)).requeue;
      }
      this.succeeded(key);
      if (requeue) this.queue.add(key, this.options.requeueMs ?? 2_000);
    } catch (error) {
      this.retryLater(key, error);
    }
  }
}
