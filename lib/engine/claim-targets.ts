import { CLAIM_PENDING } from "./claims.js";
import { moduleOf, type ReconcileContext } from "./context.js";
import { dependenciesOf } from "./dependencies.js";
import type { EngineResource } from "./kind-module.js";
import { readResource, reconcileResource } from "./reconcile.js";
import type { Plan } from "./steps.js";

/** Whether a plan waits for one of its claims to be made. */
export function waitsForClaim(plan: Pick<Plan<unknown>, "conditions">): boolean {
  return plan.conditions.some((c) => c.status === "False" && c.reason === CLAIM_PENDING);
}

/**
 * A claim is made, and dropped, by its target's pass (lib/engine/claims.ts). The operator re-queues the
 * target when a claimant appears or goes; where no operator runs beside them (`pulumi up` and `destroy`,
 * `navique up`), the claimant's front end runs that pass itself: over each target of its claims that is
 * there and not being deleted — while it waits for a claim, and once it is gone.
 */
export async function reconcileClaimTargets(context: ReconcileContext, resource: EngineResource): Promise<void> {
  const module = moduleOf(context, resource.kind);
  for (const dependency of dependenciesOf(module, resource).filter((d) => d.claim)) {
    const target = await readResource(
      context,
      moduleOf(context, dependency.kind),
      dependency.namespace,
      dependency.name,
    ).catch(() => undefined);
    if (target && !target.metadata.deletionTimestamp) await reconcileResource(context, target);
  }
}
