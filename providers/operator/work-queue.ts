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
 * A de-duplicating delayed queue of keys processed one at a time: the same key added many times is
 * handled once, at the earliest time asked for; a handler never runs twice at once (Helm is not safe
 * for concurrent use, and one reconcile per controller at a time keeps it so). Keys wait in a binary
 * heap, so that a resync of a thousand resources costs n log n, not a scan of the queue per key.
 */
export class WorkQueue {
  private readonly due = new Map<string, number>();
  private readonly heap: Scheduled[] = [];
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Number.POSITIVE_INFINITY;
  private running = false;
  private stopped = false;
  /** The drain under way, awaited by `stop` so that no reconcile outlives it. */
  private draining: Promise<void> | undefined;

  constructor(
    private readonly handle: (key: string) => Promise<void>,
    private readonly now: () => number = Date.now,
  ) {}

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

  get size(): number {
    return this.due.size;
  }

  /** Takes no more keys and resolves once the key being handled, if any, has been. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.due.clear();
    this.heap.length = 0;
    await this.draining;
  }

  /** The earliest schedule still current, stale entries dropped on the way. */
  private peek(): Scheduled | undefined {
    for (;;) {
      const top = this.heap[0];
      if (!top || this.due.get(top.key) === top.at) return top;
      this.pop();
    }
  }

  private wake(): void {
    if (this.running || this.stopped) return;
    const next = this.peek();
    if (!next) return;
    // A timer already set for as early is kept: adding a thousand keys sets it once.
    if (this.timer && this.timerAt <= next.at) return;
    if (this.timer) clearTimeout(this.timer);
    this.timerAt = next.at;
    this.timer = setTimeout(
      () => {
        this.draining = this.drain();
      },
      Math.max(0, next.at - this.now()),
    );
  }

  private async drain(): Promise<void> {
    this.timer = undefined;
    this.timerAt = Number.POSITIVE_INFINITY;
    this.running = true;
    try {
      for (;;) {
        const next = this.peek();
        if (!next || next.at > this.now() || this.stopped) break;
        this.pop();
        this.due.delete(next.key);
        await this.handle(next.key);
      }
    } finally {
      this.running = false;
      this.wake();
    }
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
