import { PostgresCluster } from "../api/postgres-cluster.js";
import type { Stack } from "../api/stack.js";
import type { LicenceRefusal } from "../licence/enforce.js";
import { observePostgresCluster, readPostgresCluster } from "../observe/postgres-cluster.js";
import { readStack } from "../observe/stack.js";
import { type PostgresPlan, planPostgresCluster } from "../plan/postgres-cluster.js";
import type { CapabilityDecision } from "../plan/provenance.js";
import { type ObservedGrant, REFERENCE_NOT_PERMITTED } from "../plan/reference-grants.js";
import { observeOptions, type ReconcileContext } from "./postgres-cluster.js";
import { previewStack } from "./stack.js";

/** Every decision a reconcile would make, stated before anything changes. */
export interface PreviewDecisions {
  /** Per capability operator: install / upgrade / adopt / keep, with the evidence found. */
  readonly capabilities: readonly CapabilityDecision[];
  /**
   * The datastore steps, as planned once the operators are Ready (a real pass stops at that gate;
   * a preview shows what comes after it too).
   */
  readonly steps: PostgresPlan["steps"];
  readonly events: PostgresPlan["events"];
  /** The lines a front end prints: one per decision, capabilities first. */
  readonly lines: readonly string[];
  /** Set when the licence refuses the resource: then nothing else would happen. */
  readonly refusal?: PostgresPlan["refusal"];
  /** Set, to the grant to create, when a reference into another namespace is not granted there. */
  readonly notPermitted?: string;
}

/** Observes and plans, changing nothing: the decisions of `pulumi preview`, `navique plan` and the operator alike. */
export async function previewDecisions(
  context: ReconcileContext,
  resource: PostgresCluster,
  pendingGrants: readonly ObservedGrant[] = [],
): Promise<PreviewDecisions> {
  const observation = await observePostgresCluster(context.client, context.installer, resource, {
    ...observeOptions(context),
    pendingGrants,
  });
  const assumingOperatorsReady = {
    ...observation,
    capabilities: observation.capabilities.map((d) => ({ ...d, action: "none" as const, ready: true, waitingFor: [] })),
  };
  const projected = planPostgresCluster(resource, assumingOperatorsReady, context);
  const steps = projected.steps.filter((s) => s.kind !== "ensure-capability");
  const where = `${resource.metadata.namespace}/${resource.metadata.name}`;
  if (projected.refusal) {
    const lines = [`PostgresCluster ${where}: refused by the licence: ${projected.refusal.message}`];
    return { capabilities: [], steps: [], events: projected.events, lines, refusal: projected.refusal };
  }
  const lines = [
    ...observation.capabilities.map((d) => `PostgresCluster ${where}: capability ${d.capability}: ${d.summary}`),
    ...steps.map((s) => `PostgresCluster ${where}: ${s.description}`),
  ];
  const ready = projected.conditions.find((c) => c.type === "Ready");
  if (ready?.reason === REFERENCE_NOT_PERMITTED) {
    // Said before anything is created: the missing grant, exactly as the condition will say it.
    lines.push(`PostgresCluster ${where}: reference not permitted: ${ready.message}`);
    return {
      capabilities: observation.capabilities,
      steps,
      events: projected.events,
      lines,
      notPermitted: ready.message,
    };
  }
  if (steps.length === 0) {
    // Nothing to do: either all is in place, or something outside the product is missing — say which.
    lines.push(
      `PostgresCluster ${where}: ${ready?.status === "True" ? "nothing to change" : `nothing to do until: ${ready?.message ?? "unknown"}`}`,
    );
  }
  return { capabilities: observation.capabilities, steps, events: projected.events, lines };
}

/**
 * What a preview plans: the desired spec on the live object when there is a valid one (its status says
 * what was emitted and admitted before), otherwise the desired object as a new one.
 */
function asPlanned<R extends { readonly spec: unknown; readonly metadata: object }>(
  desired: R,
  live: R | undefined,
): R {
  return live ? { ...live, spec: desired.spec } : { ...desired, metadata: { ...desired.metadata, generation: 1 } };
}

/**
 * The decisions for a desired PostgresCluster that may or may not exist yet: planned against the live
 * object when there is a valid one (its status says what was emitted before), otherwise as a new one.
 * `pendingGrants`: ReferenceGrants applied together with it, counted as if in the cluster already.
 */
export async function previewDesired(
  context: ReconcileContext,
  desired: PostgresCluster,
  pendingGrants: readonly ObservedGrant[] = [],
): Promise<PreviewDecisions> {
  const { namespace, name } = desired.metadata;
  const live = await readPostgresCluster(context.client, namespace, name).catch(() => undefined);
  return previewDecisions(context, asPlanned(desired, live), pendingGrants);
}

/** The decisions for a desired Stack: the licence's word, then each member's own decisions. */
export interface StackPreview {
  readonly lines: readonly string[];
  /** Set when the licence skips (feature) or refuses (cap) the Stack: then nothing else would happen. */
  readonly refusal?: LicenceRefusal;
}

/**
 * Previews a desired Stack, created or not: planned against the live object when there is one. Each
 * member is then previewed as the PostgresCluster it becomes, so that its capability decisions show too.
 */
export async function previewDesiredStack(context: ReconcileContext, desired: Stack): Promise<StackPreview> {
  const { namespace, name } = desired.metadata;
  const live = await readStack(context.client, namespace, name).catch(() => undefined);
  const plan = await previewStack(context, asPlanned(desired, live));
  const where = `Stack ${namespace}/${name}`;
  if (plan.refusal) {
    const verb = plan.refusal.reason === "FeatureNotLicensed" ? "skipped" : "refused";
    const ready = plan.conditions.find((c) => c.type === "Ready");
    return {
      lines: [`${where}: ${verb} by the licence: ${ready?.message ?? plan.refusal.message}`],
      refusal: plan.refusal,
    };
  }
  const lines = plan.steps.map((s) => `${where}: ${s.description}`);
  for (const member of plan.members) {
    const decisions = await previewDesired(context, PostgresCluster.parse(member));
    lines.push(...decisions.lines);
  }
  return { lines };
}
