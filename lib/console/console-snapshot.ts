import { KubeConfig } from "@kubernetes/client-node";
import { KubeClient } from "../cluster/kube-client.js";
import type { DoctorReport } from "../reports/doctor-report.js";
import type { StatusReport } from "../reports/status-report.js";
import { diagnose } from "../status/diagnose.js";
import { readStatus } from "../status/read-status.js";
import { type ConsoleSettings, readConsoleSettings } from "./management-plane.js";
import { type ConsoleEvent, readRecentEvents } from "./read-events.js";

/** What every page of the console is rendered from: one reading of the cluster. */
export interface ServedSnapshot {
  readonly served: true;
  readonly settings: ConsoleSettings;
  /** What `navique status` reports: the very same reading (lib/status/read-status.ts). */
  readonly status: StatusReport;
  /** What `navique doctor` finds in it. */
  readonly doctor: DoctorReport;
  readonly events: readonly ConsoleEvent[];
}

/** The console turned off by its ManagementPlane: nothing else was read. */
export interface TurnedOffSnapshot {
  readonly served: false;
  readonly settings: ConsoleSettings;
}

export type ConsoleSnapshot = ServedSnapshot | TurnedOffSnapshot;

/** How long a reading serves every page: a page costs the cluster nothing more within it. */
export const SNAPSHOT_TTL_MS = 5_000;

/** Reads the console's snapshots: one at a time, each kept SNAPSHOT_TTL_MS. */
export interface SnapshotSource {
  snapshot(): Promise<ConsoleSnapshot>;
}

/**
 * The console's readings of the cluster. `client` makes the client of one reading — one that reads each
 * thing once (`readOnce`), so that a reading stands on one answer per list —; readings asked for while one
 * is under way share it, and each serves SNAPSHOT_TTL_MS. A reading that fails is not kept: the next page
 * reads again.
 */
export function snapshotSource(options: {
  readonly client: () => KubeClient;
  readonly trustedKeys?: ReadonlyMap<string, string>;
  readonly now?: () => Date;
  readonly ttlMs?: number;
}): SnapshotSource {
  const now = options.now ?? (() => new Date());
  const ttl = options.ttlMs ?? SNAPSHOT_TTL_MS;
  let kept: { reading: Promise<ConsoleSnapshot>; at: number } | undefined;
  const read = async (): Promise<ConsoleSnapshot> => {
    const client = options.client();
    const at = now();
    const settings = await readConsoleSettings(client);
    // Turned off: nothing else of the cluster is read for it.
    if (!settings.spec.enabled) return { served: false, settings };
    const [status, events] = await Promise.all([
      readStatus(client, { now: at, ...(options.trustedKeys ? { trustedKeys: options.trustedKeys } : {}) }),
      readRecentEvents(client, { now: at, withinMinutes: settings.spec.recentEventsMinutes }),
    ]);
    return { served: true, settings, status, doctor: diagnose(status), events };
  };
  return {
    snapshot: () => {
      const at = now().getTime();
      if (kept && at - kept.at < ttl) return kept.reading;
      const reading = read();
      kept = { reading, at };
      reading.catch(() => {
        if (kept?.reading === reading) kept = undefined;
      });
      return reading;
    },
  };
}

/**
 * The readings of the cluster a kubeconfig reaches, as the operator and `navique console` serve them: the
 * kubeconfig read once, a client that reads once made of it for each reading.
 */
export function clusterSnapshots(kubeconfigPath: string, trustedKeys?: ReadonlyMap<string, string>): SnapshotSource {
  const kubeconfig = new KubeConfig();
  kubeconfig.loadFromFile(kubeconfigPath);
  return snapshotSource({
    client: () => new KubeClient(kubeconfig, { readOnce: true }),
    ...(trustedKeys ? { trustedKeys } : {}),
  });
}
