import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { formatDuration, type Reporter } from "./progress.js";

const POLL_MS = 1_000;
const REPORT_EVERY_MS = 30_000;

/** True when a process with this pid exists (signal 0 probes without delivering anything). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Takes a lock made of a directory (mkdir is atomic across processes) and returns its release. A lock
 * whose holder has died is taken over instead of waited on forever.
 */
export async function acquireDirectoryLock(lockDir: string, report: Reporter): Promise<() => Promise<void>> {
  const started = Date.now();
  let lastReport = started;
  for (;;) {
    try {
      await mkdir(lockDir);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    const holder = Number.parseInt(await readFile(join(lockDir, "pid"), "utf8").catch(() => ""), 10);
    if (Number.isFinite(holder) && !processAlive(holder)) {
      report(`[lock] ${lockDir}: previous holder (pid ${holder}) is gone, taking the lock over`);
      await rm(lockDir, { recursive: true, force: true });
      continue;
    }
    if (Date.now() - lastReport >= REPORT_EVERY_MS) {
      lastReport = Date.now();
      report(`[lock] waiting for pid ${holder} to release ${lockDir} (${formatDuration(Date.now() - started)})`);
    }
    await sleep(POLL_MS);
  }
  await writeFile(join(lockDir, "pid"), String(process.pid));
  return () => rm(lockDir, { recursive: true, force: true });
}

/** Runs `fn` while holding the directory lock `lockDir`. */
export async function withDirectoryLock<T>(lockDir: string, report: Reporter, fn: () => Promise<T>): Promise<T> {
  const release = await acquireDirectoryLock(lockDir, report);
  try {
    return await fn();
  } finally {
    await release();
  }
}
