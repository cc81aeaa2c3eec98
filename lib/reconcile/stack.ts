import { API_GROUP, API_VERSION, FINALIZER } from "../api/group.js";
import { POSTGRES_CLUSTER_PLURAL } from "../api/postgres-cluster.js";
import { STACK_PLURAL, type Stack } from "../api/stack.js";
import { orUndefined } from "../cluster/kube-client.js";
import { silentReporter } from "../local-plane/progress.js";
import { readPostgresCluster } from "../observe/postgres-cluster.js";
import { observeStack, readStack } from "../observe/stack.js";
import {
  failedStackPlan,
  planStack,
  type StackObservation,
  type StackPlan,
  type StackStep,
  stackFailurePhase,
  stackMembers,
} from "../plan/stack.js";
import { ReconcileFailure, stepFailureOf } from "./failure.js";
import { ensureFinalizer, removeFinalizer } from "./finalizer.js";
import { observeOptions, type ReconcileContext, reconcilePostgresCluster } from "./postgres-cluster.js";
import { recordEvents, writeStatus } from "./report.js";

export interface StackOutcome {
  readonly plan: StackPlan;
  /** Steps performed this pass. */
  readonly performed: readonly string[];
  readonly requeue: boolean;
  /** True once the finalizer was removed and the Stack may vanish. */
  readonly finalized: boolean;
}

/** Observe and plan only: what a preview shows, for the same inputs as a reconcile. */
export async function previewStack(context: ReconcileContext, stack: Stack): Promise<StackPlan> {
  return planStack(stack, await observeStack(context.client, stack, observeOptions(context)));
}

/** Performs one step; true when it changed something (an apply of identical content changes nothing). */
async function execute(
  context: ReconcileContext,
  stack: Stack,
  step: StackStep,
  observation: StackObservation,
): Promise<boolean> {
  switch (step.kind) {
    case "apply": {
      const before = observation.members.get(step.object.metadata.name)?.metadata.resourceVersion;
      const after = await context.client.apply(step.object);
      return before === undefined || before !== after.metadata?.resourceVersion;
    }
    case "delete":
      return (
        (await orUndefined(
          context.client.custom.deleteNamespacedCustomObject({
            group: API_GROUP,
            version: API_VERSION,
            plural: POSTGRES_CLUSTER_PLURAL,
            namespace: step.target.namespace,
            name: step.target.name,
          }),
        )) !== undefined
      );
    case "remove-finalizer":
      await removeFinalizer(context.client, STACK_PLURAL, stack);
      return true;
  }
}

/** Reads the Stack again after its finalizer was just added: the status write is conditional on its resourceVersion. */
async function withFinalizer(context: ReconcileContext, stack: Stack): Promise<Stack> {
  const had = stack.metadata.deletionTimestamp || stack.metadata.finalizers?.includes(FINALIZER);
  await ensureFinalizer(context.client, STACK_PLURAL, stack);
  if (had) return stack;
  return (await readStack(context.client, stack.metadata.namespace, stack.metadata.name)) ?? stack;
}

/**
 * One reconcile pass of a Stack stored in the cluster: ensure its finalizer, observe, plan, apply its
 * members (server-side apply, idempotent) — or, when it is being deleted, delete them and remove the
 * finalizer once they are gone — record Events, write status. A step that fails is reported on the
 * Stack (MembersReady and Ready False, one Warning Event per cause, the status written) and thrown. The members themselves (PostgresClusters)
 * are reconciled as any other resource of their kind: by the operator, or by the Pulumi provider that
 * created the Stack.
 */
export async function reconcileStack(context: ReconcileContext, stored: Stack): Promise<StackOutcome> {
  const report = context.report ?? silentReporter;
  const now = context.now ?? (() => new Date());
  const stack = await withFinalizer(context, stored);
  const where = `${stack.metadata.namespace}/${stack.metadata.name}`;
  const observation = await observeStack(context.client, stack, observeOptions(context));
  let plan = planStack(stack, observation);
  const performed: string[] = [];
  let failure: ReconcileFailure | undefined;
  for (const step of plan.steps) {
    try {
      if (await execute(context, stack, step, observation)) report(`[${where}] ${step.description}`);
    } catch (error) {
      const cause = stepFailureOf(step, error);
      plan = failedStackPlan(stack, plan, step, cause);
      failure = new ReconcileFailure(`Stack ${where}`, stackFailurePhase(step), cause);
      break;
    }
    performed.push(step.description);
  }
  await recordEvents(context.client, stack, plan.events, now(), report);
  const finalized = !failure && plan.steps.some((s) => s.kind === "remove-finalizer");
  const written = finalized ? "unchanged" : await writeStatus(context.client, STACK_PLURAL, stack, plan.status, now());
  if (failure) throw failure;
  return { plan, performed, requeue: plan.requeue || written === "conflict", finalized };
}

/**
 * One pass over a Stack being deleted where no operator runs beside it (the Pulumi provider, test
 * clean-up): the Stack's own pass, which deletes its members, then the finalization of each member
 * the deletion has reached — what the operator does through two work-queue keys.
 */
export async function reconcileStackDeletion(context: ReconcileContext, stack: Stack): Promise<StackOutcome> {
  const outcome = await reconcileStack(context, stack);
  for (const member of stackMembers(stack)) {
    const resource = await readPostgresCluster(context.client, stack.metadata.namespace, member.metadata.name);
    if (resource?.metadata.deletionTimestamp) await reconcilePostgresCluster(context, resource);
  }
  return outcome;
}
