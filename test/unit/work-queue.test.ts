import { setTimeout as sleep } from "node:timers/promises";
import { backoffMs, WorkQueue } from "../../providers/operator/work-queue.js";

/**
 * Waits until `done()` holds (polling), so that a busy machine only makes a test slower, never wrong; fails
 * after 5 s. A test asserting that nothing more happens still waits a fixed time after it.
 */
async function until(done: () => boolean): Promise<void> {
  for (const deadline = Date.now() + 5_000; !done(); await sleep(5)) {
    if (Date.now() > deadline) throw new Error("timed out waiting for the queue");
  }
}

describe("backoffMs", () => {
  it("doubles from one second and caps at five minutes", () => {
    expect([1, 2, 3, 4, 9, 10, 50].map((attempt) => backoffMs(attempt))).toEqual([
      1_000, 2_000, 4_000, 8_000, 256_000, 300_000, 300_000,
    ]);
  });
});

describe("WorkQueue", () => {
  it("handles a key added many times once, and never two keys at the same time", async () => {
    const handled: string[] = [];
    let running = 0;
    let overlapped = false;
    const queue = new WorkQueue(async (key) => {
      running += 1;
      overlapped ||= running > 1;
      await sleep(20);
      handled.push(key);
      running -= 1;
    });
    for (let i = 0; i < 5; i++) queue.add("ns/a");
    queue.add("ns/b");
    await until(() => handled.length >= 2);
    await sleep(30);
    expect(handled.sort()).toEqual(["ns/a", "ns/b"]);
    expect(overlapped).toBe(false);
    await queue.stop();
  });

  it("keeps the earliest schedule of a key and runs delayed keys when due", async () => {
    const handled: string[] = [];
    const queue = new WorkQueue(async (key) => {
      handled.push(key);
    });
    queue.add("late", 5_000);
    queue.add("late", 30);
    queue.add("later", 10_000);
    await until(() => handled.length >= 1);
    await sleep(30);
    expect(handled).toEqual(["late"]);
    expect(queue.size).toBe(1);
    await queue.stop();
    expect(queue.size).toBe(0);
  });
});

describe("WorkQueue stop", () => {
  it("resolves once the key being handled has been, and handles no other key after it", async () => {
    const handled: string[] = [];
    let finishFirst: (() => void) | undefined;
    const queue = new WorkQueue(async (key) => {
      if (key === "first") await new Promise<void>((resolve) => (finishFirst = resolve));
      handled.push(key);
    });
    queue.add("first");
    queue.add("second");
    await until(() => finishFirst !== undefined);
    let stopped = false;
    const stopping = queue.stop().then(() => {
      stopped = true;
    });
    await sleep(20);
    expect(stopped).toBe(false);
    finishFirst?.();
    await stopping;
    expect(handled).toEqual(["first"]);
    queue.add("third");
    await sleep(20);
    expect(handled).toEqual(["first"]);
  });
});

describe("WorkQueue order", () => {
  it("handles keys in the order they fall due, each once, whatever order they were added in", async () => {
    const handled: string[] = [];
    let clock = 0;
    const queue = new WorkQueue(
      async (key) => {
        handled.push(key);
      },
      () => clock,
    );
    const delays = [50, 10, 40, 0, 30, 20, 15, 60];
    delays.forEach((delay, i) => {
      queue.add(`k${i}`, delay);
    });
    // Rescheduled earlier: the earlier time wins; later: ignored.
    queue.add("k7", 5);
    queue.add("k3", 100);
    clock = 1_000;
    await until(() => handled.length === 8);
    expect(handled).toEqual(["k3", "k7", "k1", "k6", "k5", "k4", "k2", "k0"]);
    expect(queue.size).toBe(0);
    await queue.stop();
  });
});

describe("WorkQueue with several workers", () => {
  it("handles up to `workers` keys at once, never more", async () => {
    let running = 0;
    let most = 0;
    const handled: string[] = [];
    const queue = new WorkQueue(
      async (key) => {
        running += 1;
        most = Math.max(most, running);
        await sleep(30);
        handled.push(key);
        running -= 1;
      },
      Date.now,
      3,
    );
    for (let i = 0; i < 7; i++) queue.add(`k${i}`);
    await until(() => handled.length === 7);
    expect(handled.sort()).toEqual(["k0", "k1", "k2", "k3", "k4", "k5", "k6"]);
    expect(most).toBe(3);
    await queue.stop();
  });

  it("never handles one key twice at once: added while its pass runs, it runs once more after that pass", async () => {
    const passes: string[] = [];
    let release: () => void = () => {};
    const queue = new WorkQueue(
      async (key) => {
        passes.push(`${key} start`);
        if (key === "a" && passes.filter((p) => p === "a start").length === 1) {
          await new Promise<void>((resolve) => (release = resolve));
        }
        passes.push(`${key} end`);
      },
      Date.now,
      4,
    );
    queue.add("a");
    await until(() => passes.length >= 1);
    // Added three times while its first pass runs; a free worker takes another key meanwhile.
    queue.add("a");
    queue.add("a");
    queue.add("b");
    queue.add("a");
    await until(() => passes.includes("b end"));
    await sleep(30);
    expect(passes).toEqual(["a start", "b start", "b end"]);
    expect(queue.size).toBe(1);
    release();
    await until(() => passes.length === 6);
    expect(passes).toEqual(["a start", "b start", "b end", "a end", "a start", "a end"]);
    expect(queue.size).toBe(0);
    await queue.stop();
  });

  it("stop waits for every pass under way and starts no other", async () => {
    const ends: Array<() => void> = [];
    const handled: string[] = [];
    const queue = new WorkQueue(
      async (key) => {
        await new Promise<void>((resolve) => ends.push(resolve));
        handled.push(key);
      },
      Date.now,
      2,
    );
    for (const key of ["a", "b", "c"]) queue.add(key);
    await until(() => ends.length === 2);
    await sleep(20);
    expect(ends).toHaveLength(2);
    let stopped = false;
    const stopping = queue.stop().then(() => {
      stopped = true;
    });
    ends[0]?.();
    await sleep(20);
    expect(stopped).toBe(false);
    ends[1]?.();
    await stopping;
    // Two of the three, whichever the heap gave first (they fell due at the same time).
    expect(handled).toHaveLength(2);
    await sleep(20);
    expect(handled).toHaveLength(2);
  });

  it("refuses a number of workers that is not a whole number of at least one, saying what it got", () => {
    expect(() => new WorkQueue(async () => {}, Date.now, 0)).toThrow(
      "a work queue needs at least one worker, a whole number; got 0",
    );
  });
});

describe("WorkQueue pause", () => {
  it("keeps the keys added while paused, starts none, waits for the pass under way, and runs them on resume", async () => {
    const handled: string[] = [];
    let release: () => void = () => {};
    let started = false;
    const queue = new WorkQueue(async (key) => {
      if (key === "slow") {
        started = true;
        await new Promise<void>((resolve) => (release = resolve));
      }
      handled.push(key);
    });
    queue.add("slow");
    await until(() => started);
    let paused = false;
    const pausing = queue.pause().then(() => {
      paused = true;
    });
    queue.add("a");
    queue.add("b");
    await sleep(30);
    // The pass under way holds the pause; nothing new started.
    expect(paused).toBe(false);
    expect(handled).toEqual([]);
    release();
    await pausing;
    await sleep(30);
    expect(handled).toEqual(["slow"]);
    expect(queue.size).toBe(2);

    queue.resume();
    await until(() => handled.length === 3);
    expect(handled.slice(1).sort()).toEqual(["a", "b"]);
    await queue.stop();
  });
});
