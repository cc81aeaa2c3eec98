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

/** Readiness of a capability (SPEC 3.3): every CRD Established AND every Deployment/StatefulSet Ready. */
export function capabilityReadiness(
  verdict: ProvenanceVerdict,
  observation: CapabilityObservation,
): { ready: boolean; waitingFor: string[] } {
  const waitingFor: string[] = [];
  for (const crd of observation.crds) {
    if (!crd.established) waitingFor.push(`CRD ${crd.name} ${crd.exists ? "not Established" : "missing"}`);
  }
  if (verdict.state === "Absent") waitingFor.push("not installed");
  const workloads =
    observation.release !== undefined
      ? observation.releaseWorkloads.map((w) => ({ what: `${w.kind} ${w.namespace}/${w.name}`, ready: w.ready }))
      : observation.controllers.map((c) => ({ what: `Deployment ${c.namespace}/${c.name}`, ready: c.ready }));
  for (const workload of workloads) if (!workload.ready) waitingFor.push(`${workload.what} not Ready`);
  return { ready: waitingFor.length === 0, waitingFor };
}

export type CapabilityAction = "install" | "upgrade" | "none";

/** What to do about one capability the desired state needs, and why; derived from detection alone. */
export interface CapabilityDecision extends ProvenanceVerdict {
  readonly capability: string;
  readonly action: CapabilityAction;
  /** One line for previews and logs: the decision and its evidence. */
  readonly summary: string;
  readonly ready: boolean;
  readonly waitingFor: readonly string[];
  readonly chartVersion?: string;
}

/**
 * The decision for a capability some resource needs: Absent → install our release; Owned → upgrade when
 * the pinned version differs or the last revision did not deploy, else keep; Adopted → record, never touch.
 */
export function decideCapability(entry: CapabilityEntry, observation: CapabilityObservation): CapabilityDecision {
  const verdict = detectProvenance(entry, observation);
  const readiness = capabilityReadiness(verdict, observation);
  const pinned = entry.chart.version;
  const installed = observation.release?.chart?.version;
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
