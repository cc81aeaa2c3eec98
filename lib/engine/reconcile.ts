import { FINALIZER } from "../api/group.js";
import { readStored } from "../observe/stored.js";
import { silentReporter } from "../reporter.js";
import { moduleOf, observeOptions, planContext, type ReconcileContext } from "./context.js";
import { execute, type StepResult } from "./execute.js";
import { ReconcileFailure, stepFailureOf } from "./failure.js";
import { ensureFinalizer } from "./finalizer.js";
import type { EngineResource, KindModule } from "./kind-module.js";
import { observeResource } from "./observe.js";
import { failedPlan, failurePhase, planResource } from "./plan.js";
import type { ObservedGrant } from "./reference-grants.js";
import { recordEvents, type StatusWrite, writeStatus } from "./report.js";
import type { Plan, PlannedEvent } from "./steps.js";

/** What one pass did. */
export interface ReconcileOutcome<Status = Record<string, unknown>> {
  readonly plan: Plan<Status>;
  /** Steps performed this pass (a pass stops after ensuring operators: their kinds must be discovered first). */
  readonly performed: readonly string[];
  readonly requeue: boolean;
  /** Look again after this long rather than at the front end's usual delay (a slow rollout). */
  readonly requeueAfterMs?: number;
  /** True once the finalizer was removed and the object may vanish. */
  readonly finalized: boolean;
}

/** One stored resource of a kind, parsed by its schema (which throws on an invalid one); undefined when absent. */
export function readResource(
  context: Pick<ReconcileContext, "client">,
  module: KindModule,
  namespace: string,
  name: string,
): Promise<EngineResource | undefined> {
  return readStored(context.client, module.definition.plural, module.schema, namespace, name);
}

/** Observe and plan only: what a preview shows, for the same inputs as a reconcile. */
export async function previewResource<Status = Record<string, unknown>>(
  context: ReconcileContext,
  resource: EngineResource,
  pendingGrants: readonly ObservedGrant[] = [],
): Promise<{ plan: Plan<Status>; view: Awaited<ReturnType<typeof observeResource>> }> {
  const module = moduleOf(context, resource.kind);
  const view = await observeResource(context.client, context.installer, module, resource, {
    ...observeOptions(context),
    pendingGrants,
  });
  return { plan: planResource<Status>(module, resource, view, planContext(context)), view };
}

/**
 * Reads the resource again after its finalizer was just added: the status write that ends the pass is
 * conditional on the resourceVersion, which adding the finalizer changed.
 */
async function withFinalizer(
  context: ReconcileContext,
  module: KindModule,
  resource: EngineResource,
): Promise<EngineResource> {
  const had = resource.metadata.deletionTimestamp || resource.metadata.finalizers?.includes(FINALIZER);
  await ensureFinalizer(context.client, module.definition.plural, resource);
  if (had) return resource;
  return (await readResource(context, module, resource.metadata.namespace, resource.metadata.name)) ?? resource;
}

/**
 * Reports a pass's plan — its Events and its status — before the pass installs, upgrades or restores a
 * capability, which takes helm seconds to minutes: a capability gone (its release uninstalled by hand,
 * its controller scaled to 0) is said while it is brought back, not once it is back. Returns the
 * resource as the write left it, which the pass's last status write is then conditional on.
 */
async function reportBeforeInstall<Status>(
  context: ReconcileContext,
  module: KindModule,
  resource: EngineResource,
  plan: Plan<Status>,
  now: Date,
): Promise<EngineResource> {
  await recordEvents(context.client, resource, plan.events, now, context.report ?? silentReporter);
  const status = plan.status as unknown as { conditions: never[] };
  const written = await writeStatus(context.client, module.definition.plural, resource, status, now);
  if (written.outcome !== "written") return resource;
  if (written.resourceVersion) context.statusWritten?.(resource, written.resourceVersion);
  const metadata = { ...resource.metadata, resourceVersion: written.resourceVersion };
  return { ...resource, metadata, status: written.status } as EngineResource;
}

/**
 * One reconcile pass of a resource of any kind stored in the cluster: observe, plan, perform the steps in
 * order (stopping after operators are ensured, so that their new kinds are discovered before use), record
 * Events, write status. Safe to repeat: every step is idempotent and a pass interrupted anywhere leaves a
 * state the next pass converges from. "Not ready yet" is `requeue`, never an exception.
 *
 * A step that fails ends the pass as a failure on the resource: its phase condition and Ready False with
 * the failure's reason and summary, one Warning Event per distinct cause, the status written all the
 * same; then the pass throws a ReconcileFailure, which the operator retries with backoff and Pulumi shows
 * as the error. Only what changed something is reported: a pass that finds everything in place logs
 * nothing and writes nothing.
 */
export async function reconcileResource<Status = Record<string, unknown>>(
  context: ReconcileContext,
  stored: EngineResource,
): Promise<ReconcileOutcome<Status>> {
  const module = moduleOf(context, stored.kind);
  const report = context.report ?? silentReporter;
  const now = context.now ?? (() => new Date());
  const resource = await withFinalizer(context, module, stored);
  const where = `${resource.metadata.namespace}/${resource.metadata.name}`;
  const view = await observeResource(context.client, context.installer, module, resource, observeOptions(context));
  let plan = planResource<Status>(module, resource, view, planContext(context));
  // An install, upgrade or restore of a capability comes alone, first (lib/engine/plan.ts).
  const installing = plan.steps[0]?.kind === "ensure-capability";
  const reported = installing ? plan.events : [];
  // What the pass's last status write is conditional on: the resource read, or as its first write left it.
  const current = installing ? await reportBeforeInstall(context, module, resource, plan, now()) : resource;
  const performed: string[] = [];
  let stoppedEarly = false;
  let failure: ReconcileFailure | undefined;
  const happened: PlannedEvent[] = [];
  for (const step of plan.steps) {
    let next: StepResult;
    try {
      next = await execute(context, module, resource, step, view, happened);
    } catch (error) {
      const cause = stepFailureOf(step, error);
      plan = failedPlan(module, resource, plan as never, step, cause) as Plan<Status>;
      failure = new ReconcileFailure(`${resource.kind} ${where}`, failurePhase(module, step), cause);
      break;
    }
    performed.push(step.description);
    if (next !== "unchanged") report(`[${where}] ${step.description}`);
    if (next === "stop") {
      stoppedEarly = true;
      break;
    }
  }
  const events = [...plan.events.filter((e) => !reported.includes(e)), ...happened];
  await recordEvents(context.client, resource, events, now(), report);
  const finalized = !failure && plan.steps.some((s) => s.kind === "remove-finalizer");
  const last: StatusWrite = finalized
    ? { outcome: "unchanged" }
    : await writeStatus(
        context.client,
        module.definition.plural,
        current,
        plan.status as unknown as { conditions: never[] },
        now(),
      );
  if (last.outcome === "written" && last.resourceVersion) {
    context.statusWritten?.(resource, last.resourceVersion);
  }
  if (failure) throw failure;
  // Changed meanwhile by another process: the next pass decides from what it wrote.
  const requeue = plan.requeue || stoppedEarly || last.outcome === "conflict";
  // The verdict's own delay holds only when the pass did all it had to: otherwise look again soon.
  const requeueAfterMs = plan.requeue && !stoppedEarly && last.outcome !== "conflict" ? plan.requeueAfterMs : undefined;
  return { plan, performed, requeue, finalized, ...(requeueAfterMs ? { requeueAfterMs } : {}) };
}
