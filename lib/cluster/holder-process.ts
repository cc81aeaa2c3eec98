import { readFileSync, readlinkSync } from "node:fs";
import { hostname } from "node:os";
import * as z from "zod";
import { API_GROUP } from "../api/group.js";

/**
 * The annotation a Lease holder writes on its Lease: which process it is, so that another process on the
 * same machine can tell at once that it is gone (docs/adr/0027-leader-election.md).
 */
export const HOLDER_PROCESS_ANNOTATION = `${API_GROUP}/holder-process`;

/**
 * The environment variable the operator's chart sets to its Pod's UID (the downward API's
 * `metadata.uid`): a Pod is never restarted under the same UID, and runs one operator container.
 */
export const POD_UID_ENV = "NAVIQUE_POD_UID";

/**
 * A process, as the same machine tells it from every other, ever: the host name, the boot (a pid is
 * reused after a reboot), the pid namespace (a pid means another process in another container) and the pid
 * with its start time (a pid is reused once its process ended; a start time, in clock ticks since boot, is
 * not).
 */
const holderProcess = z.strictObject({
  host: z.string().min(1).max(253),
  boot: z.string().min(1).max(64),
  pidNamespace: z.string().min(1).max(64),
  pid: z.number().int().positive(),
  start: z.string().regex(/^\d{1,20}$/),
  /** The UID of the Pod it runs in, when its chart says (POD_UID_ENV). */
  pod: z.string().min(1).max(64).optional(),
});
export type HolderProcess = z.infer<typeof holderProcess>;

/**
 * The start time of a running pid, in clock ticks since boot (field 22 of /proc/PID/stat); undefined: no
 * such pid, or one that has ended and waits to be reaped (a zombie, state Z or X, whose stat stays).
 */
function startTicks(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name, field 2, is parenthesised and may hold spaces: count from after it.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (fields[0] === "Z" || fields[0] === "X") return undefined;
    return fields[19];
  } catch {
    return undefined;
  }
}

function readThisProcess(): HolderProcess | undefined {
  try {
    const start = startTicks(process.pid);
    if (!start) return undefined;
    const pod = process.env[POD_UID_ENV];
    return {
      host: hostname(),
      boot: readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim(),
      pidNamespace: readlinkSync("/proc/self/ns/pid"),
      pid: process.pid,
      start,
      ...(pod ? { pod } : {}),
    };
  } catch {
    // Not Linux, or /proc not mounted: the process is not described, and others wait out its lease.
    return undefined;
  }
}

/** This process, as its Lease annotations describe it; undefined where /proc cannot tell. */
export const THIS_PROCESS: HolderProcess | undefined = readThisProcess();

/**
 * A Lease's annotations as this process, taking it, writes them: its own description in place of the
 * previous holder's (which, left behind, would make this live process look gone).
 */
export function holderAnnotations(existing: Readonly<Record<string, string>> = {}): Record<string, string> {
  const { [HOLDER_PROCESS_ANNOTATION]: _previous, ...others } = existing;
  return THIS_PROCESS ? { ...others, [HOLDER_PROCESS_ANNOTATION]: JSON.stringify(THIS_PROCESS) } : others;
}

/**
 * True only when certain that the process a Lease's annotations name has ended: it ran in this Pod, in a
 * container before this one (the kubelet starts a container again only once the one before has ended,
 * and a Pod runs one operator container), or it ran on this machine, since its last boot, in this pid
 * namespace, and no process of its pid and start time runs. Anything else (another Pod, another machine,
 * an annotation missing or malformed) is not known to be gone: the lease is then waited out.
 */
export function holderProcessGone(
  annotations: Readonly<Record<string, string>> | undefined,
  self: HolderProcess | undefined = THIS_PROCESS,
): boolean {
  const text = annotations?.[HOLDER_PROCESS_ANNOTATION];
  if (!text || !self) return false;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return false;
  }
  const holder = holderProcess.safeParse(parsed);
  if (!holder.success) return false;
  const { host, boot, pidNamespace, pid, start, pod } = holder.data;
  if (pod !== undefined && pod === self.pod && pidNamespace !== self.pidNamespace) return true;
  if (host !== self.host || boot !== self.boot || pidNamespace !== self.pidNamespace) return false;
  return startTicks(pid) !== start;
}
