import { type Condition, OPERATORS_READY, READY, type ReportedFailure, reportedBefore } from "../api/conditions.js";
import type { EmittedObject } from "../api/resource-status.js";
import { LICENSED } from "../licence/enforce.js";
import { wasAdmitted } from "./admission.js";
import {
  adoptionEvents,
  type CapabilityCatalog,
  capabilityStatuses,
  type HeldRelease,
  heldReleaseCondition,
  neededBefore,
  neededNow,
  operatorsCondition,
  outageEvents,
  releases,
} from "./capabilities.js";
import { condition, resourceLabel, stalledCondition } from "./conditions.js";
import { DEPENDENCIES_READY, dependencyVerdict } from "./dependencies.js";
import { withFailure } from "./failed-plan.js";
import { collect, emittedKindOf, keptByRetain, ownOrphans, wouldBeRetained } from "./garbage.js";
import { type GateContext, heldBack, waitingForDependencies } from "./gates.js";
import { rotations } from "./generated-secret.js";
import type { Desired, EngineResource, KindModule, Verdict } from "./kind-module.js";
import { emittedOf, type KubeObject, keyOf, labelOf, objectKey } from "./objects.js";
import { marked, ownedBy } from "./ownership.js";
import { lostWithNamespace, RETAIN_LOST_WITH_NAMESPACE } from "./retained-with-namespace.js";
import type { DesiredStep, Plan, PlannedEvent, PlanStep } from "./steps.js";
import type { EngineView, ObservedView } from "./view.js";

/** Everything a plan is decided in beyond the resource and the view: the catalog and the operator's scope. */
export interface PlanContext extends CapabilityCatalog, GateContext {}

/** Reason of a phase condition when an object the resource would emit exists and is not its own. */
export const NAME_TAKEN = "NameTaken";

/**
 * The desired state with the ownership marks on every object it makes, and each generated Secret it made
 * before known as such, so that re-creating one is a rotation (lib/engine/generated-secret.ts). The kind
 * is asked once per pass: observeResource asked it already, from the view it returns.
 */
function markedDesired<S>(module: KindModule, resource: EngineResource, view: ObservedView): Desired<S> {
  const desired = (view.desired ?? module.desired(resource, view)) as Desired<S>;
  const steps = rotations(resource.status?.emitted ?? [], view, desired.steps);
  return { ...desired, steps: steps.map((step): DesiredStep => ({ ...step, object: marked(resource, step.object) })) };
}

/** Objects the resource would make that exist under that name without its mark: never applied over. */
function takenBy(resource: EngineResource, steps: readonly DesiredStep[], view: EngineView): KubeObject[] {
  return steps.flatMap((step) => {
    const live = view.objects.get(keyOf(step.object));
    return live && !ownedBy(resource, live) ? [step.object] : [];
  });
}

function nameTakenVerdict(module: KindModule, resource: EngineResource, taken: readonly KubeObject[]): Verdict {
  const names = taken.map((o) =>
    labelOf({
      kind: emittedKindOf(module, o)?.label ?? o.kind,
      name: o.metadata.name,
      namespace: o.metadata.namespace ?? "",
    }),
  );
  return {
    ok: false,
    reason: NAME_TAKEN,
    // Only its owner can free the name: this resource never takes it over.
    stalled: true,
    message: `${names.join(", ")} already ${taken.length > 1 ? "exist and are" : "exists and is"} not this ${resource.kind}'s: ${taken.length > 1 ? "they are" : "it is"} left alone. Rename the ${resource.kind}, or delete or rename that resource`,
  };
}

/** Why orphans are being collected, for Events and step descriptions. */
function changeReason(module: KindModule, resource: EngineResource): string {
  if (resource.metadata.deletionTimestamp) {
    return `(${resource.kind} ${resource.metadata.namespace}/${resource.metadata.name} deleted)`;
  }
  return module.changeReason?.(resource) ?? "(no longer in the spec)";
}

/** What stays recorded as emitted: what was made this pass, plus earlier objects not removed (retried next pass). */
function emittedAfter(
  resource: EngineResource,
  made: readonly KubeObject[],
  steps: readonly PlanStep[],
  view: EngineView,
  held: readonly HeldRelease[],
): EmittedObject[] {
  // An object deleted while the release of its operator is held stays recorded until it is gone: the next
  // pass must still see it, Terminating, to hold the release again (lib/engine/capabilities.ts, releases).
  const holding = (target: EmittedObject) => held.some((h) => h.objects.some((o) => keyOf(o) === objectKey(target)));
  const removed = new Set(
    steps.flatMap((s) =>
      s.kind === "retain" || (s.kind === "delete" && !holding(s.target)) ? [objectKey(s.target)] : [],
    ),
  );
  const leftover = (resource.status?.emitted ?? []).filter(
    (e) => !removed.has(objectKey(e)) && view.objects.has(objectKey(e)),
  );
  const seen = new Set<string>();
  return [...made.map(emittedOf), ...leftover].filter((e) => {
    const key = objectKey(e);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** The status fields recording what was reached: written when reached, kept as they were until then. */
function reachedFields(module: KindModule, resource: EngineResource, reached: boolean): Record<string, unknown> {
  const now = (module.reached?.(resource) ?? {}) as Record<string, unknown>;
  if (reached) return now;
  const before = (resource.status ?? {}) as Record<string, unknown>;
  return Object.fromEntries(Object.entries(now).map(([key, value]) => [key, before[key] ?? value]));
}

/** The product's own members (a composite's) still there: deleted, and awaited, before anything else. */
function deletionOfMembers(
  resource: EngineResource,
  orphans: ReturnType<typeof ownOrphans>,
): { steps: PlanStep[]; waiting: string | undefined } {
  const members = orphans.filter((o) => o.kind?.product);
  if (members.length === 0) return { steps: [], waiting: undefined };
  const steps = members
    .filter((m) => !m.current.metadata.deletionTimestamp)
    .map<PlanStep>((m) => ({
      kind: "delete",
      target: m.emitted,
      description: `delete ${labelOf(m.emitted)} (member of the ${resource.kind}; its own deletion policy applies)`,
    }));
  const waiting = members
    .map((m) => {
      const ready = (m.current.status as { conditions?: Condition[] } | undefined)?.conditions?.find(
        (c) => c.type === READY,
      );
      return `${labelOf(m.emitted)}${ready ? ` (${ready.message})` : ""}`;
    })
    .join(", ");
  return { steps, waiting: `waiting for its members to be deleted: ${waiting}` };
}

/** The objects kept under Retain by `steps`, by key: released to the user, no longer the resource's. */
function retainedBy(steps: readonly PlanStep[]): Set<string> {
  return new Set(steps.flatMap((s) => (s.kind === "retain" ? [objectKey(s.target)] : [])));
}

/** What the phase after the gates decided: steps, Events, the phase verdict and what was made. */
interface Pass<Status> {
  readonly steps: PlanStep[];
  readonly events: PlannedEvent[];
  readonly verdict: Verdict;
  readonly desired?: Desired<Status>;
  readonly made: KubeObject[];
  /** While members are being deleted: what the deletion waits for. */
  readonly waitingForMembers?: string;
  /** The releases held until the objects of their operators are gone (lib/engine/capabilities.ts). */
  readonly held?: readonly HeldRelease[];
  /** A deletion that keeps its finalizer this pass, to say something first (lib/engine/retained-with-namespace.ts). */
  readonly finalizerHeld?: true;
}

/** Phase 2 gates phase 3: nothing of the operator's kinds is applied before its CRDs and controller are Ready. */
function waitingForOperators<Status>(view: EngineView): Pass<Status> {
  const pending = view.capabilities.find((d) => !d.ready);
  return {
    steps: pending ? [{ kind: "ensure-capability", capability: pending.capability, description: pending.summary }] : [],
    events: [],
    verdict: { ok: false, reason: "WaitingForOperators", message: "waiting for capability operators" },
    made: [],
  };
}

/**
 * A resource being deleted: its members first (deleted, and awaited), then everything else it emitted —
 * and what its spec would emit, for a resource deleted before its first status write — through the
 * garbage collection's rules, then its capabilities' releases.
 */
function deletionPass<Status>(
  module: KindModule,
  resource: EngineResource,
  view: EngineView,
  desired: Desired<Status>,
  before: readonly string[],
  needed: readonly string[],
  catalog: Pick<CapabilityCatalog, "withPrerequisites">,
): Pass<Status> {
  const wouldEmit = desired.steps.map((s) => emittedOf(s.object));
  const candidates = [...(resource.status?.emitted ?? []), ...wouldEmit];
  const orphans = ownOrphans(module, resource, candidates, [], view.objects);
  const members = deletionOfMembers(resource, orphans);
  if (members.waiting) {
    return {
      steps: members.steps,
      events: [],
      verdict: { ok: false, reason: "Deleting", message: members.waiting },
      made: [],
      waitingForMembers: members.waiting,
    };
  }
  const collected = collect(orphans, changeReason(module, resource));
  const released = releases(resource, view, before, needed, catalog, retainedBy(collected.steps));
  const users = stillInUse(resource, view);
  // Its namespace being deleted too, what Retain keeps goes with it: said before the resource goes.
  const retains = wouldBeRetained(
    module,
    desired.steps.map((s) => s.object),
  );
  const lost = lostWithNamespace(
    resource,
    keptByRetain(orphans),
    retains.length > 0,
    view.namespace,
    reportedBefore(resource.status?.conditions, module.phase, RETAIN_LOST_WITH_NAMESPACE),
  );
  return {
    steps: [...collected.steps, ...released.steps],
    // What the collection would say of keeping and deleting is moot (and its namespace takes no Event) when
    // the namespace goes: the loss is said instead.
    events: [...(lost ? [] : collected.events), ...(users ? [users.event] : []), ...(lost?.event ? [lost.event] : [])],
    verdict: lost?.verdict ?? {
      ok: false,
      reason: "Deleting",
      message: users ? `deleting, ${users.said}` : "deleting",
    },
    made: [],
    held: released.held,
    ...(lost?.event ? { finalizerHeld: true as const } : {}),
  };
}

/**
 * A resource deleted while others still claim something of it (lib/engine/claims.ts: a consumer's key or
 * database): it goes all the same — a deletion is the user's to make —,
 * but says so, on its condition and once as a Warning Event naming each claimant and its field; each
 * claimant says on its own that what it depends on is being deleted (lib/engine/dependencies.ts).
 */
function stillInUse(
  resource: EngineResource,
  view: EngineView,
): { readonly said: string; readonly event: PlannedEvent } | undefined {
  const claims = view.claims ?? [];
  if (claims.length === 0) return undefined;
  const users = claims.map((c) => `${c.kind} ${c.namespace}/${c.name} (${c.field})`).join(", ");
  const said = `while still used by ${users}: what it made for them goes with it`;
  return {
    said,
    event: {
      type: "Warning",
      reason: "DeletedWhileInUse",
      message: `${resourceLabel(resource)} is being deleted ${said}, and they wait for it to come back`,
    },
  };
}

/**
 * The desired state applied — unless a name it needs is taken, or the resource is refused before its
 * operators are Ready — and what is no longer desired collected.
 */
function desiredPass<Status>(
  module: KindModule,
  resource: EngineResource,
  view: EngineView,
  desired: Desired<Status>,
  before: readonly string[],
  needed: readonly string[],
  operatorsReady: boolean,
  catalog: Pick<CapabilityCatalog, "withPrerequisites">,
): Pass<Status> {
  const wanted = desired.steps.map((s) => s.object);
  const taken = takenBy(resource, desired.steps, view);
  // A refused resource whose operators are not Ready applies nothing of its own: its kinds may not be served.
  const applied = taken.length === 0 && operatorsReady;
  const orphans = ownOrphans(module, resource, resource.status?.emitted ?? [], wanted, view.objects);
  const collected = collect(orphans, changeReason(module, resource));
  const verdict = taken.length > 0 ? nameTakenVerdict(module, resource, taken) : desired.verdict;
  // Said once, as every held state: not again while the resource already reports it.
  const nameTaken: PlannedEvent[] =
    taken.length > 0 && !reportedBefore(resource.status?.conditions, module.phase, NAME_TAKEN)
      ? [{ type: "Warning", reason: NAME_TAKEN, message: verdict.message }]
      : [];
  const released = releases(resource, view, before, needed, catalog, retainedBy(collected.steps));
  return {
    steps: [...(applied ? desired.steps : []), ...collected.steps, ...released.steps],
    events: [...(desired.events ?? []), ...nameTaken, ...collected.events],
    verdict,
    desired,
    made: applied ? wanted : [],
    held: released.held,
  };
}

/**
 * Why the resource is refused whatever its operators do — a name it needs taken, or its kind's verdict a
 * cause waiting cannot clear (Stalled) —, or undefined. Judged before any capability is ensured, so that
 * nothing is installed for a resource that would then be refused: the licence, scope and grant gates
 * come earlier still (heldBack).
 */
function refusalOf(
  module: KindModule,
  resource: EngineResource,
  view: EngineView,
  desired: Desired<unknown>,
): Verdict | undefined {
  const taken = takenBy(resource, desired.steps, view);
  if (taken.length > 0) return nameTakenVerdict(module, resource, taken);
  return !desired.verdict.ok && desired.verdict.stalled ? desired.verdict : undefined;
}

/** OperatorsReady of a refused resource whose operators are not all Ready: nothing is installed for it. */
function operatorsHeld(resource: EngineResource, needed: readonly string[], refusal: Verdict): Condition {
  return condition(
    resource,
    OPERATORS_READY,
    false,
    refusal.reason,
    `nothing is installed for it (${needed.join(", ")}) while it is refused: ${refusal.message}`,
  );
}

/**
 * The phase after the gates: a resource being deleted or desired once its operators are Ready; a refused
 * one at once, so that its refusal is said and nothing is installed for it; otherwise the operators first.
 */
function passOf<Status>(
  module: KindModule,
  resource: EngineResource,
  view: EngineView,
  state: {
    readonly before: readonly string[];
    readonly needed: readonly string[];
    readonly operatorsOk: boolean;
    readonly refused: boolean;
    readonly catalog: Pick<CapabilityCatalog, "withPrerequisites">;
    readonly desired: Desired<Status>;
  },
): Pass<Status> {
  const { before, needed, operatorsOk, refused, catalog, desired } = state;
  if (resource.metadata.deletionTimestamp !== undefined) {
    return operatorsOk
      ? deletionPass(module, resource, view, desired, before, needed, catalog)
      : waitingForOperators(view);
  }
  if (operatorsOk || refused) {
    return desiredPass<Status>(module, resource, view, desired, before, needed, operatorsOk, catalog);
  }
  return waitingForOperators(view);
}

/** OperatorsReady as observed, unless a release is held: then what it waits for. */
function operatorsAfter(resource: EngineResource, observed: Condition, held: readonly HeldRelease[]): Condition {
  return held.length > 0 ? heldReleaseCondition(resource, held) : observed;
}

/**
 * The needs recorded: until the operators are Ready, whatever may have been installed for it already; a
 * capability whose release is held stays recorded, so that the next pass releases it.
 */
function needsRecorded(
  before: readonly string[],
  needed: readonly string[],
  operatorsOk: boolean,
  held: readonly HeldRelease[],
): string[] {
  if (!operatorsOk) return [...new Set([...before, ...needed])];
  return [...needed, ...before.filter((c) => held.some((h) => h.capability === c) && !needed.includes(c))];
}

/**
 * Ready, OperatorsReady, the kind's phase condition and Licensed, in that order, for a pass past the gates;
 * then Stalled when the verdict's cause is one that waiting cannot clear. A refused resource is reported
 * by its refusal, whatever its operators.
 */
function passConditions(
  module: KindModule,
  resource: EngineResource,
  view: EngineView,
  operators: Condition,
  verdict: Verdict,
  readyMessage: string | undefined,
  refused: boolean,
): Condition[] {
  const phase = condition(resource, module.phase, verdict.ok, verdict.reason, verdict.message);
  const ready =
    operators.status !== "True" && !refused
      ? condition(resource, READY, false, operators.reason, operators.message)
      : !verdict.ok
        ? condition(resource, READY, false, verdict.reason, verdict.message)
        : condition(resource, READY, true, "Ready", readyMessage ?? verdict.message);
  const { entitlements } = view.licence;
  const edition = entitlements.edition === "Licensed" ? `licence ${entitlements.licenseId}` : "the Community edition";
  const licensed = condition(resource, LICENSED, true, "Admitted", `admitted under ${edition}`);
  const stalled = (operators.status === "True" || refused) && verdict.stalled;
  return [
    ready,
    operators,
    phase,
    licensed,
    ...(stalled ? [stalledCondition(resource, verdict.reason, verdict.message)] : []),
  ];
}

/**
 * The one decision function for every kind: from the resource and the observed cluster to the ordered
 * steps to take, the conditions and Events to report and the status to write. Pure: preview, synth-time
 * validation and the operator call it with the same inputs and get the same decisions. The kind decides
 * only what it wants (`desired`); gates, capabilities, ownership, garbage collection, deletion order,
 * conditions and status are decided here, the same way for every kind.
 */
export function planResource<Status = Record<string, unknown>>(
  module: KindModule,
  resource: EngineResource,
  view: ObservedView,
  context: PlanContext,
): Plan<Status> {
  const deleting = resource.metadata.deletionTimestamp !== undefined;
  // Judged once: it holds the pass back, or is said on its own condition once every dependency is Ready.
  const dependencies = deleting ? undefined : dependencyVerdict(module, resource, view);
  const held = deleting
    ? undefined
    : (heldBack(module, resource, view, context) ?? waitingForDependencies(module, resource, dependencies));
  if (held) return held as Plan<Status>;
  const needed = neededNow(module, resource, context);
  const before = neededBefore(module, resource, context);
  const desired = markedDesired<Status>(module, resource, view);
  const refusal = deleting ? undefined : refusalOf(module, resource, view, desired);
  const events: PlannedEvent[] = [
    ...adoptionEvents(resource, view.capabilities),
    ...outageEvents(resource, view.capabilities),
  ];
  const observed = operatorsCondition(resource, needed, view.capabilities);
  const operatorsOk = observed.status === "True";
  const refused = refusal !== undefined;
  const pass = passOf<Status>(module, resource, view, {
    before,
    needed,
    operatorsOk,
    refused,
    catalog: context,
    desired,
  });
  const { steps, verdict, made, waitingForMembers, finalizerHeld } = pass;
  // The kind's own status and Ready message: only from a pass that applied (or judged) its desired state.
  const judged = pass.desired;
  const heldReleases = pass.held ?? [];
  // A held release is said on OperatorsReady, and keeps the resource's finalizer and its needs recorded.
  const operators =
    refusal && !operatorsOk
      ? operatorsHeld(resource, needed, refusal)
      : operatorsAfter(resource, observed, heldReleases);
  events.push(...pass.events);
  if (deleting && !waitingForMembers && heldReleases.length === 0 && !finalizerHeld) {
    steps.push({ kind: "remove-finalizer", description: "remove the finalizer: everything owned is released" });
  }

  const conditions = passConditions(
    module,
    resource,
    view,
    operators,
    verdict,
    judged?.readyMessage,
    refusal !== undefined,
  );
  // Every dependency is Ready (else the pass was held above): said on its own condition, after Ready.
  if (dependencies)
    conditions.splice(1, 0, condition(resource, DEPENDENCIES_READY, true, dependencies.reason, dependencies.message));
  const [ready] = conditions as [Condition, ...Condition[]];
  const status = {
    ...(deleting ? resource.status : {}),
    observedGeneration: resource.metadata.generation ?? 0,
    conditions,
    ...(deleting && !wasAdmitted(resource) ? {} : { admitted: true }),
    needs: needsRecorded(before, needed, operatorsOk, heldReleases),
    ...reachedFields(module, resource, operatorsOk && !deleting),
    ...(judged?.status ?? {}),
    capabilities: capabilityStatuses(view.capabilities, context.releaseOf),
    emitted: emittedAfter(resource, made, steps, view, heldReleases),
  } as Status;
  const again = deleting
    ? { requeue: waitingForMembers !== undefined || heldReleases.length > 0 || finalizerHeld === true }
    : lookAgain(ready, verdict);
  // Past the gates and not refused: its operators are ensured (a deletion's too, to remove their objects).
  return { steps, conditions, events, status, ...again, ...(refused ? {} : { reachesOperators: true as const }) };
}

/**
 * Whether a pass that is not deleting looks again: while not Ready (a name taken waits for someone), after
 * the verdict's own delay when it asks for one (a slow rollout).
 */
function lookAgain(ready: Condition, verdict: Verdict): Pick<Plan, "requeue" | "requeueAfterMs"> {
  const requeue = ready.status !== "True" && verdict.reason !== NAME_TAKEN;
  const after = requeue && !verdict.ok ? verdict.requeueAfterMs : undefined;
  return { requeue, ...(after ? { requeueAfterMs: after } : {}) };
}

/**
 * The phase condition a failed step is reported on: OperatorsReady for a capability's install or
 * release, the kind's phase for what is applied, created, deleted or released of its objects; the
 * finalizer's removal belongs to no phase (Ready alone).
 */
export function failurePhase(module: Pick<KindModule, "phase">, step: PlanStep): string {
  switch (step.kind) {
    case "ensure-capability":
    case "release-capability":
      return OPERATORS_READY;
    case "remove-finalizer":
      return READY;
    default:
      return module.phase;
  }
}

/**
 * What a pass that stopped at `failed` leaves recorded as emitted: the plan's record, and every object the
 * pass was to delete or release from `failed` on, which it did not. Without them the next pass would no
 * longer know these objects were its own, and they would stay behind (a claim's DatabaseRole: its role
 * never dropped).
 */
function emittedAfterFailure(plan: Plan, failed: PlanStep): EmittedObject[] | undefined {
  const { emitted } = plan.status as { readonly emitted?: readonly EmittedObject[] };
  if (!emitted) return undefined;
  const recorded = new Set(emitted.map(objectKey));
  const index = plan.steps.indexOf(failed);
  const undone = plan.steps
    .slice(Math.max(index, 0))
    .flatMap((s) => (s.kind === "delete" || s.kind === "retain" ? [s.target] : []))
    .filter((target) => !recorded.has(objectKey(target)));
  return [...emitted, ...undone];
}

/**
 * The plan of a pass whose `step` failed, as it is reported (lib/engine/failed-plan.ts), what it did not
 * get to remove still recorded as emitted.
 */
export function failedPlan<P extends Plan<{ readonly conditions: readonly Condition[] }>>(
  module: Pick<KindModule, "phase">,
  resource: EngineResource,
  plan: P,
  step: PlanStep,
  failure: ReportedFailure & { readonly fingerprint: string },
): P {
  const reported = withFailure(resource, plan, failurePhase(module, step), failure);
  const emitted = emittedAfterFailure(plan as unknown as Plan, step);
  return emitted ? { ...reported, status: { ...reported.status, emitted } } : reported;
}
