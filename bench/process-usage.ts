import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";

/** Memory and CPU time of a process and every descendant it has at the moment of reading (Linux /proc). */
export interface ProcessUsage {
  /** Resident set size, summed over the tree, in bytes. */
  readonly rssBytes: number;
  /**
   * CPU time used so far, user + system, in seconds: the live processes' own, plus what their children
   * that have exited and been waited for used (cutime + cstime), so that a short-lived helper counts.
   */
  readonly cpuSeconds: number;
  /** Processes in the tree. */
  readonly processes: number;
}

/** The unit of the CPU times of /proc/PID/stat. */
export const CLOCK_TICKS_PER_SECOND = (() => {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
  } catch {
    return 100;
  }
})();

interface Stat {
  readonly ppid: number;
  readonly ticks: number;
}

/** `/proc/PID/stat` after the command name (which may hold spaces): fields 3 (state) onwards. */
function readStat(pid: number): Stat | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
    // Field n of proc(5) is fields[n - 3]: ppid 4, utime 14, stime 15, cutime 16, cstime 17.
    const field = (n: number) => Number(fields[n - 3] ?? 0);
    return { ppid: field(4), ticks: field(14) + field(15) + field(16) + field(17) };
  } catch {
    return undefined; // exited meanwhile
  }
}

function readRssBytes(pid: number): number {
  try {
    const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** The usage of `pid` and its descendants now. */
export function processUsage(pid: number): ProcessUsage {
  const parents = new Map<number, number>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readStat(Number(entry));
    if (stat) parents.set(Number(entry), stat.ppid);
  }
  const tree = new Set([pid]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const [child, parent] of parents) {
      if (tree.has(parent) && !tree.has(child)) {
        tree.add(child);
        grew = true;
      }
    }
  }
  let rssBytes = 0;
  let ticks = 0;
  for (const member of tree) {
    rssBytes += readRssBytes(member);
    ticks += readStat(member)?.ticks ?? 0;
  }
  return { rssBytes, cpuSeconds: ticks / CLOCK_TICKS_PER_SECOND, processes: tree.size };
}
