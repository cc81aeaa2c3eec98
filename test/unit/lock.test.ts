import { mkdir, mkdtemp, rm, stat, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { acquireDirectoryLock, withDirectoryLock } from "../../lib/local-plane/lock.js";

describe("withDirectoryLock", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "navique-lock-"));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("runs holders one at a time", async () => {
    const lock = join(dir, "lock");
    const events: string[] = [];
    const holder = (name: string) =>
      withDirectoryLock(
        lock,
        () => {},
        async () => {
          events.push(`${name} in`);
          await sleep(50);
          events.push(`${name} out`);
        },
      );
    await Promise.all([holder("a"), holder("b")]);
    expect(events).toHaveLength(4);
    // Whoever entered first left before the other entered.
    expect(events[1]).toBe(`${events[0]?.split(" ")[0]} out`);
  });

  it("takes over a lock whose holder has died, and says so", async () => {
    const lock = join(dir, "lock");
    await mkdir(lock);
    // A pid far above the kernel's default pid_max: no live process has it.
    await writeFile(join(lock, "pid"), "99999999");
    const reports: string[] = [];
    const result = await withDirectoryLock(
      lock,
      (line) => reports.push(line),
      async () => "ran",
    );
    expect(result).toBe("ran");
    expect(reports).toEqual([expect.stringContaining("previous holder (pid 99999999) is gone")]);
  });

  it("releases the lock when the holder throws", async () => {
    const lock = join(dir, "lock");
    await expect(
      withDirectoryLock(
        lock,
        () => {},
        async () => {
          throw new Error("holder failed");
        },
      ),
    ).rejects.toThrow("holder failed");
    await expect(
      withDirectoryLock(
        lock,
        () => {},
        async () => "again",
      ),
    ).resolves.toBe("again");
  });

  it("takes over a lock directory no holder finished taking (no pid written) once it is old", async () => {
    const lock = join(dir, "lock");
    await mkdir(lock);
    const longAgo = new Date(Date.now() - 60_000);
    await utimes(lock, longAgo, longAgo);
    const reports: string[] = [];
    await expect(
      withDirectoryLock(
        lock,
        (line) => reports.push(line),
        async () => "ran",
      ),
    ).resolves.toBe("ran");
    expect(reports).toEqual([`[lock] ${lock}: no holder wrote its pid, taking the lock over`]);
  });

  it("stops waiting when its signal aborts, leaving the live holder's lock alone", async () => {
    const lock = join(dir, "lock");
    const release = await acquireDirectoryLock(lock, () => {});
    const controller = new AbortController();
    const waiting = acquireDirectoryLock(lock, () => {}, { signal: controller.signal });
    controller.abort(new Error("suite torn down"));
    await expect(waiting).rejects.toThrow("suite torn down");
    expect((await stat(lock)).isDirectory()).toBe(true);
    await release();
  });
});
