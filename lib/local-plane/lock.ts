import { mkdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { formatDuration, type Reporter } from "./progress.js";

const POLL_MS = 1_000;
const REPORT_EVERY_MS = 30_000;
/**
 * A lock directory without a pid file is being taken (mkdir, then the pid written) or was left by a holder
 * that died between the two: after this long it is the latter.
 */
const PIDLESS_GRACE_MS = 10_000;

/** True when a process with this pid exists (signal 0 probes without delivering anything). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Why a lock directory may be taken over: its holder is gone, or none ever wrote its pid. */
async function abandoned(lockDir: string): Promise<string | undefined> {
  const text = await readFile(join(lockDir, "pid"), "utf8").catch(() => undefined);
  const holder = text === undefined ? Number.NaN : Number.parseInt(text, 10);
  if (Number.isFinite(holder)) return processAlive(holder) ? undefined : `previous holder (pid ${holder}) is gone`;
  const made = await stat(lockDir).then(
    (found) => found.mtimeMs,
    () => undefined,
  );
  if (made === undefined) return undefined; // released meanwhile: the next mkdir takes it
  return Date.now() - made > PIDLESS_GRACE_MS ? "no holder wrote its pid" : undefined;
}

/**
 * Takes a lock made of a directory (mkdir is atomic across processes) and returns its release. A lock
 * whose holder has died, or that no holder finished taking, is taken over instead of waited on forever.
 * `signal` gives up the wait (a test suite torn down while still waiting for it).
 */
export async function acquireDirectoryLock(
  lockDir: string,
  report: Reporter,
  options: { readonly signal?: AbortSignal } = {},
): Promise<() => Promise<void>> {
  const started = Date.now();
  let lastReport = started;
  for (;;) {
    options.signal?.throwIfAborted();
    try {
      await mkdir(lockDir);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    const why = await abandoned(lockDir);
    if (why) {
      report(`[lock] ${lockDir}: ${why}, taking the lock over`);
      await rm(lockDir, { recursive: true, force: true });
      continue;
    }
    if (Date.now() - lastReport >= REPORT_EVERY_MS) {
      lastReport = Date.now();
      const holder = await readFile(join(lockDir, "pid"), "utf8").catch(() => "?");
      report(`[lock] waiting for pid ${holder} to release ${lockDir} (${formatDuration(Date.now() - started)})`);
    }
    // The signal's own reason, not timers' generic AbortError, says why the wait ended.
    await sleep(POLL_MS, undefined, options.signal ? { signal: options.signal } : {}).catch((error: unknown) => {
      options.signal?.throwIfAborted();
      throw error;
    });
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
