import { spawn } from "node:child_process";
import { closeSync, openSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";
import { processAlive } from "./lock.js";

/**
 * Starts a long-lived component in its own process group, detached from this process, with its output
 * appended to a log file: the plane outlives the command that started it, so that a second start can
 * reuse it.
 */
export function spawnDetached(
  binary: string,
  args: readonly string[],
  logFile: string,
  env?: NodeJS.ProcessEnv,
): number {
  const fd = openSync(logFile, "a");
  try {
    const child = spawn(binary, args, { detached: true, stdio: ["ignore", fd, fd], env: env ?? process.env });
    if (child.pid === undefined) throw new Error(`could not start ${binary}`);
    child.unref();
    return child.pid;
  } finally {
    closeSync(fd);
  }
}

/**
 * True when `pid` is alive AND is one of this plane's processes: its command line mentions the plane's
 * directory. A pid from a stale state file may since have been reused by an unrelated process, which
 * must never be signalled.
 */
export async function ownsProcess(pid: number, marker: string): Promise<boolean> {
  if (!processAlive(pid)) return false;
  const cmdline = await readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => "");
  return cmdline.split("\0").some((arg) => arg.includes(marker));
}

/** SIGTERM the process group, wait up to `graceMs`, then SIGKILL; resolves once the process is gone. */
export async function terminate(pid: number, graceMs = 10_000): Promise<void> {
  const signalGroup = (signal: NodeJS.Signals) => {
    try {
      process.kill(-pid, signal);
    } catch {
      try {
        process.kill(pid, signal);
      } catch {
        // already gone
      }
    }
  };
  signalGroup("SIGTERM");
  const deadline = Date.now() + graceMs;
  while (processAlive(pid) && Date.now() < deadline) await sleep(100);
  if (processAlive(pid)) {
    signalGroup("SIGKILL");
    while (processAlive(pid)) await sleep(50);
  }
}

/** The pids of processes whose command line mentions `marker` (to find leftovers of a plane whose state was lost). */
export async function processesMentioning(marker: string): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    if (pid === process.pid) continue;
    if (await ownsProcess(pid, marker)) pids.push(pid);
  }
  return pids;
}
