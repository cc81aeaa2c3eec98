import { WORKLOADS, workload } from "../catalog/catalog.js";
import { type ChartSource, OFFICIAL_REPOSITORIES, resolveChart } from "../catalog/chart-source.js";
import { keptSecretNames, type WorkloadEntry } from "../catalog/workload.js";
import { type HelmCli, helmErrorSummary } from "../cluster/helm-cli.js";
import { type KubeClient, orUndefined } from "../cluster/kube-client.js";
import type { Reporter } from "../reporter.js";
import { withLeaseLock } from "./lease-lock.js";
import { StepFailure } from "./step-failure.js";

/** One per-resource release of a workload chart, as a kind's desired state asks for it. */
export interface WorkloadReleaseRequest {
  readonly name: string;
  readonly namespace: string;
  /** The catalog entry (lib/catalog/catalog.ts WORKLOADS). */
  readonly workload: string;
  /** Chart values: every secret by reference (an existing Secret's name), never a value. */
  readonly values: Readonly<Record<string, unknown>>;
  /** Stored on the release record: the owning resource's marks. */
  readonly labels: Readonly<Record<string, string>>;
}

/** The state of the release's latest revision, when there is one: a pending one is repaired first. */
export interface ReleaseState {
  readonly revision: number;
  readonly status: string;
}

export interface WorkloadReleaserOptions {
  readonly client: KubeClient;
  readonly helm: HelmCli;
  /** @default the official repository of each entry */
  readonly source?: ChartSource;
  readonly workloads?: ReadonlyMap<string, WorkloadEntry>;
  readonly report?: Reporter;
}

/** The Lease that serialises helm operations on one workload release, across processes (Pulumi, the operator). */
export function workloadLockName(namespace: string, name: string): string {
  return `navique-release-${namespace}-${name}`.slice(0, 253);
}

/**
 * Installs, upgrades and uninstalls the per-resource releases of workload charts. Whether to act is the
 * engine's decision (lib/engine/workload-release.ts): this only carries it out, under a Lease lock, with
 * helm's wait off (the kind's readiness rule decides when the resource is Ready).
 */
export class WorkloadReleaser {
  private readonly options: WorkloadReleaserOptions;

  constructor(options: WorkloadReleaserOptions) {
    this.options = options;
  }

  private report(line: string): void {
    this.options.report?.(line);
  }

  /** `helm upgrade --install` of the release; a revision left pending by a helm that died is repaired first. */
  async apply(request: WorkloadReleaseRequest, current: ReleaseState | undefined): Promise<void> {
    const entry = workload(request.workload, this.options.workloads ?? WORKLOADS);
    const where = `${request.namespace}/${request.name}`;
    const { helm, client } = this.options;
    await withLeaseLock(client, workloadLockName(request.namespace, request.name), async () => {
      const chart = await resolveChart(entry, this.options.source ?? OFFICIAL_REPOSITORIES);
      await this.asFailure(request, entry, async () => {
        if (current?.status.startsWith("pending-")) await this.repairPending(request, current);
        if (current?.status === "uninstalling") await this.completeUninstall(request, current);
        await helm.upgrade(request.name, chart.ref, {
          namespace: request.namespace,
          install: true,
          labels: request.labels,
          values: request.values,
          ...(chart.version ? { version: chart.version } : {}),
          ...(chart.repo ? { repo: chart.repo } : {}),
          wait: false,
        });
      });
      this.report(`[${where}] Helm release ${where} at ${entry.chart.name} ${entry.chart.version}`);
    });
  }

  /**
   * `helm uninstall`; nothing to do when the release is gone already. The Secrets its chart would keep
   * (the catalog entry of `chart`, the chart the release was installed from) are deleted first: helm
   * leaves them alone, and once the release is gone nothing would remember them.
   */
  async uninstall(name: string, namespace: string, chart?: string): Promise<boolean> {
    const workloads = [...(this.options.workloads ?? WORKLOADS).values()];
    const entry = chart === undefined ? undefined : workloads.find((w) => w.chart.name === chart);
    return withLeaseLock(this.options.client, workloadLockName(namespace, name), async () => {
      for (const secret of entry ? keptSecretNames(entry, name) : []) {
        await orUndefined(this.options.client.core.deleteNamespacedSecret({ name: secret, namespace }));
        this.report(
          `[${namespace}/${name}] deleted Secret ${namespace}/${secret}, which the chart keeps after uninstall`,
        );
      }
      return this.options.helm.uninstall(name, namespace, { wait: true });
    });
  }

  /**
   * A revision left pending (its helm was killed): helm refuses to upgrade it. An upgrade is rolled back
   * to the revision before; a first install is uninstalled, and the upgrade that follows installs again.
   */
  private async repairPending(request: WorkloadReleaseRequest, current: ReleaseState): Promise<void> {
    const where = `${request.namespace}/${request.name}`;
    if (current.status !== "pending-install" && current.revision > 1) {
      this.report(`[${where}] release stuck in ${current.status}: rolling back to revision ${current.revision - 1}`);
      await this.options.helm.rollback(request.name, request.namespace, current.revision - 1);
      return;
    }
    this.report(`[${where}] release stuck in ${current.status}: reinstalling`);
    await this.options.helm.uninstall(request.name, request.namespace, { wait: true });
  }

  /**
   * A release left `uninstalling` (an uninstall, ours or by hand, died between marking the revision and
   * purging its records): helm refuses to upgrade it and nothing else ever moves it on. The uninstall is
   * completed — without waiting, so that an object held by a finalizer cannot hold this worker for
   * helm's five minutes — and the upgrade that follows installs again. An uninstall by hand still running
   * only races this one to the same end: both purge, and the next pass installs what is missing.
   */
  private async completeUninstall(request: WorkloadReleaseRequest, current: ReleaseState): Promise<void> {
    const where = `${request.namespace}/${request.name}`;
    this.report(
      `[${where}] release revision ${current.revision} left uninstalling: completing the uninstall, then installing`,
    );
    await this.options.helm.uninstall(request.name, request.namespace, { wait: false });
  }

  private async asFailure(request: WorkloadReleaseRequest, entry: WorkloadEntry, run: () => Promise<void>) {
    try {
      await run();
    } catch (error) {
      const summary = helmErrorSummary(error);
      throw new StepFailure(
        "ReleaseFailed",
        `Helm release ${request.namespace}/${request.name} of ${entry.chart.name} ${entry.chart.version} failed: ${summary}. Correct the cause helm names; the next pass retries`,
        undefined,
        { cause: error },
      );
    }
  }
}
