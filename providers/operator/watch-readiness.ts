import { statusOf } from "../../lib/cluster/kube-client.js";
import { summarise } from "../../lib/engine/failure.js";

/** Whether an operator process is ready and, when it is not, why, in one line: what GET /readyz answers. */
export type Readiness = { readonly ready: true } | { readonly ready: false; readonly reason: string };

/** Where one list-watch stands. */
type WatchState =
  | { readonly phase: "listing" }
  | { readonly phase: "synced" }
  /** Its kind is not served (its CRD not installed yet): there is nothing to list, and nothing missed. */
  | { readonly phase: "not-served" }
  | { readonly phase: "failing"; readonly since: number; readonly cause: string; readonly listedBefore: boolean };

/** What a list-watch tells of itself, from its informer's start and error events. */
export interface WatchProgress {
  /** Listed (or, restarted, resumed from its last resourceVersion) and watching: its cache is complete. */
  listed(): void;
  /** Its list or its watch failed; the caller starts it again until it lists. */
  failed(error: unknown): void;
}

/**
 * Whether every list-watch of an operator process has listed and is watching, the readiness GET /readyz
 * reports (docs/operator.md). A standby is ready as soon as a leader is: its caches are as complete, which
 * is what makes its failover cost the lease and not the lists (docs/adr/0027-leader-election.md).
 *
 * A watch that failed and is being started again makes the process unready until it has listed again: its
 * cache is behind the cluster by what happened meanwhile, and a Pod whose caches are behind is one a
 * rolling update should not count on yet. The reason says which watch, since when and why. A watch of a kind
 * the apiserver does not serve (404: a capability's CRD not installed yet) counts as synced: there is no
 * object of it to miss, and a new cluster would otherwise never be ready before its first install.
 */
export class WatchReadiness {
  private readonly watches: { readonly path: string; state: WatchState }[] = [];

  /**
   * @param retryMs how soon a failed watch is started again, as the reason says it
   * @param now the clock the reason's "failed N s ago" is told by
   */
  constructor(
    private readonly retryMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** A list-watch to account for, not listed yet. Two watches of one path are two entries. */
  track(path: string): WatchProgress {
    const watch: { readonly path: string; state: WatchState } = { path, state: { phase: "listing" } };
    this.watches.push(watch);
    return {
      listed: () => {
        watch.state = { phase: "synced" };
      },
      failed: (error) => {
        if (statusOf(error) === 404) {
          watch.state = { phase: "not-served" };
          return;
        }
        // Failing already: since the first failure, which is when its cache stopped following the cluster.
        if (watch.state.phase === "failing") return;
        watch.state = {
          phase: "failing",
          since: this.now(),
          cause: summarise(error instanceof Error ? error.message : String(error)),
          listedBefore: watch.state.phase === "synced",
        };
      },
    };
  }

  /** Ready once every watch tracked has listed and watches; a failure outranks a list not done yet. */
  readiness(): Readiness {
    if (this.watches.length === 0) return { ready: false, reason: "its watches have not started yet" };
    const failing = this.watches.flatMap((w) => (w.state.phase === "failing" ? [{ path: w.path, ...w.state }] : []));
    const listing = this.watches.filter((w) => w.state.phase === "listing");
    const first = failing.sort((a, b) => a.since - b.since)[0];
    if (first) {
      const ago = Math.round((this.now() - first.since) / 1000);
      const what = first.listedBefore ? "failed" : "could not list";
      const others = failing.length - 1 + listing.length;
      return {
        ready: false,
        reason: `watch ${first.path} ${what} ${ago} s ago (${first.cause}) and is restoring: started again every ${this.retryMs / 1000} s until it lists${others > 0 ? `; ${others} other watch(es) not synced either` : ""}`,
      };
    }
    const next = listing[0];
    if (next) {
      return {
        ready: false,
        reason: `${listing.length} of ${this.watches.length} watches have not listed yet (${next.path}${listing.length > 1 ? ", …" : ""})`,
      };
    }
    return { ready: true };
  }
}
