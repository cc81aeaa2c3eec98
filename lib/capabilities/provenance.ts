import { OWNERSHIP_MARKS } from "../api/group.js";
import type { CapabilityEntry } from "../catalog/capability.js";
import type { CapabilityObservation } from "./observation.js";

export type ProvenanceState = "Absent" | "Adopted" | "Owned";

/** Detection's verdict with the evidence a user needs to trust it. */
export interface ProvenanceVerdict {
  readonly state: ProvenanceState;
  readonly evidence: string;
}

export function carriesOwnershipMarks(labels: Readonly<Record<string, string>>): boolean {
  return Object.entries(OWNERSHIP_MARKS).every(([key, value]) => labels[key] === value);
}

function crdSummary(observation: CapabilityObservation): string {
  const present = observation.crds.filter((c) => c.exists).length;
  return `${present}/${observation.crds.length} CRDs present`;
}

/**
 * SPEC 3.1, in order: a release of the expected name and namespace decides (Owned with both marks,
 * Adopted without); otherwise CRDs AND a controller recognised by identity mean Adopted; anything less
 * — orphaned CRDs, or an unrelated workload in the expected namespace — is Absent.
 */
export function detectProvenance(entry: CapabilityEntry, observation: CapabilityObservation): ProvenanceVerdict {
  const where = `${entry.release.namespace}/${entry.release.name}`;
  const release = observation.release;
  if (release) {
    const chart = release.chart?.version ? `, chart ${release.chart.version}` : "";
    if (carriesOwnershipMarks(release.labels)) {
      return {
        state: "Owned",
        evidence: `release ${where} (revision ${release.revision}${chart}, ${release.status}) carries the ownership marks`,
      };
    }
    return {
      state: "Adopted",
      evidence: `release ${where} (revision ${release.revision}${chart}) exists without the ownership marks: installed by someone else`,
    };
  }
  const allCrds = observation.crds.every((c) => c.exists);
  const controller = observation.controllers[0];
  if (allCrds && controller) {
    const more = observation.controllers.length > 1 ? ` (+${observation.controllers.length - 1} more)` : "";
    return {
      state: "Adopted",
      evidence: `no release ${where}; CRDs present and controller Deployment ${controller.namespace}/${controller.name} matched by ${controller.matchedBy}${more}`,
    };
  }
  if (allCrds) {
    return {
      state: "Absent",
      evidence: `no release ${where}; ${crdSummary(observation)} but no controller matches its identity: CRDs alone are orphans`,
    };
  }
  return { state: "Absent", evidence: `no release ${where}; ${crdSummary(observation)}; no controller` };
}

/** One workload a capability's controller runs as, as readiness judges it. */
interface ControllerWorkload {
  /** `Deployment namespace/name`. */
  readonly what: string;
  readonly exists: boolean;
  readonly ready: boolean;
  readonly replicas: number;
  readonly availableReplicas: number;
  /** What the release declares, for a release's workload. */
  readonly declaredReplicas?: number;
}

/** The workloads readiness looks at: the release's when there is one, else the controllers found by identity. */
function controllerWorkloads(observation: CapabilityObservation): ControllerWorkload[] {
  if (observation.release !== undefined) {
    return observation.releaseWorkloads.map((w) => ({ ...w, what: `${w.kind} ${w.namespace}/${w.name}` }));
  }
  return observation.controllers.map((c) => ({ ...c, what: `Deployment ${c.namespace}/${c.name}`, exists: true }));
}

/**
 * Why a workload serves nothing now, if it does not: missing, or without an available replica. A workload
 * its release declares with 0 replicas is off by the chart's choice, and serves nothing by design.
 */
function outage(workload: ControllerWorkload): string | undefined {
  if (!workload.exists) return `${workload.what} is missing`;
  if (workload.declaredReplicas === 0 || workload.availableReplicas > 0) return undefined;
  return `${workload.what} has no available replica${workload.replicas === 0 ? " (scaled to 0)" : ""}`;
}

/**
 * Readiness of a capability (SPEC 3.3): every CRD Established AND every Deployment/StatefulSet rolled
 * out with an available replica — a rollout is complete for a Deployment scaled to 0, whose controller
 * serves nothing. `unavailable` says, workload by workload, why the controller serves nothing now.
 */
export function capabilityReadiness(
  verdict: ProvenanceVerdict,
  observation: CapabilityObservation,
): { ready: boolean; waitingFor: string[]; unavailable: string[] } {
  const waitingFor: string[] = [];
  const unavailable: string[] = [];
  for (const crd of observation.crds) {
    if (!crd.established) waitingFor.push(`CRD ${crd.name} ${crd.exists ? "not Established" : "missing"}`);
  }
  if (verdict.state === "Absent") waitingFor.push("not installed");
  for (const workload of controllerWorkloads(observation)) {
    const down = outage(workload);
    if (down) unavailable.push(down);
    if (down || !workload.ready) waitingFor.push(down ?? `${workload.what} not Ready`);
  }
  return { ready: waitingFor.length === 0, waitingFor, unavailable };
}

/**
 * What of an Owned release's workloads re-applying the release brings back: a workload deleted, or scaled
 * below the replicas its manifest declares. Re-applying mends nothing else (pods that crash, a node
 * gone): those are only reported, so that no pass upgrades in a loop.
 */
function restorable(observation: CapabilityObservation): string[] {
  return observation.releaseWorkloads.flatMap((w) => {
    const what = `${w.kind} ${w.namespace}/${w.name}`;
    if (!w.exists) return [`${what} is missing`];
    const declared = w.declaredReplicas;
    if (declared === undefined || w.replicas >= declared) return [];
    return [
      `${what} scaled to ${w.replicas} of the ${declared} replica${declared === 1 ? "" : "s"} its release declares`,
    ];
  });
}

/** What the product does about a capability: installs it, upgrades it to the pin, restores what drifted of its release, or nothing. */
export type CapabilityAction = "install" | "upgrade" | "restore" | "none";

/** What to do about one capability the desired state needs, and why; derived from detection alone. */
export interface CapabilityDecision extends ProvenanceVerdict {
  readonly capability: string;
  readonly action: CapabilityAction;
  /** One line for previews and logs: the decision and its evidence. */
  readonly summary: string;
  readonly ready: boolean;
  readonly waitingFor: readonly string[];
  /** Why its controller serves nothing now, workload by workload (capabilityReadiness); empty while it serves. */
  readonly unavailable: readonly string[];
  readonly chartVersion?: string;
}

/**
 * The decision for a capability some resource needs: Absent → install our release; Owned → upgrade when
 * the pinned version differs or the last revision did not deploy, restore (re-apply the release as it
 * is) when a workload of it was deleted or scaled below what it declares, else keep; Adopted → record,
 * never touch, whatever became of its controller.
 */
export function decideCapability(entry: CapabilityEntry, observation: CapabilityObservation): CapabilityDecision {
  const verdict = detectProvenance(entry, observation);
  const readiness = capabilityReadiness(verdict, observation);
  const pinned = entry.chart.version;
  const installed = observation.release?.chart?.version;
  const drifted = verdict.state === "Owned" ? restorable(observation) : [];
  let action: CapabilityAction = "none";
  let summary: string;
  if (verdict.state === "Absent") {
    action = "install";
    summary = `install ${entry.name} ${pinned} as release ${entry.release.namespace}/${entry.release.name} (${verdict.evidence})`;
  } else if (verdict.state === "Owned" && (installed !== pinned || observation.release?.status !== "deployed")) {
    action = "upgrade";
    const why =
      installed !== pinned
        ? `from ${installed ?? "unknown"} to the pinned ${pinned}`
        : `to repair revision status ${observation.release?.status}`;
    summary = `upgrade ${entry.name} ${why} (${verdict.evidence})`;
  } else if (drifted.length > 0) {
    action = "restore";
    summary = `restore ${entry.name}: ${drifted.join(", ")}; re-applying release ${entry.release.namespace}/${entry.release.name} ${pinned} with the product's values (${verdict.evidence})`;
  } else if (verdict.state === "Owned") {
    summary = `keep ${entry.name} ${pinned} (${verdict.evidence})`;
  } else {
    summary = `adopt ${entry.name}, leave its lifecycle alone (${verdict.evidence})`;
  }
  return {
    capability: entry.name,
    ...verdict,
    action,
    summary,
    ready: action === "none" && readiness.ready,
    waitingFor: action === "none" ? readiness.waitingFor : [`${action} ${entry.name}`],
    unavailable: readiness.unavailable,
    ...(installed ? { chartVersion: installed } : {}),
  };
}

/** Release rule (SPEC 3.2): uninstall only when no consumer is left AND the release is Owned. */
export function decideRelease(
  entry: CapabilityEntry,
  observation: CapabilityObservation,
  consumers: readonly string[],
): { uninstall: boolean; reason: string } {
  if (consumers.length > 0) {
    return { uninstall: false, reason: `${entry.name} still needed by ${consumers.join(", ")}` };
  }
  const verdict = detectProvenance(entry, observation);
  if (verdict.state !== "Owned") {
    return {
      uninstall: false,
      reason: `${entry.name} is ${verdict.state.toLowerCase()}, never uninstalled by the product (${verdict.evidence})`,
    };
  }
  return { uninstall: true, reason: `${entry.name} is owned and no longer needed` };
}
