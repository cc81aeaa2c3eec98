import { type Condition, READY, stalledOf } from "../api/conditions.js";
import type { CapabilityDecision } from "../capabilities/provenance.js";
import type { LicenceRefusal } from "../licence/enforce.js";
import { resourceLabel, stalledLine } from "./conditions.js";
import { moduleOf, observeOptions, planContext, type ReconcileContext } from "./context.js";
import { dependenciesOf, wiringLine, wiringOf } from "./dependencies.js";
import { emittedKindOf, wouldBeRetained } from "./garbage.js";
import { changesNothing } from "./in-place.js";
import type { EngineResource } from "./kind-module.js";
import { membersIn } from "./members.js";
import { observeResource } from "./observe.js";
import { planResource } from "./plan.js";
import { readResource } from "./reconcile.js";
import type { ObservedGrant } from "./reference-grants.js";
import { previewWarning } from "./retained-with-namespace.js";
import { specChanges } from "./spec-changes.js";
import type { Plan, PlannedEvent, PlanStep } from "./steps.js";
import type { EngineView } from "./view.js";
import { isWorkloadRelease } from "./workload-release.js";

/** An object named by kind, namespace and name. */
export interface ObjectName {
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
}

/** What a preview is told beyond the cluster: what the same run applies or creates first. */
export interface PreviewOptions {
  /** Grants applied together with the resource, counted as if in the cluster already. */
  readonly pendingGrants?: readonly ObservedGrant[];
  /**
   * Objects the same run creates before the resource (a Secret a Pulumi program declares beside it): a
   * read of one not there yet is not a missing object, and what depends on it is decided once it exists.
   */
  readonly createdFirst?: readonly ObjectName[];
  /**
   * Namespaces that what declares the resource declares too, and so deletes with it (a Namespace resource
   * of the same Pulumi program, a Namespace in the same files): what Retain would keep there is warned of.
   */
  readonly declaredNamespaces?: readonly DeclaredNamespace[];
}

/** A namespace declared with the resource: what deletes it, and how its user keeps it, as a warning says them. */
export interface DeclaredNamespace {
  readonly name: string;
  /** `a Namespace resource of this program, which \`pulumi destroy\` deletes after it`. */
  readonly deletedBy: string;
  /** `give that Namespace resource the option retainOnDelete: true, …`. */
  readonly keep: string;
}

/** Every decision a reconcile would make, stated before anything changes. */
export interface PreviewDecisions {
  /** Per capability operator: install / upgrade / adopt / keep, with the evidence found. */
  readonly capabilities: readonly CapabilityDecision[];
  /**
   * The steps, as planned once the operators are Ready (a real pass stops at that gate; a preview shows
   * what comes after it too).
   */
  readonly steps: readonly PlanStep[];
  readonly events: readonly PlannedEvent[];
  /**
   * The lines a front end prints: one per decision where something would change, capabilities first,
   * then each member's. None for a resource in place (`inPlace`).
   */
  readonly lines: readonly string[];
  /**
   * Something would change: the resource is new or its spec changes, a capability is installed, upgraded
   * or starts being relied on, or a step would write something the cluster does not hold.
   */
  readonly changes: boolean;
  /** The resource exists, is Ready and nothing would change for it (nor for its members): a no-op. */
  readonly inPlace: boolean;
  /**
   * What `up` would run helm for: its capability operators (one to install, upgrade or wait for, or one to
   * release), its own Helm release (to install, upgrade or uninstall); empty when none. A front end checks
   * then, in the preview, that it has a helm to run.
   */
  readonly helmFor: readonly HelmUse[];
  /**
   * What a front end prints as a warning, beside the lines of a resource that is not in place: what
   * deletionPolicy Retain would keep in a namespace deleted with it (lib/engine/retained-with-namespace.ts).
   */
  readonly warnings?: readonly string[];
  /** Set when the licence refuses or skips the resource: then nothing else would happen for it. */
  readonly refusal?: LicenceRefusal;
  /**
   * The Stalled condition the resource (or a member) would get: a cause waiting cannot clear — the
   * licence, a missing grant, a name taken, a spec error —, on which `pulumi up` would stop.
   */
  readonly stalled?: Condition;
  /**
   * Each pass planned — the resource's, then its members' —, with what it was planned from: what a
   * caller needs to look further (lib/engine/plan-run.ts foresees install collisions from them).
   */
  readonly passes: readonly PlannedPass[];
}

/** What a pass runs helm for, as a warning names it. */
export type HelmUse = "its capability operators" | "its Helm release";

/** One pass a preview planned: the resource as planned, its stored object (if any), what was observed and decided. */
export interface PlannedPass {
  readonly resource: EngineResource;
  readonly live: EngineResource | undefined;
  readonly view: EngineView;
  readonly plan: Plan<unknown>;
}

/**
 * The capability decisions a pass acts on: every one when the plan goes on to the resource's operators,
 * none when it holds the resource back or refuses it (nothing is installed or relied on for it). The plan
 * decides (Plan.reachesOperators); a preview only reads it.
 */
export function reliedOn(plan: Plan<unknown>, view: EngineView): readonly CapabilityDecision[] {
  return plan.reachesOperators ? view.capabilities : [];
}

/**
 * Whether a capability decision changes something for the resource: an install or an upgrade, or a
 * capability kept or adopted that the resource does not yet record relying on (it starts counting as
 * one of its consumers).
 */
function capabilityChanges(resource: EngineResource, decision: CapabilityDecision): boolean {
  if (decision.action !== "none") return true;
  const provenance = decision.state === "Owned" ? "owned" : "adopted";
  return !(resource.status?.capabilities ?? []).some(
    (c) => c.name === decision.capability && c.provenance === provenance,
  );
}

/** The reads of the resource's kind that name an object the same run creates first, and that is not there yet. */
function awaitedReads(
  module: ReturnType<typeof moduleOf>,
  resource: EngineResource,
  view: EngineView,
  createdFirst: readonly ObjectName[],
): ObjectName[] {
  return module
    .observes(resource)
    .filter((read) => view.reads?.[read.id] === undefined)
    .filter((read) =>
      createdFirst.some((o) => o.kind === read.kind && o.namespace === read.namespace && o.name === read.name),
    );
}

/** The decisions on a resource the licence refuses or skips: nothing else would happen for it. */
function licenceRefused(
  plan: Plan<unknown>,
  refusal: LicenceRefusal,
  prefix: string,
  passes: readonly PlannedPass[],
): PreviewDecisions & { readonly plan: Plan<unknown> } {
  const stalled = stalledOf(plan.conditions);
  return {
    capabilities: [],
    steps: [],
    events: plan.events,
    lines: [stalled ? stalledLine(prefix, stalled) : `${prefix}: ${refusal.message}`],
    changes: false,
    inPlace: false,
    helmFor: [],
    refusal,
    ...(stalled ? { stalled } : {}),
    passes,
    plan,
  };
}

/**
 * The lines of what would change, and only that — a resource in place says nothing: the capabilities
 * (of those `relied` on) installed, upgraded or newly relied on, the spec's fields that change, the steps
 * that would write something the cluster does not hold (`changing`).
 */
function changeLines(
  prefix: string,
  resource: EngineResource,
  relied: readonly CapabilityDecision[],
  changing: readonly PlanStep[],
  live: EngineResource | undefined,
): string[] {
  const capabilities = relied.filter((d) => capabilityChanges(resource, d));
  const spec = live ? specChanges(live.spec, resource.spec) : [];
  return [
    ...capabilities.map((d) => `${prefix}: capability ${d.capability}: ${d.summary}`),
    ...(spec.length > 0 ? [`${prefix}: change ${spec.join(", ")}`] : []),
    ...changing.map((s) => `${prefix}: ${s.description}`),
  ];
}

/**
 * Observes and plans, changing nothing: the decisions of `pulumi preview`, `navique plan` and the operator
 * alike. `live`: the resource is the one in the cluster (with the desired spec), not a new one.
 */
export async function previewDecisions(
  context: ReconcileContext,
  resource: EngineResource,
  options: PreviewOptions & { readonly live?: EngineResource | undefined } = {},
): Promise<PreviewDecisions & { readonly plan: Plan<unknown> }> {
  const module = moduleOf(context, resource.kind);
  const view = await observeResource(context.client, context.installer, module, resource, {
    ...observeOptions(context),
    pendingGrants: options.pendingGrants ?? [],
  });
  const assumingOperatorsReady = {
    ...view,
    capabilities: view.capabilities.map((d) => ({ ...d, action: "none" as const, ready: true, waitingFor: [] })),
  };
  const plan = planResource(module, resource, assumingOperatorsReady, planContext(context));
  const passes = [{ resource, live: options.live, view, plan }];
  const steps = plan.steps.filter((s) => s.kind !== "ensure-capability");
  const prefix = resourceLabel(resource);
  const ready = plan.conditions.find((c) => c.type === READY);
  const stalled = stalledOf(plan.conditions);
  if (plan.refusal) return licenceRefused(plan, plan.refusal, prefix, passes);
  // Where something is said of it, how each dependency with a manual alternative is wired: one decision
  // (wiringOf), the licence's.
  const wiring = dependenciesOf(module, resource)
    .filter((d) => d.manual)
    .map((d) => `${prefix}: ${wiringLine(d, wiringOf(d, view.licence.entitlements))}`);
  const withWiring = <D extends { readonly lines: readonly string[] }>(decided: D): D =>
    decided.lines.length > 0 ? { ...decided, lines: [...decided.lines, ...wiring] } : decided;
  const relied = reliedOn(plan, view);
  const changing = steps.filter((s) => !changesNothing(s, view));
  const lines = changeLines(prefix, resource, relied, changing, options.live);
  const operators =
    relied.some((d) => d.action !== "none" || !d.ready) || steps.some((s) => s.kind === "release-capability");
  const release = changing.some(
    (s) => s.kind === "workload-release" || (s.kind === "delete" && isWorkloadRelease(s.target)),
  );
  const helmFor: HelmUse[] = [
    ...(operators ? (["its capability operators"] as const) : []),
    ...(release ? (["its Helm release"] as const) : []),
  ];
  const changes = !options.live || lines.length > 0;
  const base = { capabilities: relied, steps, events: plan.events, changes, helmFor, passes, plan };
  if (stalled) {
    // Said before anything is created, exactly as the condition will say it: `up` would stop there.
    lines.push(stalledLine(prefix, stalled));
    return withWiring({ ...base, lines, inPlace: false, stalled });
  }
  const awaited = awaitedReads(module, resource, view, options.createdFirst ?? []);
  if (ready?.status !== "True" && awaited.length > 0) {
    // Not missing: the same run creates it first. What it would tell is decided once it exists.
    const names = awaited.map((o) => `${o.kind} ${o.namespace}/${o.name}`).join(", ");
    lines.push(`${prefix}: decided once ${names} exists: the same run creates it first`);
    return withWiring({ ...base, lines, inPlace: false });
  }
  if (ready?.status !== "True" && changing.length === 0) {
    // Nothing the product would do: something outside it is missing — say which.
    lines.push(`${prefix}: nothing to do until: ${ready?.message ?? "unknown"}`);
    return withWiring({ ...base, lines, inPlace: false });
  }
  if (!options.live && lines.length === 0) {
    // A new resource that needs nothing made: recorded, and Ready as the message says.
    lines.push(`${prefix}: create it, nothing else: ${ready?.message ?? "Ready"}`);
  }
  const inPlace = options.live !== undefined && lines.length === 0;
  return withWiring({ ...base, lines, inPlace });
}

/**
 * The warning for a pass that says something (a resource in place says nothing), when its namespace is
 * declared with it and its desired state holds what Retain would keep.
 */
function namespaceWarnings(
  context: ReconcileContext,
  decisions: Pick<PreviewDecisions, "lines" | "passes">,
  declared: readonly DeclaredNamespace[],
): string[] {
  const [pass] = decisions.passes;
  if (!pass || decisions.lines.length === 0) return [];
  const namespace = declared.find((d) => d.name === pass.resource.metadata.namespace);
  if (!namespace) return [];
  const module = moduleOf(context, pass.resource.kind);
  const made = pass.plan.steps.flatMap((s) => ("object" in s ? [s.object] : []));
  const retains = wouldBeRetained(module, made).map((o) => ({
    label: emittedKindOf(module, o)?.label ?? o.kind,
    name: o.metadata.name,
  }));
  const line = previewWarning(pass.resource, retains, namespace);
  return line ? [line] : [];
}

/**
 * What a preview plans: the desired spec on the live object when there is a valid one (its status says
 * what was emitted and admitted before), otherwise the desired object as a new one.
 */
function asPlanned(desired: EngineResource, live: EngineResource | undefined): EngineResource {
  return live ? { ...live, spec: desired.spec } : { ...desired, metadata: { ...desired.metadata, generation: 1 } };
}

/**
 * The decisions for a desired resource of any kind that may or may not exist yet, planned against the
 * live object when there is a valid one; a composite's members are previewed after it, each as the
 * resource of its own kind it becomes. `options.pendingGrants`: grants applied together with it,
 * counted as if in the cluster already; `options.createdFirst`: objects the same run creates before it;
 * `options.declaredNamespaces`: namespaces deleted with it, where what Retain would keep is warned of.
 */
export async function previewDesired(
  context: ReconcileContext,
  desired: EngineResource,
  options: PreviewOptions = {},
): Promise<PreviewDecisions> {
  const module = moduleOf(context, desired.kind);
  const { namespace, name } = desired.metadata;
  const live = await readResource(context, module, namespace, name).catch(() => undefined);
  const decisions = await previewDecisions(context, asPlanned(desired, live), { ...options, live });
  if (decisions.refusal) return decisions;
  const warnings = namespaceWarnings(context, decisions, options.declaredNamespaces ?? []);
  const lines = [...decisions.lines];
  const passes = [...decisions.passes];
  let stalled = decisions.stalled;
  let changes = decisions.changes;
  let inPlace = decisions.inPlace;
  const helmFor = new Set(decisions.helmFor);
  for (const member of membersIn(context, decisions.plan)) {
    const memberModule = moduleOf(context, member.kind);
    const parsed = memberModule.schema.parse(member);
    const memberDecisions = await previewDesired(context, parsed, options);
    lines.push(...memberDecisions.lines);
    warnings.push(...(memberDecisions.warnings ?? []));
    passes.push(...memberDecisions.passes);
    stalled ??= memberDecisions.stalled;
    changes ||= memberDecisions.changes;
    inPlace &&= memberDecisions.inPlace;
    for (const use of memberDecisions.helmFor) helmFor.add(use);
  }
  return {
    ...decisions,
    lines,
    passes,
    changes,
    inPlace,
    helmFor: [...helmFor],
    ...(warnings.length > 0 ? { warnings } : {}),
    ...(stalled ? { stalled } : {}),
  };
}
