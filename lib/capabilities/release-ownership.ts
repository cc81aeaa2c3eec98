import type { CapabilityEntry } from "../catalog/capability.js";
import {
  HELM_MANAGED_BY,
  HELM_MANAGED_BY_LABEL,
  HELM_RELEASE_NAME_ANNOTATION,
  HELM_RELEASE_NAMESPACE_ANNOTATION,
} from "../cluster/helm-release-record.js";
import type { ObjectHeader } from "../cluster/kube-client.js";

/** One object the chart renders, as it exists in the cluster (only rendered objects that exist are checked). */
export interface ExistingObject {
  readonly object: ObjectHeader;
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
  /** The helm release its ownership annotations name, when they name one, and whether it still exists. */
  readonly holder?: { readonly release: string; readonly namespace: string; readonly live: boolean };
}

/** What an install or upgrade of the capability would do to existing objects, decided before any of it. */
export interface OwnershipVerdict {
  /** Objects that are not the release's own: the install must not take them. */
  readonly conflicts: readonly { readonly object: ObjectHeader; readonly why: string }[];
  /** The capability's own CRDs, orphaned: stamped with the release's ownership so helm accepts them. */
  readonly orphanedCrds: readonly ObjectHeader[];
}

/** `Kind namespace/name`, or `Kind name` for a cluster-scoped object. */
export function describeObject(object: ObjectHeader): string {
  return `${object.kind} ${object.metadata.namespace ? `${object.metadata.namespace}/` : ""}${object.metadata.name}`;
}

/** Whether helm would accept the object as part of `release` without `--take-ownership` (its checkOwnership). */
export function ownedByRelease(
  existing: Pick<ExistingObject, "labels" | "annotations">,
  release: CapabilityEntry["release"],
): boolean {
  return (
    existing.labels[HELM_MANAGED_BY_LABEL] === HELM_MANAGED_BY &&
    existing.annotations[HELM_RELEASE_NAME_ANNOTATION] === release.name &&
    existing.annotations[HELM_RELEASE_NAMESPACE_ANNOTATION] === release.namespace
  );
}

/**
 * Which existing objects an install of the capability may make part of its release: those already its
 * own (helm's ownership names this release), and the capability's own CRDs when no live release holds
 * them (orphans an earlier install left: kept on uninstall by policy, and needed by any CR that
 * survived). Anything else the chart renders and the cluster already has is someone else's.
 */
export function decideReleaseOwnership(entry: CapabilityEntry, existing: readonly ExistingObject[]): OwnershipVerdict {
  const conflicts: { object: ObjectHeader; why: string }[] = [];
  const orphanedCrds: ObjectHeader[] = [];
  for (const current of existing) {
    if (ownedByRelease(current, entry.release)) continue;
    const holder = current.holder;
    const heldBy = holder ? `helm release ${holder.namespace}/${holder.release}` : undefined;
    const isOwnCrd =
      current.object.kind === "CustomResourceDefinition" && entry.crds.names.includes(current.object.metadata.name);
    if (isOwnCrd && !holder?.live) {
      orphanedCrds.push(current.object);
      continue;
    }
    conflicts.push({
      object: current.object,
      why: heldBy ? `belongs to ${heldBy}` : "exists and was not installed by helm",
    });
  }
  return { conflicts, orphanedCrds };
}

/** The refusal's message: every object, and what the user can do about each. */
export function ownershipConflictMessage(entry: CapabilityEntry, verdict: OwnershipVerdict): string {
  const objects = verdict.conflicts.map((c) => `${describeObject(c.object)} (${c.why})`).join(", ");
  return (
    `installing ${entry.name} ${entry.chart.version} as release ${entry.release.namespace}/${entry.release.name} ` +
    `would take over ${verdict.conflicts.length === 1 ? "an object" : `${verdict.conflicts.length} objects`} ` +
    `that ${verdict.conflicts.length === 1 ? "is" : "are"} not its own: ${objects}. Nothing was installed. ` +
    `Delete or rename ${verdict.conflicts.length === 1 ? "it" : "them"}, or install ${entry.name} yourself ` +
    "(the product then adopts it and never changes it)"
  );
}
