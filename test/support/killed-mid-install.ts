import { SYSTEM_NAMESPACE } from "../../lib/api/group.js";
import { capabilityLockName } from "../../lib/capabilities/installer.js";
import type { CapabilityEntry } from "../../lib/catalog/capability.js";
import { type KubeClient, orUndefined } from "../../lib/cluster/kube-client.js";
import { releaseRecords } from "./capabilities.js";
import { condition } from "./cluster.js";
import { DRIFT_POSTGRES } from "./drift.js";
import type { startOperatorProcess } from "./operator-process.js";
import { createResource, readStoredResource } from "./resources.js";
import { killGroup } from "./two-operators.js";

type OperatorProcess = ReturnType<typeof startOperatorProcess>;

/** The status of each record helm keeps of a release (`pending-install`, `deployed` …), oldest first. */
export async function releaseStatuses(client: KubeClient, entry: CapabilityEntry): Promise<string[]> {
  const records = await releaseRecords(client, entry.release.namespace, entry.release.name);
  return records
    .sort((a, b) => Number(a.metadata?.labels?.version) - Number(b.metadata?.labels?.version))
    .map((r) => r.metadata?.labels?.status ?? "unknown");
}

async function poll<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs: number, intervalMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** What became of an operator killed mid-install and started again. */
export interface KilledMidInstall {
  /**
   * Where the install was when the kill was sent: the newest record of the target release
   * (`pending-install` while helm writes it), or `no record yet` while the installer's checks ran.
   */
  readonly atKill: string;
  /** From the kill until the resource is Ready (ms). */
  readonly convergedAfterMs: number;
}

/**
 * Kills `running` — an operator started by startOperatorProcess, working towards `resource` — with -9,
 * itself and the helm it runs (its process group, as a node's failure or the OOM killer takes a
 * container), at the moment `killWhen` says, polled every 10 ms: `lock-held`, once it holds `target`'s
 * install lock (its checks under way, a wide window); `release-recorded`, once helm has written its first
 * record of `target`'s release (the release half made: a window as short as helm's writes). Starts an
 * operator again at once, as a restarted container, and waits until `resource` is Ready.
 */
export async function killMidInstall(options: {
  readonly client: KubeClient;
  readonly running: OperatorProcess;
  /** Starts the operator again; the caller keeps what it returns, to stop it. */
  readonly restart: () => OperatorProcess;
  readonly target: CapabilityEntry;
  readonly killWhen: "lock-held" | "release-recorded";
  readonly resource: { readonly kind: string; readonly namespace: string; readonly name: string };
  readonly timeoutMs: number;
}): Promise<KilledMidInstall> {
  const { client, target, resource } = options;
  const lock = { name: capabilityLockName(target.name), namespace: SYSTEM_NAMESPACE };
  await poll(
    options.killWhen === "lock-held"
      ? `the install lock ${lock.namespace}/${lock.name} to be held`
      : `helm's first record of release ${target.release.namespace}/${target.release.name}`,
    async () =>
      options.killWhen === "lock-held"
        ? (await orUndefined(client.coordination.readNamespacedLease(lock)))?.spec?.holderIdentity
        : (await releaseStatuses(client, target)).at(-1),
    options.timeoutMs,
    10,
  );
  await killGroup(options.running.process);
  const killedAt = performance.now();
  options.restart();
  const atKill = (await releaseStatuses(client, target)).at(-1) ?? "no record yet";
  await poll(
    `${resource.kind} ${resource.namespace}/${resource.name} to be Ready after the operator's kill`,
    async () =>
      condition(await readStoredResource(client, resource.kind, resource.namespace, resource.name), "Ready")?.status ===
        "True" || undefined,
    options.timeoutMs,
    50,
  );
  return { atKill, convergedAfterMs: performance.now() - killedAt };
}

/**
 * The whole scenario, as the test and the bench run it: an operator started (`start`) for a managed
 * PostgresCluster `drift` created in `namespace` (which needs cert-manager, then CloudNativePG), killed
 * mid-install of `target` and started again. Every operator started is pushed on `operators`, for the
 * caller to stop whatever happens.
 */
export async function operatorKilledMidInstall(
  options: {
    readonly client: KubeClient;
    readonly namespace: string;
    readonly target: CapabilityEntry;
    readonly killWhen: "lock-held" | "release-recorded";
    readonly timeoutMs: number;
    readonly start: () => OperatorProcess;
  },
  operators: OperatorProcess[],
): Promise<KilledMidInstall> {
  const first = options.start();
  operators.push(first);
  await createResource(options.client, "PostgresCluster", options.namespace, DRIFT_POSTGRES, {
    databases: [{ name: "app1" }],
    managed: { deletionPolicy: "Delete" },
  });
  return killMidInstall({
    client: options.client,
    running: first,
    restart: () => {
      const restarted = options.start();
      operators.push(restarted);
      return restarted;
    },
    target: options.target,
    killWhen: options.killWhen,
    resource: { kind: "PostgresCluster", namespace: options.namespace, name: DRIFT_POSTGRES },
    timeoutMs: options.timeoutMs,
  });
}
