import type { CapabilityObservation } from "../../lib/capabilities/observation.js";
import type { CapabilityDecision } from "../../lib/capabilities/provenance.js";

/** One capability observed and decided (CapabilityInstaller.observe). */
export type Detection = (capability: string) => Promise<{
  readonly observation: CapabilityObservation;
  readonly decision: CapabilityDecision;
}>;

/**
 * The operator's capability decisions, kept between watch events of what they are decided from, instead
 * of detected again by every pass (three or four requests each: the release records and the workloads of
 * the release namespace, discovery). A decision is decided from helm's records of the release, the
 * Deployments of its namespace and the cluster's CRDs; the operator watches those (metadata only), and
 * any event of theirs forgets every decision (`changed`). While one of those watches is not complete —
 * not listed yet, or failed and restarting — nothing is kept: every pass detects, as without the cache.
 *
 * Kept only when everything the observation read is watched: a release whose workloads are Deployments of
 * a watched namespace, or no release and some CRD missing. A decision found by the controller search
 * (CRDs present without a release: every Deployment of the cluster is looked at) is never kept.
 *
 * A detection under way when something changes is not kept, though the passes that asked for it get its
 * answer: a pass that started before a change may decide from before it, and the change's own watch event
 * brings the next one. The passes of the operator's own installs and releases forget everything too
 * (NaviqueOperator.reconcile), so that the pass after an install does not wait for helm's record's event.
 */
export class CapabilityDecisions {
  private readonly kept = new Map<string, Promise<CapabilityDecision>>();
  /** Counts the changes: a detection started before the last one is not kept. */
  private generation = 0;
  /** Whether each watch a decision depends on is complete, by name. */
  private readonly sources = new Map<string, boolean>();

  /**
   * @param detect observes and decides one capability
   * @param watchedNamespaces the namespaces whose Deployments are watched (the catalog's release namespaces)
   */
  constructor(
    private readonly detect: Detection,
    private readonly watchedNamespaces: ReadonlySet<string>,
  ) {}

  /** Declares a watch the decisions depend on, not complete yet; returns how to say whether it is. */
  source(name: string): (synced: boolean) => void {
    this.sources.set(name, false);
    return (synced) => {
      if (this.sources.get(name) === synced) return;
      this.sources.set(name, synced);
      this.changed();
    };
  }

  /** Something a decision is decided from changed (a watch event, an install or release): all are forgotten. */
  changed(): void {
    this.generation += 1;
    this.kept.clear();
  }

  /** How many decisions are kept now. */
  get size(): number {
    return this.kept.size;
  }

  /** One capability's decision: the kept one, else detected (and kept when it may be). */
  decide(capability: string): Promise<CapabilityDecision> {
    if (![...this.sources.values()].every(Boolean) || this.sources.size === 0) {
      return this.detect(capability).then((d) => d.decision);
    }
    const known = this.kept.get(capability);
    if (known !== undefined) return known;
    const generation = this.generation;
    const pending = this.detect(capability).then(({ observation, decision }) => {
      const unchanged = generation === this.generation;
      if ((!unchanged || !this.keepable(observation)) && this.kept.get(capability) === pending) {
        this.kept.delete(capability);
      }
      return decision;
    });
    // Those asking meanwhile share this detection; a failed one is forgotten, and its failure is theirs.
    this.kept.set(capability, pending);
    pending.catch(() => {
      if (this.kept.get(capability) === pending) this.kept.delete(capability);
    });
    return pending;
  }

  /** Whether everything the observation read is watched, so that any change to it forgets the decision. */
  private keepable(observation: CapabilityObservation): boolean {
    if (observation.release) {
      return observation.releaseWorkloads.every(
        (workload) => workload.kind === "Deployment" && this.watchedNamespaces.has(workload.namespace),
      );
    }
    // No release: detection looked for a controller among every Deployment when every CRD exists.
    return !observation.crds.every((crd) => crd.exists) && observation.controllers.length === 0;
  }
}
