import { type Condition, READY, stalledOf } from "../api/conditions.js";
import type { LicenceRefusal } from "../licence/enforce.js";
import type { CapabilityDecision } from "../plan/provenance.js";
import { stalledLine } from "./conditions.js";
import { moduleOf, observeOptions, planContext, type ReconcileContext } from "./context.js";
import type { EngineResource } from "./kind-module.js";
import { membersIn } from "./members.js";
import { observeResource } from "./observe.js";
import { planResource } from "./plan.js";
import { readResource } from "./reconcile.js";
import type { ObservedGrant } from "./reference-grants.js";
import type { Plan, PlannedEvent, PlanStep } from "./steps.js";
import type { EngineView } from "./view.js";

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
  /** The lines a front end prints: one per decision, capabilities first, then each member's. */
  readonly lines: readonly string[];
  /** Set when the licence refuses or skips the resource: then nothing else would happen for it. */
  readonly refusal?: LicenceRefusal;
  /**
   * The Stalled condition the resource (or a member) would get: a cause waiting cannot clear — the
   * licence, a missing grant, a name taken, a spec error —, on which `pulumi up` would stop.
   */
  readonly stalled?: Condition;
  /**
   * Each pass planned — the resource's, then its members' —, with what it was planned from: what a
   * caller needs to tell whether applying it would change anything (lib/engine/plan-run.ts).
   */
  readonly passes: readonly PlannedPass[];
}

/** One pass a preview planned: the resource as planned, its stored object (if any), what was observed and decided. */
export interface PlannedPass {
  readonly resource: EngineResource;
  readonly live: EngineResource | undefined;
  readonly view: EngineView;
  readonly plan: Plan<unknown>;
}

/** Observes and plans, changing nothing: the decisions of `pulumi preview`, `navique plan` and the operator alike. */
export async function previewDecisions(
  context: ReconcileContext,
  resource: EngineResource,
  pendingGrants: readonly ObservedGrant[] = [],
  live?: EngineResource,
): Promise<PreviewDecisions & { readonly plan: Plan<unknown> }> {
  const module = moduleOf(context, resource.kind);
  const view = await observeResource(context.client, context.installer, module, resource, {
    ...observeOptions(context),
    pendingGrants,
  });
  const assumingOperatorsReady = {
    ...view,
    capabilities: view.capabilities.map((d) => ({ ...d, action: "none" as const, ready: true, waitingFor: [] })),
  };
  const plan = planResource(module, resource, assumingOperatorsReady, planContext(context));
  const passes = [{ resource, live, view, plan }];
  const steps = plan.steps.filter((s) => s.kind !== "ensure-capability");
  const prefix = `${resource.kind} ${resource.metadata.namespace}/${resource.metadata.name}`;
  const ready = plan.conditions.find((c) => c.type === READY);
  const stalled = stalledOf(plan.conditions);
  if (plan.refusal) {
    const lines = [stalled ? stalledLine(prefix, stalled) : `${prefix}: ${plan.refusal.message}`];
    return {
      capabilities: [],
      steps: [],
      events: plan.events,
      lines,
      refusal: plan.refusal,
      ...(stalled ? { stalled } : {}),
      passes,
      plan,
    };
  }
  const lines = [
    ...view.capabilities.map((d) => `${prefix}: capability ${d.capability}: ${d.summary}`),
    ...steps.map((s) => `${prefix}: ${s.description}`),
  ];
  if (stalled) {
    // Said before anything is created, exactly as the condition will say it: `up` would stop there.
    lines.push(stalledLine(prefix, stalled));
    return { capabilities: view.capabilities, steps, events: plan.events, lines, stalled, passes, plan };
  }
  if (steps.length === 0) {
    // Nothing to do: either all is in place, or something outside the product is missing — say which.
    lines.push(
      `${prefix}: ${ready?.status === "True" ? "nothing to change" : `nothing to do until: ${ready?.message ?? "unknown"}`}`,
    );
  }
  return { capabilities: view.capabilities, steps, events: plan.events, lines, passes, plan };
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
 * resource of its own kind it becomes. `pendingGrants`: grants applied together with it,
 * counted as if in the cluster already.
 */
export async function previewDesired(
  context: ReconcileContext,
  desired: EngineResource,
  pendingGrants: readonly ObservedGrant[] = [],
): Promise<PreviewDecisions> {
  const module = moduleOf(context, desired.kind);
  const { namespace, name } = desired.metadata;
  const live = await readResource(context, module, namespace, name).catch(() => undefined);
  const decisions = await previewDecisions(context, asPlanned(desired, live), pendingGrants, live);
  if (decisions.refusal) return decisions;
  const lines = [...decisions.lines];
  const passes = [...decisions.passes];
  let stalled = decisions.stalled;
  for (const member of membersIn(context, decisions.plan)) {
    const memberModule = moduleOf(context, member.kind);
    const parsed = memberModule.schema.parse(member);
    const memberDecisions = await previewDesired(context, parsed, pendingGrants);
    lines.push(...memberDecisions.lines);
    passes.push(...memberDecisions.passes);
    stalled ??= memberDecisions.stalled;
  }
  return { ...decisions, lines, passes, ...(stalled ? { stalled } : {}) };
}
