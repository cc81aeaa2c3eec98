/** Capped exponential backoff for real failures: 1 s, 2 s, 4 s … up to 5 minutes. */
export function backoffMs(attempt: number, baseMs = 1_000, capMs = 300_000): number {
  return Math.min(capMs, baseMs * 2 ** Math.max(0, attempt - 1));
}

/**
 * A de-duplicating delayed queue of keys processed one at a time: the same key added many times is
 * handled once, at the earliest time asked for; a handler never runs twice at once (Helm is not safe
 * for concurrent use, and one reconcile per controller at a time keeps it so).
 */
export class WorkQueue {
  private readonly due = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private stopped = false;

  constructor(
    private readonly handle: (key: string) => Promise<void>,
    private readonly now: () => number = Date.now,
  ) {}

  /** Schedules `key` after `delayMs` (now by default); an earlier schedule already pending wins. */
  add(key: string, delayMs = 0): void {
    if (this.stopped) return;
    const at = this.now() + delayMs;
    const existing = this.due.get(key);
    if (existing === undefined || at < existing) this.due.set(key, at);
    this.wake();
  }

  get size(): number {
    return this.due.size;
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.due.clear();
  }

  private wake(): void {
    if (this.running || this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    const next = Math.min(...this.due.values());
    if (!Number.isFinite(next)) return;
    this.timer = setTimeout(() => void this.drain(), Math.max(0, next - this.now()));
  }

  private async drain(): Promise<void> {
    this.timer = undefined;
    this.running = true;
    try {
      for (;;) {
        const ready = [...this.due.entries()].filter(([, at]) => at <= this.now()).sort((a, b) => a[1] - b[1])[0];
        if (!ready || this.stopped) break;
        this.due.delete(ready[0]);
        await this.handle(ready[0]);
      }
    } finally {
      this.running = false;
      this.wake();
    }
  }
}
