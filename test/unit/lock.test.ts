import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { withDirectoryLock } from "../../lib/local-plane/lock.js";

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
});
