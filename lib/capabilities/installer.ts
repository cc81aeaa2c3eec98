import pMap from "p-map";
import { OWNERSHIP_MARKS } from "../api/group.js";
import type { CapabilityEntry } from "../catalog/capability.js";
import { CATALOG, capability, withPrerequisites } from "../catalog/catalog.js";
import { type ChartSource, OFFICIAL_REPOSITORIES, resolveChart } from "../catalog/chart-source.js";
import { type HelmCli, type HelmInstallOptions, helmErrorSummary } from "../cluster/helm-cli.js";
import {
  HELM_MANAGED_BY,
  HELM_MANAGED_BY_LABEL,
  HELM_RELEASE_NAME_ANNOTATION,
  HELM_RELEASE_NAMESPACE_ANNOTATION,
} from "../cluster/helm-release-record.js";
import { type KubeClient, type ObjectHeader, orUndefined, statusOf } from "../cluster/kube-client.js";
import type { ReleaseRecord } from "../cluster/release-record.js";
import { type Reporter, silentReporter } from "../reporter.js";
import type { CapabilityInstallObserver, CapabilityInstallResult } from "./install-observer.js";
import { type LeaseLockOptions, withLeaseLock } from "./lease-lock.js";
import type { CapabilityObservation } from "./observation.js";
import { observeCapability } from "./observe.js";
import { type CapabilityDecision, decideCapability, decideRelease } from "./provenance.js";
import {
  decideReleaseOwnership,
  describeObject,
  type OwnershipVerdict,
  ownershipConflictMessage,
} from "./release-ownership.js";
import { observeExistingObjects, PREFLIGHT_CONCURRENCY, placeRenderedObjects } from "./rendered-objects.js";
import { StepFailure } from "./step-failure.js";

/** The field manager helm v4 applies with (pkg/kube client default): the dry run applies as helm will. */
const HELM_FIELD_MANAGER = "helm";

/** A JSON pointer segment (RFC 6901) for a label or annotation key. */
function pointer(key: string): string {
  return key.replaceAll("~", "~0").replaceAll("/", "~1");
}

/** JSON patch operations that set `entries` in metadata.<field>, creating the map when absent. */
function setOps(
  field: "labels" | "annotations",
  current: Readonly<Record<string, string>> | undefined,
  entries: Readonly<Record<string, string>>,
): { op: "add"; path: string; value: unknown }[] {
  if (!current) return [{ op: "add", path: `/metadata/${field}`, value: { ...entries } }];
  return Object.entries(entries).map(([key, value]) => ({
    op: "add",
    path: `/metadata/${field}/${pointer(key)}`,
    value,
  }));
}

/** The apiserver's own words for a refused request (its Status message), else the error's first line. */
function apiRefusal(error: unknown): string {
  const body = (error as { body?: unknown }).body;
  if (typeof body === "string") {
    try {
      const status = JSON.parse(body) as { message?: string };
      if (status.message) return status.message;
    } catch {
      // not a Status: fall through
    }
  }
  return error instanceof Error ? (error.message.split("\n")[0] ?? "") : String(error);
}

/** The refusal of an install whose rendered objects include one that is not the release's own (OwnershipConflict). */
function conflictFailure(entry: CapabilityEntry, verdict: OwnershipVerdict): StepFailure | undefined {
  if (verdict.conflicts.length === 0) return undefined;
  return new StepFailure("OwnershipConflict", ownershipConflictMessage(entry, verdict), undefined, { stalled: true });
}

export interface CapabilityInstallerOptions {
  readonly client: KubeClient;
  readonly helm: HelmCli;
  /** @default the official repository of each entry */
  readonly source?: ChartSource;
  readonly catalog?: ReadonlyMap<string, CapabilityEntry>;
  readonly report?: Reporter;
  /** Told how each install, upgrade or restore begun ended (the operator's metrics). @default none */
  readonly observer?: CapabilityInstallObserver;
}

/** A helm install or upgrade this process carried out: what a resource's Event records. */
export interface PerformedInstall {
  readonly capability: string;
  /** A restore re-applies the release as it is (helm upgrade to the same chart and values). */
  readonly action: "install" | "upgrade" | "restore";
  /** The chart version installed: the catalog's pin, which every chart source holds to. */
  readonly chartVersion: string;
  readonly release: { readonly name: string; readonly namespace: string };
}

/** What an install, upgrade or restore that ended without an error is counted as. */
const PERFORMED: Readonly<Record<PerformedInstall["action"], CapabilityInstallResult>> = {
  install: "installed",
  upgrade: "upgraded",
  restore: "restored",
};

/** The name of the Lease that serialises helm operations on one capability, across processes. */
export function capabilityLockName(name: string): string {
  return `capability-${name}`;
}

/**
 * Performs the provenance decisions: installs Absent capabilities as releases stamped with the ownership
 * marks, upgrades Owned ones to the pinned version and restores what drifted of them (a helm upgrade to
 * the same chart and values re-applies every object of the release), never touches Adopted ones, and
 * uninstalls only what is Owned and unused. Every helm operation runs under the capability's Lease lock and re-observes first,
 * so two processes deciding the same install at once install once.
 */
export class CapabilityInstaller {
  private readonly client: KubeClient;
  private readonly helm: HelmCli;
  private readonly source: ChartSource;
  private readonly catalog: ReadonlyMap<string, CapabilityEntry>;
  private readonly report: Reporter;
  private readonly observer: CapabilityInstallObserver | undefined;

  constructor(options: CapabilityInstallerOptions) {
    this.client = options.client;
    this.helm = options.helm;
    this.source = options.source ?? OFFICIAL_REPOSITORIES;
    this.catalog = options.catalog ?? CATALOG;
    this.report = options.report ?? silentReporter;
    this.observer = options.observer;
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
  async preview(
    name: string,
    decide: (name: string) => Promise<CapabilityDecision> = async (current) => (await this.observe(current)).decision,
  ): Promise<CapabilityDecision[]> {
    return this.required(name, decide);
  }

  /**
   * The decisions for a capability and the prerequisites the product needs for it, prerequisites first,
   * each once. A prerequisite is needed only for a capability the product installs or keeps (Absent,
   * Owned): an Adopted one was installed by someone else, with whatever it needs, and the product installs
   * nothing for it — cert-manager is not installed for a CloudNativePG the user runs. `decide` observes.
   */
  private async required(
    name: string,
    decide: (name: string) => Promise<CapabilityDecision>,
  ): Promise<CapabilityDecision[]> {
    // Refuses a cycle in the catalog before anything is observed.
    withPrerequisites(name, this.catalog);
    const decisions: CapabilityDecision[] = [];
    const visit = async (current: string): Promise<void> => {
      if (decisions.some((d) => d.capability === current)) return;
      const decision = await decide(current);
      if (decision.state !== "Adopted")
        for (const prerequisite of this.entry(current).prerequisites) await visit(prerequisite);
      if (!decisions.some((d) => d.capability === current)) decisions.push(decision);
    };
    await visit(name);
    return decisions;
  }

  /**
   * Whether an install or upgrade of the capability, as decided now, would be refused for a collision
   * (OwnershipConflict), foreseen without changing anything: the chart rendered as the install renders
   * it and its objects checked by the preflight's own rule (docs/adr/0011-capability-install-ownership.md).
   * `unchecked` says why it could not be looked at (the chart cannot be fetched or rendered here).
   */
  async foreseeConflict(name: string): Promise<{ readonly conflict?: StepFailure; readonly unchecked?: string }> {
    const entry = this.entry(name);
    try {
      const chart = await resolveChart(entry, this.source);
      const { verdict } = await this.ownershipVerdict(entry, chart.ref, this.installOptions(entry, chart));
      const conflict = conflictFailure(entry, verdict);
      return conflict ? { conflict } : {};
    } catch (error) {
      return { unchecked: helmErrorSummary(error instanceof StepFailure && error.cause ? error.cause : error) };
    }
  }

  /** How the capability's chart is installed: in its release namespace, with the ownership marks and the pinned values. */
  private installOptions(entry: CapabilityEntry, chart: { version?: string; repo?: string }): HelmInstallOptions {
    return {
      namespace: entry.release.namespace,
      createNamespace: true,
      labels: OWNERSHIP_MARKS,
      values: entry.values,
      ...(chart.version ? { version: chart.version } : {}),
      ...(chart.repo ? { repo: chart.repo } : {}),
      // Readiness gates, not helm's wait, decide when dependants proceed.
      wait: false,
      // Only objects proven ours reach helm (see preflight): on those, our pinned definitions win
      // over whatever field manager last wrote them (e.g. orphaned CRDs applied by kubectl).
      forceConflicts: true,
    };
  }

  /**
   * The ownership preflight's facts: the chart rendered with these options and every rendered object
   * that already exists judged (lib/capabilities/release-ownership.ts). Reads only.
   */
  private async ownershipVerdict(entry: CapabilityEntry, chart: string, options: HelmInstallOptions) {
    const manifest = await this.asInstallFailure(entry, "rendering the chart", () =>
      this.helm.template(entry.release.name, chart, options),
    );
    const rendered = await placeRenderedObjects(this.client, manifest, entry.release.namespace);
    const verdict = decideReleaseOwnership(entry, await observeExistingObjects(this.client, rendered.served));
    return { rendered, verdict };
  }

  /**
   * One pass towards a Ready capability: each prerequisite in turn is installed or upgraded as decided,
   * and the pass stops at the first one not Ready yet (the caller requeues; waiting is not an error).
   * Returns the decisions made, prerequisites first, each as observed after acting.
   */
  async ensure(name: string, onPerformed?: (performed: PerformedInstall) => void): Promise<CapabilityDecision[]> {
    const decisions: CapabilityDecision[] = [];
    // Only the prerequisites the product needs for it (see `required`): none of an Adopted capability.
    for (const planned of await this.required(name, async (current) => (await this.observe(current)).decision)) {
      // Acting decides again on fresh state, under the lock: a decision observed before a prerequisite's
      // install is not acted on as it was.
      const acted = planned.action === "none" ? { decision: planned } : await this.act(planned.capability);
      if (acted.performed) onPerformed?.(acted.performed);
      decisions.push(acted.decision);
      if (!acted.decision.ready) break;
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
      onTakeOver: (holder, why) => this.report(`[${name}] taking the install lock from ${holder} at once: ${why}`),
      onRenewFailed: (error) =>
        this.report(
          `[${name}] renewing the install lock failed, trying again: ${error instanceof Error ? error.message : String(error)}`,
        ),
    };
  }

  private async act(name: string): Promise<{ decision: CapabilityDecision; performed?: PerformedInstall }> {
    const entry = this.entry(name);
    return withLeaseLock(
      this.client,
      capabilityLockName(name),
      async () => {
        // Another process may have acted while we waited for the lock: decide again on fresh state.
        const { observation, decision } = await this.observe(name);
        if (decision.action === "none") return { decision };
        // Counted once it has ended: a refusal before helm ran (a conflict, a dry run refused) fails it too.
        try {
          this.report(`[${name}] ${decision.summary}`);
          const chart = await resolveChart(entry, this.source);
          const options = this.installOptions(entry, chart);
          const pending = observation.release?.status.startsWith("pending-") ?? false;
          const orphanedCrds = await this.preflight(entry, chart.ref, options, {
            verb: decision.action === "install" ? "install" : "upgrade",
            // helm refuses any operation on a pending release, its dry run included; the repair below
            // gets it out of that state first.
            helmDryRun: !pending,
          });
          await this.stampOrphanedCrds(entry, orphanedCrds);
          await this.asInstallFailure(entry, "the install", async () => {
            if (decision.action === "install") {
              await this.helm.install(entry.release.name, chart.ref, options);
            } else if (pending && observation.release) {
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
          });
        } catch (error) {
          this.observer?.capabilityInstall(name, "failed");
          throw error;
        }
        this.observer?.capabilityInstall(name, PERFORMED[decision.action]);
        // The chart may have brought new CRDs: the next apply must discover them.
        this.client.refreshDiscovery();
        const performed: PerformedInstall = {
          capability: name,
          action: decision.action,
          chartVersion: entry.chart.version,
          release: entry.release,
        };
        return { decision: (await this.observe(name)).decision, performed };
      },
      this.lockReports(name),
    );
  }

  /**
   * Everything that can be known before a helm operation writes a revision. The chart is rendered with
   * the same values, version and source; every rendered object that already exists must be the
   * release's own, or one of the capability's CRDs orphaned by an earlier install (returned, to be
   * stamped), else the install is refused naming them (OwnershipConflict). Then the apiserver validates
   * and admits each object without persisting it (dry-run apply, which helm's own dry run does not do),
   * and helm simulates the operation (`--dry-run=server`: rendering against the cluster, its checks).
   * Any refusal there is an InstallFailed with no revision made; the same cause refused again on the
   * next pass makes none either.
   */
  private async preflight(
    entry: CapabilityEntry,
    chart: string,
    options: HelmInstallOptions,
    how: { readonly verb: "install" | "upgrade"; readonly helmDryRun: boolean },
  ): Promise<ObjectHeader[]> {
    const { rendered, verdict } = await this.ownershipVerdict(entry, chart, options);
    const conflict = conflictFailure(entry, verdict);
    if (conflict) {
      this.report(`[${entry.name}] refused: ${conflict.message}`);
      throw conflict;
    }
    const renderedKinds = new Set(
      rendered.served
        .filter((o) => o.kind === "CustomResourceDefinition")
        .map((o) => {
          const spec = (o as { spec?: { group?: string; names?: { kind?: string } } }).spec;
          return `${spec?.group}/${spec?.names?.kind}`;
        }),
    );
    for (const { object } of rendered.unserved) {
      // A custom resource of a CRD the same chart installs is validated once its CRD exists, by helm.
      if (renderedKinds.has(`${object.apiVersion.split("/")[0]}/${object.kind}`)) continue;
      throw new StepFailure(
        "InstallFailed",
        `${entry.name} ${entry.chart.version} renders ${describeObject(object)} of ${object.apiVersion}, which the cluster does not serve. Nothing was installed. Install the API it needs first (its CRD or operator)`,
      );
    }
    await this.ensureNamespace(entry.release.namespace);
    // The apiserver's checks and helm's own dry run read only: they run at once, and a refusal is
    // reported for the first object in the chart's order, whichever answered first.
    const [refusals, helmDryRun] = await Promise.all([
      pMap(
        rendered.served,
        (object) =>
          this.client.apply(object, { fieldManager: HELM_FIELD_MANAGER, dryRun: true }).then(
            () => undefined,
            (error: unknown) => ({ object, error }),
          ),
        { concurrency: PREFLIGHT_CONCURRENCY },
      ),
      how.helmDryRun
        ? // With --take-ownership in the DRY run only: the ownership check is ours (above, and helm's own
          // again in the real operation), and the orphaned CRDs are not stamped yet, which helm would refuse.
          this.asInstallFailure(entry, "helm's dry run", () =>
            how.verb === "install"
              ? this.helm.install(entry.release.name, chart, { ...options, dryRun: true, takeOwnership: true })
              : this.helm.upgrade(entry.release.name, chart, { ...options, dryRun: true, takeOwnership: true }),
          ).then(
            () => undefined,
            (error: unknown) => error,
          )
        : Promise.resolve(undefined),
    ]);
    const refused = refusals.find((r) => r !== undefined);
    if (refused) {
      throw new StepFailure(
        "InstallFailed",
        `the apiserver refuses ${describeObject(refused.object)} that ${entry.name} ${entry.chart.version} renders: ${apiRefusal(refused.error)}. Nothing was installed (no helm revision). Remove the cause (a conflicting object, an admission policy, a quota) and the next pass installs`,
        undefined,
        { cause: refused.error },
      );
    }
    if (helmDryRun !== undefined) throw helmDryRun;
    return [...verdict.orphanedCrds];
  }

  /** Runs a helm step; its failure becomes an InstallFailed with helm's one-line cause and what to do. */
  private async asInstallFailure<T>(entry: CapabilityEntry, step: string, action: () => Promise<T>): Promise<T> {
    try {
      return await action();
    } catch (error) {
      if (error instanceof StepFailure) throw error;
      const summary = helmErrorSummary(error);
      throw new StepFailure(
        "InstallFailed",
        `${step} of ${entry.name} ${entry.chart.version} as release ${entry.release.namespace}/${entry.release.name} failed: ${summary}. Correct the cause helm names; the next pass retries`,
        `InstallFailed:${entry.name}:${step}:${summary}`,
        { cause: error },
      );
    }
  }

  /** The release namespace, created as `helm --create-namespace` would, so that the dry run can place objects in it. */
  private async ensureNamespace(name: string): Promise<void> {
    if (await orUndefined(this.client.core.readNamespace({ name }))) return;
    await this.client.core
      .createNamespace({ body: { metadata: { name, labels: { name } } } })
      .catch((error: unknown) => {
        if (statusOf(error) !== 409) throw error;
      });
  }

  /**
   * Marks the capability's orphaned CRDs as the release's, the one thing helm checks before making an
   * existing object part of a release: our install adopts them without `--take-ownership`, which would
   * adopt every other rendered object too.
   */
  private async stampOrphanedCrds(entry: CapabilityEntry, crds: readonly ObjectHeader[]): Promise<void> {
    for (const crd of crds) {
      const live = await this.client.extensions.readCustomResourceDefinition({ name: crd.metadata.name });
      this.report(`[${entry.name}] CRD ${crd.metadata.name} is an orphan: adopting it into the release`);
      await this.client.extensions.patchCustomResourceDefinition({
        name: crd.metadata.name,
        // The marks are helm's, recorded under helm's field manager: under ours, a user's later
        // `helm install --take-ownership` of another release name conflicts with us on them.
        fieldManager: HELM_FIELD_MANAGER,
        body: [
          { op: "test", path: "/metadata/resourceVersion", value: live.metadata?.resourceVersion },
          ...setOps("labels", live.metadata?.labels, { [HELM_MANAGED_BY_LABEL]: HELM_MANAGED_BY }),
          ...setOps("annotations", live.metadata?.annotations, {
            [HELM_RELEASE_NAME_ANNOTATION]: entry.release.name,
            [HELM_RELEASE_NAMESPACE_ANNOTATION]: entry.release.namespace,
          }),
        ],
      });
    }
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
   * from live resources; uninstalls only at zero consumers and only an Owned release. CRDs stay, with
   * helm's ownership of the release name left as helm leaves it (docs/adr/0011-capability-install-ownership.md).
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
