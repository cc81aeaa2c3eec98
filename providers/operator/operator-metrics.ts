import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import type { CapabilityInstallResult } from "../../lib/capabilities/install-observer.js";
import type { OperatorObserver, ReconcileResult } from "./operator-observer.js";

/** The results a pass is counted under: every one is exported from the start, at 0, for each kind. */
const RECONCILE_RESULTS: readonly ReconcileResult[] = ["success", "error", "requeue"];

/** The results a capability install is counted under, each exported from the start at 0. */
const INSTALL_RESULTS: readonly CapabilityInstallResult[] = ["installed", "upgraded", "restored", "failed"];

/**
 * The bounds of the reconcile duration buckets, in seconds: a pass ranges from a few milliseconds (every
 * read from the watch caches, nothing to change) to minutes (a capability's chart installed by helm).
 */
export const RECONCILE_DURATION_BUCKETS: readonly number[] = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300,
];

export interface OperatorMetricsOptions {
  /** The kinds reconciled (the registry's and the licence singleton's): their series exist from the start. */
  readonly kinds: readonly string[];
  /** The capabilities of the catalog: their install series exist from the start. */
  readonly capabilities: readonly string[];
}

/**
 * The operator process's Prometheus metrics (docs/operator.md lists them), in a registry of its own rather
 * than prom-client's global one, so that several operators in one process (a test's) count apart. Every
 * series a kind or a capability can have is there from the start at 0: a rate or an alert over them needs
 * no first event to exist.
 */
export class OperatorMetrics implements OperatorObserver {
  private readonly registry = new Registry();
  private readonly reconciles: Counter<"kind" | "result">;
  private readonly durations: Histogram<"kind">;
  private readonly installs: Counter<"capability" | "result">;
  private readonly leader: Gauge;
  /** Where the queue depth is read from when scraped; 0 until `watchQueue`. */
  private queueDepth: () => number = () => 0;

  constructor(options: OperatorMetricsOptions) {
    const registers = [this.registry];
    this.reconciles = new Counter({
      name: "navique_reconcile_total",
      help: "Passes of a resource by its kind and how each ended: success, requeue (looked at again soon: not Ready yet) or error (retried after a backoff).",
      labelNames: ["kind", "result"],
      registers,
    });
    this.durations = new Histogram({
      name: "navique_reconcile_duration_seconds",
      help: "How long passes of a resource took, by its kind.",
      labelNames: ["kind"],
      buckets: [...RECONCILE_DURATION_BUCKETS],
      registers,
    });
    const depth = () => this.queueDepth();
    // Read at each scrape, not set as the queue changes: a scrape costs one read, a key added nothing.
    const queue = new Gauge({
      name: "navique_workqueue_depth",
      help: "Resources waiting in the work queue to be reconciled (a standby keeps its watches' events there until it leads).",
      registers: [],
      collect() {
        this.set(depth());
      },
    });
    this.registry.registerMetric(queue);
    this.installs = new Counter({
      name: "navique_capability_installs_total",
      help: "Capability installs, upgrades and restores this process began, by capability and how each ended: installed, upgraded, restored or failed.",
      labelNames: ["capability", "result"],
      registers,
    });
    this.leader = new Gauge({
      name: "navique_leader",
      help: "1 while this process holds the leader Lease and reconciles (or runs without election), else 0.",
      registers,
    });
    this.leader.set(0);
    for (const kind of options.kinds) {
      for (const result of RECONCILE_RESULTS) this.reconciles.inc({ kind, result }, 0);
      this.durations.zero({ kind });
    }
    for (const capability of options.capabilities) {
      for (const result of INSTALL_RESULTS) this.installs.inc({ capability, result }, 0);
    }
    collectDefaultMetrics({ register: this.registry });
  }

  reconciled(kind: string, result: ReconcileResult, seconds: number): void {
    this.reconciles.inc({ kind, result });
    this.durations.observe({ kind }, seconds);
  }

  capabilityInstall(capability: string, result: CapabilityInstallResult): void {
    this.installs.inc({ capability, result });
  }

  /** Whether this process leads now. */
  leading(leads: boolean): void {
    this.leader.set(leads ? 1 : 0);
  }

  /** Reads the work queue's depth from `depth` at each scrape. */
  watchQueue(depth: () => number): void {
    this.queueDepth = depth;
  }

  /** The content type of `text`: Prometheus's text exposition format, version 0.0.4. */
  get contentType(): string {
    return this.registry.contentType;
  }

  /** Every metric in Prometheus's text format, as GET /metrics answers. */
  text(): Promise<string> {
    return this.registry.metrics();
  }
}
