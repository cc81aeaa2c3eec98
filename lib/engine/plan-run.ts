import type { KubernetesObject } from "@kubernetes/client-node";
import pMap from "p-map";
import { stalledOf } from "../api/conditions.js";
import type { CapabilityDecision } from "../capabilities/provenance.js";
import { KubeClient, type RequestListener } from "../cluster/kube-client.js";
import { capOrder, type Instance } from "../licence/enforce.js";
import type { Entitlements } from "../licence/entitlements.js";
import { resolveEntitlements } from "../licence/resolve.js";
import { readLicense } from "../observe/license.js";
import { instanceOf } from "./admission.js";
import { resourceLabel, stalledLine } from "./conditions.js";
import { moduleOf, type ReconcileContext } from "./context.js";
import { stepFailureOf } from "./failure.js";
import { type CachedInstances, listResources } from "./observe.js";
import { failedPlan } from "./plan.js";
import type { DeclaredResource, InputRegistry, PlanInputs } from "./plan-inputs.js";
import { type PlannedPass, previewDesired, reliedOn } from "./preview.js";
import { DECLARED_IN_THE_FILES } from "./retained-with-namespace.js";
import type { PlanStep } from "./steps.js";

/**
 * What `navique plan` exits with (terraform plan -detailed-exitcode's convention, docs/plan.md): 0 when
 * applying the inputs would change nothing, 2 when it would change something and every resource would
 * be admitted, 1 when a resource would be refused or stall, or an input could not be judged.
 */
export const PLAN_EXIT_CODES = { nothingToChange: 0, failed: 1, changes: 2 } as const;
export type PlanExitCode = (typeof PLAN_EXIT_CODES)[keyof typeof PLAN_EXIT_CODES];

/**
 * A resource's verdict in a plan: already in place (nothing printed), changes to make, nothing to change
 * but not Ready yet (waiting for something outside the product that will happen), refused by the
 * licence, or stalled (a cause waiting cannot clear: docs/adr/0022-stalled-condition.md).
 */
export type PlanOutcome = "in-place" | "changes" | "waiting" | "refused" | "stalled";

export interface ResourcePlan {
  /** `Kind namespace/name`. */
  readonly subject: string;
  /** Where it was declared. */
  readonly where: string;
  readonly outcome: PlanOutcome;
  /** The decisions, one a line; none for a resource in place. */
  readonly lines: readonly string[];
}

export interface PlanRun {
  /** The licence the inputs declare, judged first: its entitlements are what every resource is planned under. */
  readonly licence?: ResourcePlan;
  readonly resources: readonly ResourcePlan[];
  /** What the run could not look at and says so without failing (a chart it cannot render here). */
  readonly notes: readonly string[];
}

/**
 * The client of a plan run, from a kubeconfig file: it reads each thing once for the whole run, discovery
 * and the CRDs included (`readOnce`, lib/cluster/read-once.ts): a plan changes nothing, so every resource
 * is judged against one reading of the cluster. `onRequest` hears each request it sends.
 */
export function planClient(kubeconfig: string, onRequest?: RequestListener): KubeClient {
  return KubeClient.fromFile(kubeconfig, { readOnce: true, ...(onRequest ? { onRequest } : {}) });
}

/** How many resources are planned at once: their reads overlap, their order on output does not change. */
const CONCURRENCY = 8;

/** Everything a run observes once for all its resources. */
interface RunObservations {
  readonly context: ReconcileContext;
  /**
   * Per capability: whether an install or upgrade of it would be refused for a collision, looked at once
   * (its chart rendered by helm, its objects read); started, not yet consulted.
   */
  readonly foresee: (capability: string) => Foresight;
  /** The same foresight, consulted: what the run says of it. */
  readonly consult: (capability: string) => Foresight;
  /** The foresights consulted so far, by capability, in the order first consulted. */
  readonly consulted: ReadonlyMap<string, Foresight>;
}

type Foresight = ReturnType<ReconcileContext["installer"]["foreseeConflict"]>;

/**
 * The context of one run: the clock stopped at its start (every declared resource not stored yet is
 * created "now", as applying the file at once creates them in the same second), the licence read once —
 * or the declared one —, each kind's instances listed once with the declared ones among them (so the cap
 * is decided over everything the inputs would make, in the operator's order: lib/licence/enforce.ts),
 * and each capability detected once.
 */
async function runObservations(
  context: ReconcileContext,
  declared: readonly DeclaredResource[],
  licence: KubernetesObject | undefined,
  at: Date,
): Promise<RunObservations> {
  const stored = licence ? undefined : await readLicense(context.client);
  const licences = licence ? [licence] : stored ? [stored as KubernetesObject] : [];
  const now = at.toISOString();
  const instances = new Map<string, CachedInstances>();
  await Promise.all(
    context.registry.map(async (module) => {
      const kind = module.definition.kind;
      const existing = await listResources(context.client, module);
      const list: Instance[] = existing.map((r) => instanceOf(r, now));
      for (const { resource } of declared) {
        if (resource.kind !== kind) continue;
        const known = existing.some(
          (r) => r.metadata.namespace === resource.metadata.namespace && r.metadata.name === resource.metadata.name,
        );
        if (!known) list.push(instanceOf(resource, now));
      }
      instances.set(kind, { list, ahead: capOrder(list) });
    }),
  );
  const detections = new Map<string, Promise<CapabilityDecision>>();
  const detect = (capability: string) => {
    let decision = detections.get(capability);
    if (!decision) {
      decision = context.installer.observe(capability).then((o) => o.decision);
      detections.set(capability, decision);
    }
    return decision;
  };
  const foresights = new Map<string, Foresight>();
  const foresee = (capability: string) => {
    let foresight = foresights.get(capability);
    if (!foresight) {
      foresight = context.installer.foreseeConflict(capability);
      foresights.set(capability, foresight);
    }
    return foresight;
  };
  const consulted = new Map<string, Foresight>();
  const consult = (capability: string) => {
    const foresight = foresee(capability);
    if (!consulted.has(capability)) consulted.set(capability, foresight);
    return foresight;
  };
  return {
    context: {
      ...context,
      now: () => at,
      licences: () => licences,
      instances: (kind) => instances.get(kind),
      detect,
    },
    foresee,
    consult,
    consulted,
  };
}

/** The first capability an install or upgrade of would be refused for a collision, with the refusal. */
async function collision(
  run: RunObservations,
  passes: readonly PlannedPass[],
): Promise<{ pass: PlannedPass; decision: CapabilityDecision; line: string } | undefined> {
  const relied = passes.flatMap((pass) =>
    reliedOn(pass.plan, pass.view)
      .filter((decision) => decision.action !== "none")
      .map((decision) => ({ pass, decision })),
  );
  // Every foresight it may consult, started at once: each renders a chart through helm, and waited for one
  // after the other they made the run wait for helm once per capability. Consulted in order all the same.
  for (const { decision } of relied) void run.foresee(decision.capability);
  for (const { pass, decision } of relied) {
    const { conflict } = await run.consult(decision.capability);
    if (!conflict) continue;
    // As the operator reports it: the ensure step of that capability failed with OwnershipConflict.
    const step: PlanStep = {
      kind: "ensure-capability",
      capability: decision.capability,
      description: decision.summary,
    };
    const module = moduleOf(run.context, pass.resource.kind);
    const failed = failedPlan(module, pass.resource, pass.plan as never, step, stepFailureOf(step, conflict));
    const stalled = stalledOf((failed as { conditions: Parameters<typeof stalledOf>[0] }).conditions);
    if (stalled) return { pass, decision, line: stalledLine(resourceLabel(pass.resource), stalled) };
  }
  return undefined;
}

/** One declared resource planned: what would change for it and its members, or why nothing will. */
async function planOne(run: RunObservations, declared: DeclaredResource, inputs: PlanInputs): Promise<ResourcePlan> {
  const { resource, where } = declared;
  const subject = resourceLabel(resource);
  const declaredNamespaces = (inputs.namespaces ?? []).map((name) => ({ name, ...DECLARED_IN_THE_FILES }));
  const decisions = await previewDesired(run.context, resource, { pendingGrants: inputs.grants, declaredNamespaces });
  if (decisions.refusal) return { subject, where, outcome: "refused", lines: decisions.lines };
  if (decisions.stalled) return { subject, where, outcome: "stalled", lines: decisions.lines };
  const collided = await collision(run, decisions.passes);
  if (collided) {
    const capabilities = decisions.lines.filter((l) => l.includes(": capability "));
    return { subject, where, outcome: "stalled", lines: [...capabilities, collided.line] };
  }
  if (decisions.inPlace) return { subject, where, outcome: "in-place", lines: [] };
  // What deletionPolicy Retain would keep in a namespace these files delete too, said after the decisions.
  const lines = [...decisions.lines, ...(decisions.warnings ?? []).map((w) => `warning: ${w}`)];
  // Nothing the product would do, and not Ready: the preview's lines say what it waits for.
  if (!decisions.changes) return { subject, where, outcome: "waiting", lines };
  return { subject, where, outcome: "changes", lines };
}

/** The declared licence judged as the operator would judge it once applied: its token verified at the run's time. */
function licencePlan(
  context: ReconcileContext,
  registry: InputRegistry,
  declared: NonNullable<PlanInputs["licence"]>,
  stored: string | undefined,
  at: Date,
): { plan: ResourcePlan; entitlements: Entitlements } {
  const subject = `${registry.singleton.definition.kind} ${registry.singleton.name}`;
  const entitlements = resolveEntitlements(declared.token, {
    now: at,
    ...(context.trustedKeys ? { trustedKeys: context.trustedKeys } : {}),
  });
  const where = declared.where;
  if (entitlements.edition !== "Licensed") {
    return {
      entitlements,
      plan: {
        subject,
        where,
        outcome: "refused",
        lines: [
          `${subject}: refused: ${entitlements.reason ?? "it does not verify"}; the Community edition would apply, and every resource below is planned under it. Apply a licence that verifies`,
        ],
      },
    };
  }
  if (stored === declared.token) return { entitlements, plan: { subject, where, outcome: "in-place", lines: [] } };
  const caps = Object.entries(entitlements.caps)
    .map(([kind, cap]) => `${kind} ${cap}`)
    .join(", ");
  const features = [...entitlements.features].join(", ") || "none";
  return {
    entitlements,
    plan: {
      subject,
      where,
      outcome: "changes",
      lines: [
        `${subject}: apply licence ${entitlements.licenseId} (features: ${features}; caps: ${caps}), in force until ${entitlements.expiresAt?.toISOString()}`,
      ],
    },
  };
}

/**
 * `navique plan`'s run over everything it was given: the declared licence first (what every resource is
 * planned under), then every declared resource, each with the decisions a reconcile would make — the
 * licence's caps decided over all of them together, each capability detected once, and an install the
 * operator would refuse for a collision foreseen from the same check. Changes nothing.
 */
export async function planInputs(
  context: ReconcileContext,
  registry: InputRegistry,
  inputs: PlanInputs,
  at: Date = new Date(),
): Promise<PlanRun> {
  const stored = inputs.licence ? await readLicense(context.client) : undefined;
  const licence = inputs.licence
    ? licencePlan(context, registry, inputs.licence, stored?.spec?.token, at).plan
    : undefined;
  const declaredLicence: KubernetesObject | undefined = inputs.licence
    ? ({ metadata: { name: registry.singleton.name }, spec: { token: inputs.licence.token } } as KubernetesObject)
    : undefined;
  const run = await runObservations(context, inputs.resources, declaredLicence, at);
  const resources = await pMap(inputs.resources, (declared) => planOne(run, declared, inputs), {
    concurrency: CONCURRENCY,
  });
  const notes: string[] = [];
  for (const [capability, foresight] of run.consulted) {
    const { unchecked } = await foresight;
    if (unchecked)
      notes.push(
        `capability ${capability}: whether its chart's objects collide with existing ones was not checked: ${unchecked}`,
      );
  }
  return { ...(licence ? { licence } : {}), resources, notes };
}

/** The exit code of a run: 1 for any input not judged or resource refused or stalled, else 2 for any change, else 0. */
export function planExitCode(run: PlanRun, inputs: Pick<PlanInputs, "problems">): PlanExitCode {
  const all = [...(run.licence ? [run.licence] : []), ...run.resources];
  if (inputs.problems.length > 0 || all.some((r) => r.outcome === "refused" || r.outcome === "stalled"))
    return PLAN_EXIT_CODES.failed;
  if (all.some((r) => r.outcome === "changes")) return PLAN_EXIT_CODES.changes;
  return PLAN_EXIT_CODES.nothingToChange;
}
