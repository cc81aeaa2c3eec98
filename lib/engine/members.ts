import { reconcileClaimTargets, waitsForClaim } from "./claim-targets.js";
import { moduleOf, type ReconcileContext } from "./context.js";
import type { EngineResource, KindModule } from "./kind-module.js";
import type { KubeObject } from "./objects.js";
import { ownedBy } from "./ownership.js";
import { type ReconcileOutcome, readResource, reconcileResource } from "./reconcile.js";
import type { Plan } from "./steps.js";

/** The product resources a plan applies (a Stack's members): objects of registered kinds. */
export function membersIn(
  context: Pick<ReconcileContext, "registry">,
  plan: Pick<Plan<unknown>, "steps">,
): KubeObject[] {
  const kinds = new Set(context.registry.map((m) => m.definition.kind));
  return plan.steps.flatMap((step) =>
    step.kind === "apply" && kinds.has(step.object.kind) && step.object.apiVersion.startsWith("core.navique.com/")
      ? [step.object]
      : [],
  );
}

/**
 * Whether resources of a kind may have members at all: only if it declares a member kind among those it
 * emits (a plan emits no kind its module does not declare: the registry's contract tests). Saves asking
 * a desired state just to find none.
 */
export function mayHaveMembers(context: Pick<ReconcileContext, "registry">, module: KindModule): boolean {
  return module.emits.some(
    (emitted) =>
      emitted.apiVersion.startsWith("core.navique.com/") &&
      context.registry.some((m) => m.definition.kind === emitted.kind),
  );
}

/** The stored members of a resource, each parsed by its kind's schema; one that is invalid or gone is left out. */
export async function storedMembers(
  context: ReconcileContext,
  members: readonly KubeObject[],
): Promise<EngineResource[]> {
  const found = await Promise.all(
    members.map((m) =>
      readResource(context, moduleOf(context, m.kind), m.metadata.namespace ?? "", m.metadata.name).catch(
        () => undefined,
      ),
    ),
  );
  return found.filter((m): m is EngineResource => m !== undefined);
}

/**
 * One pass over a resource and, where no operator runs beside it (the Pulumi provider, test clean-up),
 * over each of its members too: what the operator does through one work-queue key per resource. A member
 * being deleted is finalized as the deletion reaches it. A resource waiting for a claim gets a pass of the
 * claim's target too (lib/engine/claim-targets.ts).
 */
export async function reconcileWithMembers<Status>(
  context: ReconcileContext,
  resource: EngineResource,
): Promise<{ outcome: ReconcileOutcome<Status>; members: ReconcileOutcome[] }> {
  const outcome = await reconcileResource<Status>(context, resource);
  if (waitsForClaim(outcome.plan)) await reconcileClaimTargets(context, resource);
  const members: ReconcileOutcome[] = [];
  const desired = membersIn(context, outcome.plan);
  const emitted = (resource.status?.emitted ?? []).map<KubeObject>((e) => ({
    apiVersion: e.apiVersion,
    kind: e.kind,
    metadata: { name: e.name, namespace: e.namespace },
  }));
  const all = new Map([...emitted, ...desired].map((m) => [`${m.kind}/${m.metadata.namespace}/${m.metadata.name}`, m]));
  const kinds = new Set(context.registry.map((m) => m.definition.kind));
  for (const member of await storedMembers(
    context,
    [...all.values()].filter((m) => kinds.has(m.kind)),
  )) {
    // Only its own members: a resource of a member's name that it did not create is someone else's.
    if (!ownedBy(resource, member as unknown as KubeObject)) continue;
    if (resource.metadata.deletionTimestamp && !member.metadata.deletionTimestamp) continue;
    members.push(await reconcileResource(context, member));
  }
  return { outcome, members };
}
