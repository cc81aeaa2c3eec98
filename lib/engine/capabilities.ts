import { type Condition, OPERATORS_READY } from "../api/conditions.js";
import type { CapabilityStatus } from "../api/resource-status.js";
import type { CapabilityDecision } from "../capabilities/provenance.js";
import { servedGroups } from "../catalog/catalog.js";
import { condition, resourceLabel } from "./conditions.js";
import type { EngineResource, KindModule } from "./kind-module.js";
import { type KubeObject, keyOf, labelOf } from "./objects.js";
import { ownedBy } from "./ownership.js";
import type { PlannedEvent, PlanStep } from "./steps.js";
import type { EngineView } from "./view.js";

/** What capability rules need from the catalog. */
export interface CapabilityCatalog {
  /** `name` and its prerequisites, prerequisites first. */
  readonly withPrerequisites: (name: string) => string[];
  /** The fixed release of a capability. */
  readonly releaseOf: (name: string) => { name: string; namespace: string };
}

/** Every capability in `roots` with its prerequisites, prerequisites first, each once. */
export function expandNeeds(roots: readonly string[], catalog: Pick<CapabilityCatalog, "withPrerequisites">): string[] {
  const ordered: string[] = [];
  for (const root of roots)
    for (const name of catalog.withPrerequisites(root)) if (!ordered.includes(name)) ordered.push(name);
  return ordered;
}

/** The capabilities a resource needs as specified now, prerequisites included; none while it is being deleted. */
export function neededNow(
  module: KindModule,
  resource: EngineResource,
  catalog: Pick<CapabilityCatalog, "withPrerequisites">,
): string[] {
  if (resource.metadata.deletionTimestamp) return [];
  return expandNeeds(module.needs(resource), catalog);
}

/**
 * The capabilities a resource needed when it was last reconciled: `status.needs`; for a resource stored
 * before that field, what its kind derives from its recorded status; for one deleted before its first
 * status write, what its spec needs (its operators may have been installed already).
 */
export function neededBefore(
  module: KindModule,
  resource: EngineResource,
  catalog: Pick<CapabilityCatalog, "withPrerequisites">,
): string[] {
  const recorded = resource.status?.needs ?? module.recordedNeeds?.(resource);
  if (recorded) return expandNeeds(recorded, catalog);
  return resource.metadata.deletionTimestamp ? expandNeeds(module.needs(resource), catalog) : [];
}

/** Whether a pass may release a capability: something needed before is no longer needed. */
export function mayRelease(before: readonly string[], now: readonly string[]): boolean {
  return before.some((name) => !now.includes(name));
}

/**
 * Reason of OperatorsReady (and Ready) while a capability the resource relied on serves nothing: its
 * controller has no available replica, a workload of it is missing, or its release is gone. It stays the
 * reason until the capability is Ready again, through the restore or reinstall of an Owned one.
 */
export const OPERATOR_UNAVAILABLE = "OperatorUnavailable";

/** What an Adopted capability's outage adds: the product repairs nothing of it. */
const ADOPTED_OUTAGE = "adopted: the product leaves it to whoever installed it";

/**
 * Whether `decision` means a capability the resource relied on has stopped serving: OperatorsReady was
 * True with the capability recorded (or the loss is reported already), and now its controller serves
 * nothing, its release lost a workload or replicas (restored), or the capability is not there at all.
 * A capability still being installed for the first time, or upgraded to a new pin, is no loss.
 */
function lost(resource: EngineResource, decision: CapabilityDecision): boolean {
  const down = decision.unavailable.length > 0 || decision.action === "restore" || decision.state === "Absent";
  if (decision.ready || !down) return false;
  const stored = resource.status?.conditions?.find((c) => c.type === OPERATORS_READY);
  if (stored?.status === "False" && stored.reason === OPERATOR_UNAVAILABLE) return true;
  const relied = resource.status?.capabilities?.some((c) => c.name === decision.capability) ?? false;
  return stored?.status === "True" && relied;
}

/**
 * One capability not Ready, in a line: why its controller serves nothing, if it does not, then what is
 * being done (the install, upgrade or restore) or what else is awaited.
 */
function pendingLine(decision: CapabilityDecision): string {
  const { unavailable } = decision;
  const rest =
    decision.action !== "none"
      ? [decision.summary]
      : decision.waitingFor.filter((w) => !unavailable.includes(w)).map((w) => `waiting for ${w}`);
  const left = decision.state === "Adopted" && unavailable.length > 0 ? [ADOPTED_OUTAGE] : [];
  const said = unavailable.filter((u) => !rest.some((r) => r.includes(u)));
  return `${decision.capability}: ${[...said, ...rest, ...left].join("; ")}`;
}

/**
 * OperatorsReady: True when nothing is needed or every needed capability is Ready; else what is awaited,
 * OperatorUnavailable first when a capability relied on stopped serving.
 */
export function operatorsCondition(
  resource: EngineResource,
  needed: readonly string[],
  decisions: readonly CapabilityDecision[],
): Condition {
  if (needed.length === 0) {
    return condition(resource, OPERATORS_READY, true, "NotRequired", "no capability operator is needed in this mode");
  }
  const pending = decisions.filter((d) => !d.ready);
  if (pending.length === 0) {
    return condition(
      resource,
      OPERATORS_READY,
      true,
      "Ready",
      decisions.map((d) => `${d.capability} ${d.state.toLowerCase()}, Ready`).join("; "),
    );
  }
  const reason = pending.some((d) => lost(resource, d))
    ? OPERATOR_UNAVAILABLE
    : pending.some((d) => d.action !== "none")
      ? "Installing"
      : "WaitingForOperators";
  return condition(resource, OPERATORS_READY, false, reason, pending.map(pendingLine).join("; "));
}

/** Adoptions seen for the first time: recorded once, the status remembers them after. */
export function adoptionEvents(resource: EngineResource, decisions: readonly CapabilityDecision[]): PlannedEvent[] {
  return decisions
    .filter((d) => d.state === "Adopted")
    .filter((d) => !resource.status?.capabilities?.some((c) => c.name === d.capability && c.provenance === "adopted"))
    .map((d) => ({ type: "Normal", reason: "CapabilityAdopted", message: `${d.capability}: ${d.summary}` }));
}

/**
 * A Warning for each capability the resource relied on that stopped serving, when its OperatorsReady
 * was True: once, for OperatorsReady is False from the pass that records it on.
 */
export function outageEvents(resource: EngineResource, decisions: readonly CapabilityDecision[]): PlannedEvent[] {
  const stored = resource.status?.conditions?.find((c) => c.type === OPERATORS_READY);
  if (stored?.status !== "True") return [];
  return decisions
    .filter((d) => lost(resource, d))
    .map((d) => ({
      type: "Warning",
      reason: OPERATOR_UNAVAILABLE,
      message: pendingLine(d),
      // One Event per capability and outage, whatever the message says from one pass to the next.
      cause: `${OPERATOR_UNAVAILABLE}:${d.capability}`,
    }));
}

/** A release that waits: the capability, and its objects this resource emitted that are still there. */
export interface HeldRelease {
  readonly capability: string;
  readonly objects: readonly KubeObject[];
}

/** The API group of an apiVersion: "" for the core group's "v1". */
function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf("/");
  return slash < 0 ? "" : apiVersion.slice(0, slash);
}

/** The resource's own objects still there that are served under one of `groups`, but those it gives up (`kept`). */
function stillThere(
  resource: EngineResource,
  view: Pick<EngineView, "objects">,
  groups: readonly string[],
  kept: ReadonlySet<string>,
): KubeObject[] {
  return [...view.objects.values()].filter(
    (o) => groups.includes(groupOf(o.apiVersion)) && ownedBy(resource, o) && !kept.has(keyOf(o)),
  );
}

/** `Kind namespace/name`, and whether it is being deleted already. */
function heldLabel(object: KubeObject): string {
  const label = labelOf({ kind: object.kind, name: object.metadata.name, namespace: object.metadata.namespace ?? "" });
  return object.metadata.deletionTimestamp ? `${label} (deleting)` : label;
}

/**
 * A release step for every capability needed before and no longer, dependants before their
 * prerequisites; each names the consumers still left — over every registered kind — so that it is
 * uninstalled only when none is left, and only when owned (the installer decides that).
 *
 * A capability is released only once none of the objects of its API groups this resource emitted is still
 * there: an operator may put finalizers on its objects that only it removes (ESO's
 * `externalsecrets.external-secrets.io/externalsecret-cleanup` on ExternalSecrets, by reports of its users).
 * Uninstalled first, it would leave them Terminating for ever, and their namespace with them. So the release is held —
 * with its prerequisites, which its controller may need to finish — until a later pass sees them gone.
 * An object kept under Retain (`kept`, by key) is the user's from this pass on: it holds nothing.
 */
export function releases(
  resource: EngineResource,
  view: Pick<EngineView, "consumers" | "objects">,
  before: readonly string[],
  now: readonly string[],
  catalog: Pick<CapabilityCatalog, "withPrerequisites">,
  kept: ReadonlySet<string>,
): { readonly steps: PlanStep[]; readonly held: HeldRelease[] } {
  const self = resourceLabel(resource);
  const steps: PlanStep[] = [];
  const held: HeldRelease[] = [];
  for (const capability of [...before].reverse()) {
    if (now.includes(capability)) continue;
    const objects = stillThere(resource, view, servedGroups(capability), kept);
    const dependant = held.some((h) => catalog.withPrerequisites(h.capability).includes(capability));
    if (objects.length > 0 || dependant) {
      held.push({ capability, objects });
      continue;
    }
    const consumers = view.consumers.filter((c) => c.key !== self && c.needs.includes(capability)).map((c) => c.key);
    steps.push({
      kind: "release-capability",
      capability,
      consumers,
      description:
        consumers.length > 0
          ? `keep ${capability}: still needed by ${consumers.join(", ")}`
          : `release ${capability}: no consumer left (uninstalled only if owned)`,
    });
  }
  return { steps, held };
}

/** OperatorsReady while a release is held: what it waits for, by name. */
export function heldReleaseCondition(resource: EngineResource, held: readonly HeldRelease[]): Condition {
  const message = held
    .map((h) =>
      h.objects.length > 0
        ? `${h.capability} is released once its operator has let go of ${h.objects.map(heldLabel).join(", ")} (it removes their finalizers)`
        : `${h.capability} is released after the capabilities that need it`,
    )
    .join("; ");
  return condition(resource, OPERATORS_READY, false, "WaitingForRelease", message);
}

/** The capabilities relied on, as the status records them. */
export function capabilityStatuses(
  decisions: readonly CapabilityDecision[],
  releaseOf: CapabilityCatalog["releaseOf"],
): CapabilityStatus[] {
  return decisions
    .filter((d) => d.state !== "Absent")
    .map((d) => ({
      name: d.capability,
      provenance: d.state === "Owned" ? "owned" : "adopted",
      ...(d.chartVersion ? { chartVersion: d.chartVersion } : {}),
      ...(d.state === "Owned" || d.evidence.startsWith("release") ? { release: releaseOf(d.capability) } : {}),
      evidence: d.evidence,
    }));
}
