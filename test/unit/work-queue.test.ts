import { setTimeout as sleep } from "node:timers/promises";
import { backoffMs, WorkQueue } from "../../providers/operator/work-queue.js";

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
    await sleep(150);
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
    await sleep(120);
    expect(handled).toEqual(["late"]);
    expect(queue.size).toBe(1);
    await queue.stop();
    expect(queue.size).toBe(0);
  });
});

describe("WorkQueue stop", () => {
  it("resolves once the key being handled has been, and handles no other key after it", async () => {
    const handled: string[] = [];
    let finishFirst: () => void = () => {};
    const queue = new WorkQueue(async (key) => {
      if (key === "first") await new Promise<void>((resolve) => (finishFirst = resolve));
      handled.push(key);
    });
    queue.add("first");
    queue.add("second");
    await sleep(20);
    let stopped = false;
    const stopping = queue.stop().then(() => {
      stopped = true;
    });
    await sleep(20);
    expect(stopped).toBe(false);
    finishFirst();
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
    await sleep(20);
    expect(handled).toEqual(["k3", "k7", "k1", "k6", "k5", "k4", "k2", "k0"]);
    expect(queue.size).toBe(0);
    await queue.stop();
  });
});
