import { STACK_PLURAL, type Stack } from "../api/stack.js";
import { silentReporter } from "../local-plane/progress.js";
import { observeStack } from "../observe/stack.js";
import { planStack, type StackPlan } from "../plan/stack.js";
import { observeOptions, type ReconcileContext } from "./postgres-cluster.js";
import { recordEvents, writeStatus } from "./report.js";

export interface StackOutcome {
  readonly plan: StackPlan;
  /** Steps performed this pass. */
  readonly performed: readonly string[];
  readonly requeue: boolean;
}

/** Observe and plan only: what a preview shows, for the same inputs as a reconcile. */
export async function previewStack(context: ReconcileContext, stack: Stack): Promise<StackPlan> {
  return planStack(stack, await observeStack(context.client, stack, observeOptions(context)));
}

/**
 * One reconcile pass of a Stack stored in the cluster: observe, plan, apply its members (server-side
 * apply, idempotent), record Events, write status. The members themselves — PostgresClusters — are
 * reconciled as any other resource of their kind: by the operator, or by the Pulumi provider that
 * created the Stack.
 */
export async function reconcileStack(context: ReconcileContext, stack: Stack): Promise<StackOutcome> {
  const report = context.report ?? silentReporter;
  const now = context.now ?? (() => new Date());
  const plan = await previewStack(context, stack);
  const performed: string[] = [];
  for (const step of plan.steps) {
    report(`[${stack.metadata.namespace}/${stack.metadata.name}] ${step.description}`);
    await context.client.apply(step.object);
    performed.push(step.description);
  }
  await recordEvents(context.client, stack, plan.events, now(), report);
  if (!stack.metadata.deletionTimestamp) await writeStatus(context.client, STACK_PLURAL, stack, plan.status, now());
  return { plan, performed, requeue: plan.requeue };
}
