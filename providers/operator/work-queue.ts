/** Capped exponential backoff for real failures: 1 s, 2 s, 4 s … up to 5 minutes. */
export function backoffMs(attempt: number, baseMs = 1_000, capMs = 300_000): number {
  return Math.min(capMs, baseMs * 2 ** Math.max(0, attempt - 1));
}

/** One schedule of a key: a min-heap entry, stale once the key is rescheduled earlier or handled. */
interface Scheduled {
  readonly at: number;
  readonly key: string;
}

/**
 * A de-duplicating delayed queue of keys handled by a bounded number of workers: the same key added many
 * times is handled once, at the earliest time asked for, and never twice at once — a key that falls due
 * while its handler runs waits for it to end (a pass decides from what the previous pass of the same
 * resource wrote: providers/operator/own-writes.ts), as client-go's work queue holds a key that is being
 * processed. Different keys run side by side, up to `workers` at a time: a change re-queueing ten
 * referrers does not wait for ten passes one after another. Keys wait in a binary heap, so that a resync of
 * a thousand resources costs n log n, not a scan of the queue per key.
 */
export class WorkQueue {
  private readonly due = new Map<string, number>();
  private readonly heap: Scheduled[] = [];
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Number.POSITIVE_INFINITY;
  private stopped = false;
  /** Keys are taken and kept, none handled: a standby's queue (NaviqueOperator.standBy). */
  private paused = false;
  /** The keys being handled now. */
  private readonly active = new Set<string>();
  /** Keys that fell due while being handled: scheduled again when that pass ends. */
  private readonly parked = new Set<string>();
  /** The passes under way, awaited by `stop` so that no reconcile outlives it. */
  private readonly passes = new Set<Promise<void>>();

  /**
   * @param handle handles one key; it must not throw (the operator's reconcile reports its own failures)
   * @param now the clock keys fall due by
   * @param workers how many keys are handled at once @default 1
   */
  constructor(
    private readonly handle: (key: string) => Promise<void>,
    private readonly now: () => number = Date.now,
    private readonly workers = 1,
  ) {
    if (!Number.isInteger(workers) || workers < 1) {
      throw new Error(`a work queue needs at least one worker, a whole number; got ${workers}`);
    }
  }

  /** Schedules `key` after `delayMs` (now by default); an earlier schedule already pending wins. */
  add(key: string, delayMs = 0): void {
    if (this.stopped) return;
    const at = this.now() + delayMs;
    const existing = this.due.get(key);
    if (existing !== undefined && existing <= at) return;
    this.due.set(key, at);
    this.push({ at, key });
    this.wake();
  }

  /** Keys waiting, those waiting for their own pass to end included. */
  get size(): number {
    return this.due.size;
  }

  /**
   * Keeps taking keys but starts none, and resolves once the keys being handled, if any, have been: an
   * operator that lost the lead keeps its watches' events for when it leads again (`resume`).
   */
  async pause(): Promise<void> {
    this.paused = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAt = Number.POSITIVE_INFINITY;
    await Promise.all(this.passes);
  }

  /** Starts the keys due again, after `pause`. */
  resume(): void {
    this.paused = false;
    this.wake();
  }

  /** Takes no more keys and resolves once the keys being handled, if any, have been. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.due.clear();
    this.heap.length = 0;
    this.parked.clear();
    await Promise.all(this.passes);
  }

  /** The earliest schedule still current, stale entries dropped on the way. */
  private peek(): Scheduled | undefined {
    for (;;) {
      const top = this.heap[0];
      if (!top || this.due.get(top.key) === top.at) return top;
      this.pop();
    }
  }

  /** Sets the timer for the earliest key, unless every worker is busy (the end of a pass wakes the queue). */
  private wake(): void {
    if (this.stopped || this.paused || this.active.size >= this.workers) return;
    const next = this.peek();
    if (!next) return;
    // A timer already set for as early is kept: adding a thousand keys sets it once.
    if (this.timer && this.timerAt <= next.at) return;
    if (this.timer) clearTimeout(this.timer);
    this.timerAt = next.at;
    // Never handled within `add`: a watch event's handler adds all its keys before any pass starts.
    this.timer = setTimeout(() => this.dispatch(), Math.max(0, next.at - this.now()));
  }

  /** Starts every key due now, while a worker is free. */
  private dispatch(): void {
    this.timer = undefined;
    this.timerAt = Number.POSITIVE_INFINITY;
    while (!this.stopped && !this.paused && this.active.size < this.workers) {
      const next = this.peek();
      if (!next || next.at > this.now()) break;
      this.pop();
      if (this.active.has(next.key)) {
        // Its schedule stays in `due` (an add meanwhile still de-duplicates against it).
        this.parked.add(next.key);
        continue;
      }
      this.due.delete(next.key);
      this.start(next.key);
    }
    this.wake();
  }

  private start(key: string): void {
    this.active.add(key);
    const pass: Promise<void> = this.handle(key)
      // The handler reports its own failures; one that throws anyway must not stop the queue.
      .catch(() => {})
      .finally(() => {
        this.active.delete(key);
        this.passes.delete(pass);
        const at = this.due.get(key);
        if (this.parked.delete(key) && at !== undefined) this.push({ at, key });
        this.wake();
      });
    this.passes.add(pass);
  }

  private push(entry: Scheduled): void {
    const heap = this.heap;
    heap.push(entry);
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if ((heap[parent] as Scheduled).at <= entry.at) break;
      heap[i] = heap[parent] as Scheduled;
      i = parent;
    }
    heap[i] = entry;
  }

  private pop(): void {
    const heap = this.heap;
    const last = heap.pop();
    if (!last || heap.length === 0) return;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= heap.length) break;
      const right = left + 1;
      const child = right < heap.length && (heap[right] as Scheduled).at < (heap[left] as Scheduled).at ? right : left;
      if ((heap[child] as Scheduled).at >= last.at) break;
      heap[i] = heap[child] as Scheduled;
      i = child;
    }
    heap[i] = last;
  }
}
