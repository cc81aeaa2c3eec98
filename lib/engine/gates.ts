import { type Condition, READY, reportedBefore } from "../api/conditions.js";
import { API_GROUP } from "../api/group.js";
import { LICENSED, type LicenceRefusal } from "../licence/enforce.js";
import { licenceRefusal } from "./admission.js";
import { condition, stalledCondition } from "./conditions.js";
import {
  allReferences,
  DEPENDENCIES_READY,
  DEPENDENCY_MISMATCH,
  dependenciesOf,
  MANUAL_WIRING_REQUIRED,
} from "./dependencies.js";
import type { EngineResource, KindModule, Verdict } from "./kind-module.js";
import { labelOf, objectKey } from "./objects.js";
import { ownedBy } from "./ownership.js";
import {
  REFERENCE_NOT_PERMITTED,
  type Reference,
  type Referrer,
  referenceNotPermittedMessage,
  ungrantedReferences,
} from "./reference-grants.js";
import type { Plan, PlannedEvent, PlanStep } from "./steps.js";
import type { EngineView } from "./view.js";

/** The context gates are judged in. */
export interface GateContext {
  /** The namespaces an operator started with --watch-namespaces serves; undefined: every namespace. */
  readonly watchNamespaces?: readonly string[];
}

/** A resource of a kind as the `from` of a ReferenceGrant names it. */
export function referrerOf(resource: EngineResource): Referrer {
  return { group: API_GROUP, kind: resource.kind, namespace: resource.metadata.namespace };
}

/**
 * A held-back resource's status: only its conditions change; everything it recorded (what it emitted, the
 * mode it reached, the capabilities it relied on) stays, so that a change made meanwhile is still
 * garbage-collected from the right state once it is served.
 */
function heldStatus(
  resource: EngineResource,
  conditions: readonly Condition[],
  admitted: boolean,
): Record<string, unknown> {
  return {
    ...resource.status,
    observedGeneration: resource.metadata.generation ?? 0,
    conditions,
    ...(admitted ? { admitted: true } : {}),
    capabilities: resource.status?.capabilities ?? [],
    emitted: resource.status?.emitted ?? [],
  };
}

/** The Warning Event of a held-back resource, once: not again while the resource already reports it. */
function onceEvent(resource: EngineResource, type: string, reason: string, message: string): PlannedEvent[] {
  return reportedBefore(resource.status?.conditions, type, reason) ? [] : [{ type: "Warning", reason, message }];
}

/**
 * A resource the licence skips (feature) or refuses (cap on new instances): nothing is done for it, not
 * even its operators. What it made before (a downgrade at expiry) keeps running, untouched.
 */
function refusedPlan(module: KindModule, resource: EngineResource, view: EngineView, refusal: LicenceRefusal): Plan {
  const members = (resource.status?.emitted ?? []).filter(
    (e) =>
      module.emits.some((k) => k.product && k.kind === e.kind) && ownedBy(resource, view.objects.get(objectKey(e))),
  );
  const kept =
    members.length > 0
      ? ` Its members (${members.map(labelOf).join(", ")}) keep running as they are; the ${resource.kind} no longer changes them.`
      : "";
  const conditions = [
    condition(resource, READY, false, refusal.reason, `${refusal.message}${kept}`),
    condition(resource, LICENSED, false, refusal.reason, refusal.message),
    stalledCondition(resource, refusal.reason, `${refusal.message}${kept}`),
  ];
  return {
    refusal,
    steps: [],
    conditions,
    events: onceEvent(resource, LICENSED, refusal.reason, `${refusal.message}${kept}`),
    status: heldStatus(resource, conditions, resource.status?.admitted === true),
    // Room for it is looked for again at the next resync, or when the licence changes.
    requeue: false,
  };
}

/**
 * References that leave the namespaces the operator serves (SPEC 3.4: with --watch-namespaces, every
 * namespace adopted from must be included), as `field.namespace "namespace"` phrases.
 */
function unwatched(references: readonly Reference[], watched: readonly string[] | undefined): string[] {
  if (!watched) return [];
  return references.filter((r) => !watched.includes(r.namespace)).map((r) => `${r.field}.namespace "${r.namespace}"`);
}

function outOfScopePlan(
  module: KindModule,
  resource: EngineResource,
  outside: readonly string[],
  watched: readonly string[],
): Plan {
  const message = `${outside.join(" and ")} ${outside.length > 1 ? "are" : "is"} outside the namespaces this operator serves (--watch-namespaces ${watched.join(",")}); nothing was done. Add ${outside.length > 1 ? "them" : "it"} to --watch-namespaces, or adopt from a served namespace`;
  const reason = "NamespaceNotWatched";
  const conditions = [
    condition(resource, READY, false, reason, message),
    condition(resource, module.phase, false, reason, message),
    stalledCondition(resource, reason, message),
  ];
  return {
    steps: [],
    conditions,
    events: onceEvent(resource, READY, reason, message),
    status: heldStatus(resource, conditions, false),
    requeue: false,
  };
}

/**
 * A resource whose references into another namespace are not granted: nothing is read, copied or created
 * for it, and the condition says which grant to create. When a grant it relied on was removed, access is
 * revoked as Gateway API requires: what was copied under it (the kind names it) is deleted, so that the
 * copy no longer sits in this namespace, and what a kind that makes its objects there made under the
 * grant (an identity's LiteLLM object beside the Gateway) is deleted too. Nothing else there is touched.
 */
function notPermittedPlan(
  module: KindModule,
  resource: EngineResource,
  view: EngineView,
  ungranted: readonly Reference[],
): Plan {
  const { namespace } = resource.metadata;
  const message = referenceNotPermittedMessage(referrerOf(resource), ungranted);
  const conditions = [
    condition(resource, READY, false, REFERENCE_NOT_PERMITTED, message),
    condition(resource, module.phase, false, REFERENCE_NOT_PERMITTED, message),
    stalledCondition(resource, REFERENCE_NOT_PERMITTED, message),
  ];
  const events = onceEvent(resource, READY, REFERENCE_NOT_PERMITTED, message);
  const copies = new Set(module.copiedThroughReferences?.(resource) ?? []);
  const ungrantedNamespaces = new Set(ungranted.map((reference) => reference.namespace));
  const emitted = (resource.status?.emitted ?? []).filter((e) => ownedBy(resource, view.objects.get(objectKey(e))));
  const copiesRevoked = emitted.filter((e) => e.kind === "Secret" && e.namespace === namespace && copies.has(e.name));
  const madeThereRevoked = module.emitsIntoReferencedNamespaces
    ? emitted.filter((e) => e.namespace !== namespace && ungrantedNamespaces.has(e.namespace))
    : [];
  const revocations = [
    ...copiesRevoked.map((target) => ({
      target,
      why: "the credentials it copied are no longer granted",
      event: "the grant that allowed copying the credentials is gone",
    })),
    ...madeThereRevoked.map((target) => ({
      target,
      why: `it was made in namespace ${target.namespace} under a grant that is gone`,
      event: `the grant in namespace ${target.namespace} that allowed making it is gone`,
    })),
  ];
  const steps = revocations.map<PlanStep>(({ target, why }) => ({
    kind: "delete",
    target,
    description: `delete ${target.kind} ${target.namespace}/${target.name}: ${why}`,
  }));
  for (const { target, event } of revocations) {
    events.push({
      type: "Normal",
      reason: "GarbageCollected",
      message: `deleting ${target.kind} ${target.namespace}/${target.name}: ${event}`,
    });
  }
  const removed = new Set(revocations.map(({ target }) => objectKey(target)));
  const status = heldStatus(resource, conditions, false);
  return {
    steps,
    conditions,
    events,
    status: { ...status, emitted: (resource.status?.emitted ?? []).filter((e) => !removed.has(objectKey(e))) },
    // A grant created or removed re-queues the resource (the operator watches ReferenceGrants).
    requeue: false,
  };
}

/**
 * What stops a resource before anything is done for it — each Stalled: only a licence, the operator's
 * flags or a grant can let it through —, in order: the licence (a new instance beyond the
 * cap, or a kind whose feature is not licensed, gets nothing, not even its operators), the operator's
 * namespace scope, then the grants of the namespaces its references point into. Never a deletion.
 */
export function heldBack(
  module: KindModule,
  resource: EngineResource,
  view: EngineView,
  context: GateContext,
): Plan | undefined {
  const refusal = licenceRefusal(module, resource, view);
  if (refusal) return refusedPlan(module, resource, view, refusal);
  const references = allReferences(module, resource);
  const outside = unwatched(references, context.watchNamespaces);
  if (outside.length > 0)
    return withDependencies(module, resource, outOfScopePlan(module, resource, outside, context.watchNamespaces ?? []));
  const ungranted = ungrantedReferences(referrerOf(resource), references, view.referenceGrants ?? []);
  if (ungranted.length > 0)
    return withDependencies(module, resource, notPermittedPlan(module, resource, view, ungranted));
  return undefined;
}

/** A held plan of a resource with dependencies says on DependenciesReady too why none is followed. */
function withDependencies(module: KindModule, resource: EngineResource, plan: Plan): Plan {
  if (dependenciesOf(module, resource).length === 0) return plan;
  const [ready] = plan.conditions;
  if (!ready) return plan;
  const dependencies = condition(resource, DEPENDENCIES_READY, false, ready.reason, ready.message);
  const conditions = [ready, dependencies, ...plan.conditions.slice(1)];
  return { ...plan, conditions, status: { ...plan.status, conditions } };
}

/**
 * A resource whose dependencies are not all there and Ready (`verdict`, dependencyVerdict in
 * lib/engine/dependencies.ts): nothing of it
 * is applied — not even its operators installed —, DependenciesReady and Ready say what it waits for,
 * each problem naming the field and the target, and it is looked at again (the operator also re-queues
 * it when a target changes). One Warning Event when someone has to act — a target missing or refused by
 * the licence, a manual field to fill —; waiting for a target to become Ready is no failure. Undefined
 * when nothing holds it.
 */
export function waitingForDependencies(
  module: KindModule,
  resource: EngineResource,
  verdict: Verdict | undefined,
): Plan | undefined {
  if (!verdict || verdict.ok) return undefined;
  const conditions = [
    condition(resource, READY, false, verdict.reason, verdict.message),
    condition(resource, DEPENDENCIES_READY, false, verdict.reason, verdict.message),
    condition(resource, module.phase, false, verdict.reason, verdict.message),
    // A manual field to fill: waiting cannot clear it (pulumi up stops on it, navique plan fails).
    ...(verdict.stalled ? [stalledCondition(resource, verdict.reason, verdict.message)] : []),
  ];
  // Someone has to act (create it, license it, fill the manual field, replace it): said once as a Warning.
  const warn = [
    "DependencyMissing",
    "DependencyRefused",
    "DependencyDeleting",
    MANUAL_WIRING_REQUIRED,
    DEPENDENCY_MISMATCH,
  ].includes(verdict.reason);
  return {
    steps: [],
    conditions,
    events: warn ? onceEvent(resource, DEPENDENCIES_READY, verdict.reason, verdict.message) : [],
    // Past the licence gate: admitted, as a resource whose operators are not Ready yet is.
    status: heldStatus(resource, conditions, true),
    requeue: true,
  };
}
