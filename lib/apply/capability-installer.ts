import { OWNERSHIP_MARKS } from "../api/group.js";
import type { CapabilityEntry } from "../catalog/capability.js";
import { CATALOG, capability, withPrerequisites } from "../catalog/catalog.js";
import { type ChartSource, OFFICIAL_REPOSITORIES, resolveChart } from "../catalog/chart-source.js";
import type { HelmCli } from "../cluster/helm-cli.js";
import type { ReleaseRecord } from "../cluster/helm-release-record.js";
import type { KubeClient } from "../cluster/kube-client.js";
import { type Reporter, silentReporter } from "../local-plane/progress.js";
import { type CapabilityObservation, observeCapability } from "../observe/capability.js";
import { type CapabilityDecision, decideCapability, decideRelease } from "../plan/provenance.js";
import { type LeaseLockOptions, withLeaseLock } from "./lease-lock.js";

export interface CapabilityInstallerOptions {
  readonly client: KubeClient;
  readonly helm: HelmCli;
  /** @default the official repository of each entry */
  readonly source?: ChartSource;
  readonly catalog?: ReadonlyMap<string, CapabilityEntry>;
  readonly report?: Reporter;
}

/** The name of the Lease that serialises helm operations on one capability, across processes. */
export function capabilityLockName(name: string): string {
  return `capability-${name}`;
}

/**
 * Performs the provenance decisions: installs Absent capabilities as releases stamped with the ownership
 * marks, upgrades Owned ones to the pinned version, never touches Adopted ones, and uninstalls only what
 * is Owned and unused. Every helm operation runs under the capability's Lease lock and re-observes first,
 * so two processes deciding the same install at once install once.
 */
export class CapabilityInstaller {
  private readonly client: KubeClient;
  private readonly helm: HelmCli;
  private readonly source: ChartSource;
  private readonly catalog: ReadonlyMap<string, CapabilityEntry>;
  private readonly report: Reporter;

  constructor(options: CapabilityInstallerOptions) {
    this.client = options.client;
    this.helm = options.helm;
    this.source = options.source ?? OFFICIAL_REPOSITORIES;
    this.catalog = options.catalog ?? CATALOG;
    this.report = options.report ?? silentReporter;
  }

  entry(name: string): CapabilityEntry {
    return capability(name, this.catalog);
  }

  async observe(name: string): Promise<{ observation: CapabilityObservation; decision: CapabilityDecision }> {
    const entry = this.entry(name);
    const observation = await observeCapability(this.client, entry);
    return { observation, decision: decideCapability(entry, observation) };
  }

  /**
   * Decisions for a capability and its prerequisites, prerequisites first, without changing anything:
   * what a preview shows.
   */
  async preview(name: string): Promise<CapabilityDecision[]> {
    const decisions: CapabilityDecision[] = [];
    for (const current of withPrerequisites(name, this.catalog)) decisions.push((await this.observe(current)).decision);
    return decisions;
  }

  /**
   * One pass towards a Ready capability: each prerequisite in turn is installed or upgraded as decided,
   * and the pass stops at the first one not Ready yet (the caller requeues; waiting is not an error).
   * Returns the decisions made, prerequisites first, each as observed after acting.
   */
  async ensure(name: string): Promise<CapabilityDecision[]> {
    const decisions: CapabilityDecision[] = [];
    for (const current of withPrerequisites(name, this.catalog)) {
      let { decision } = await this.observe(current);
      if (decision.action !== "none") decision = await this.act(current);
      decisions.push(decision);
      if (!decision.ready) break;
    }
    return decisions;
  }

  /** What a process waiting for, or holding, a capability's install lock tells its user. */
  private lockReports(name: string): LeaseLockOptions {
    return {
      onWait: (holder) =>
        this.report(
          `[${name}] waiting for ${holder.identity}, which holds the install lock until ${holder.until.toISOString()} unless it renews it`,
        ),
      onRenewFailed: (error) =>
        this.report(
          `[${name}] renewing the install lock failed, trying again: ${error instanceof Error ? error.message : String(error)}`,
        ),
    };
  }

  private async act(name: string): Promise<CapabilityDecision> {
    const entry = this.entry(name);
    return withLeaseLock(
      this.client,
      capabilityLockName(name),
      async () => {
        // Another process may have acted while we waited for the lock: decide again on fresh state.
        const { observation, decision } = await this.observe(name);
        if (decision.action === "none") return decision;
        this.report(`[${name}] ${decision.summary}`);
        const chart = await resolveChart(entry, this.source);
        const options = {
          namespace: entry.release.namespace,
          createNamespace: true,
          labels: OWNERSHIP_MARKS,
          values: entry.values,
          ...(chart.version ? { version: chart.version } : {}),
          ...(chart.repo ? { repo: chart.repo } : {}),
          // Readiness gates, not helm's wait, decide when dependants proceed.
          wait: false,
          // Detection found no controller anywhere, so CRDs that exist are orphans (left by an earlier
          // install, ours or not): the release takes them over instead of failing on their ownership, and
          // our pinned definitions win over whatever last wrote them.
          takeOwnership: true,
          forceConflicts: true,
        };
        if (decision.action === "install") {
          await this.helm.install(entry.release.name, chart.ref, options);
        } else if (observation.release?.status.startsWith("pending-")) {
          // A previous operation died midway (we hold the lock, so nobody else runs one), and helm
          // refuses to upgrade a pending release.
          await this.repairPending(
            name,
            observation.release,
            async () => {
              await this.helm.upgrade(entry.release.name, chart.ref, options);
            },
            async () => {
              await this.helm.install(entry.release.name, chart.ref, options);
            },
          );
        } else {
          await this.helm.upgrade(entry.release.name, chart.ref, options);
        }
        // The chart may have brought new CRDs: the next apply must discover them.
        this.client.refreshDiscovery();
        return (await this.observe(name)).decision;
      },
      this.lockReports(name),
    );
  }

  /**
   * Repairs a release left pending: an upgrade or rollback that died is rolled back to the revision
   * before it, which keeps the running controller, and then upgraded to the pinned chart; an install that
   * died has nothing to go back to, so it is removed and installed again (CRDs are kept by policy).
   */
  private async repairPending(
    name: string,
    release: ReleaseRecord,
    upgrade: () => Promise<void>,
    install: () => Promise<void>,
  ): Promise<void> {
    const entry = this.entry(name);
    if (release.status !== "pending-install" && release.revision > 1) {
      const previous = release.revision - 1;
      this.report(`[${name}] release stuck in ${release.status}: rolling back to revision ${previous}, then upgrading`);
      try {
        await this.helm.rollback(entry.release.name, entry.release.namespace, previous);
        await upgrade();
        return;
      } catch (error) {
        this.report(
          `[${name}] rollback did not repair it (${error instanceof Error ? error.message.split("\n")[0] : String(error)}): reinstalling`,
        );
      }
    } else {
      this.report(`[${name}] release stuck in ${release.status}: reinstalling`);
    }
    await this.helm.uninstall(entry.release.name, entry.release.namespace, { wait: true });
    await install();
  }

  /**
   * Releases a capability a resource no longer needs (SPEC 3.2): `consumers` are recomputed by the caller
   * from live resources; uninstalls only at zero consumers and only an Owned release. CRDs stay.
   */
  async release(name: string, consumers: readonly string[]): Promise<{ uninstalled: boolean; reason: string }> {
    const entry = this.entry(name);
    const first = decideRelease(entry, await observeCapability(this.client, entry), consumers);
    if (!first.uninstall) return { uninstalled: false, reason: first.reason };
    return withLeaseLock(
      this.client,
      capabilityLockName(name),
      async () => {
        const decision = decideRelease(entry, await observeCapability(this.client, entry), consumers);
        if (!decision.uninstall) return { uninstalled: false, reason: decision.reason };
        this.report(`[${name}] uninstall: ${decision.reason}`);
        await this.helm.uninstall(entry.release.name, entry.release.namespace, { wait: true });
        return { uninstalled: true, reason: decision.reason };
      },
      this.lockReports(name),
    );
  }
}
