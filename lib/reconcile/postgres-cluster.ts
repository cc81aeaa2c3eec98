import { randomBytes } from "node:crypto";
import { FINALIZER } from "../api/group.js";
import { POSTGRES_CLUSTER_PLURAL, type PostgresCluster } from "../api/postgres-cluster.js";
import type { CapabilityInstaller } from "../apply/capability-installer.js";
import { type KubeClient, orUndefined, statusOf } from "../cluster/kube-client.js";
import { type Reporter, silentReporter } from "../local-plane/progress.js";
import { observePostgresCluster, readPostgresCluster } from "../observe/postgres-cluster.js";
import { CNPG_GROUP, CNPG_VERSION, cnpgPlural } from "../plan/cnpg.js";
import {
  CNPG_CAPABILITY,
  failedPlan,
  failurePhase,
  objectKey,
  type PlanStep,
  type PostgresObservation,
  type PostgresPlan,
  planPostgresCluster,
} from "../plan/postgres-cluster.js";
import { ReconcileFailure, stepFailureOf } from "./failure.js";
import { ensureFinalizer, removeFinalizer } from "./finalizer.js";
import { recordEvents, writeStatus } from "./report.js";

export interface ReconcileContext {
  readonly client: KubeClient;
  readonly installer: CapabilityInstaller;
  readonly withPrerequisites: (name: string) => string[];
  readonly releaseOf: (name: string) => { name: string; namespace: string };
  readonly report?: Reporter;
  readonly now?: () => Date;
  /** Public keys licences are verified with. @default the product's TRUSTED_KEYS */
  readonly trustedKeys?: ReadonlyMap<string, string>;
  /** The namespaces an operator serves (--watch-namespaces); undefined: every namespace. */
  readonly watchNamespaces?: readonly string[];
}

/** What observing needs from a context: the catalog, the clock and the licence keys. */
export function observeOptions(context: ReconcileContext) {
  return {
    withPrerequisites: context.withPrerequisites,
    now: (context.now ?? (() => new Date()))(),
    ...(context.trustedKeys ? { trustedKeys: context.trustedKeys } : {}),
  };
}

export interface ReconcileOutcome {
  readonly plan: PostgresPlan;
  /** Steps performed this pass (a pass stops after ensuring operators: their kinds must be discovered first). */
  readonly performed: readonly string[];
  readonly requeue: boolean;
  /** True once the finalizer was removed and the object may vanish. */
  readonly finalized: boolean;
}

const PASSWORD_BYTES = 24;

/** Observe and plan only: what a preview shows, for the same inputs as a reconcile. */
export async function previewPostgresCluster(
  context: ReconcileContext,
  resource: PostgresCluster,
): Promise<PostgresPlan> {
  const observation = await observePostgresCluster(
    context.client,
    context.installer,
    resource,
    observeOptions(context),
  );
  return planPostgresCluster(resource, observation, context);
}

async function generateCredentials(
  client: KubeClient,
  step: Extract<PlanStep, { kind: "generate-credentials" }>,
): Promise<boolean> {
  const namespace = step.object.metadata.namespace ?? "";
  const existing = await orUndefined(client.core.readNamespacedSecret({ name: step.object.metadata.name, namespace }));
  if (existing) return false;
  try {
    await client.core.createNamespacedSecret({
      namespace,
      body: {
        ...(step.object as object),
        stringData: { username: step.username, password: randomBytes(PASSWORD_BYTES).toString("base64url") },
      },
    });
    return true;
  } catch (error) {
    // Created meanwhile by another reconcile: the existing password stands.
    if (statusOf(error) === 409) return false;
    throw error;
  }
}

/**
 * Removes the product's marks from a kept object (the plan wrote the patch). A Secret through the core
 * API, a CNPG object under its own plural. An object gone meanwhile has nothing left to release.
 */
async function release(client: KubeClient, step: Extract<PlanStep, { kind: "retain" }>): Promise<void> {
  const { target, patch } = step;
  if (patch.length === 0) return;
  const body = [...patch];
  const patched =
    target.apiVersion === "v1" && target.kind === "Secret"
      ? client.core.patchNamespacedSecret({ name: target.name, namespace: target.namespace, body })
      : client.custom.patchNamespacedCustomObject(
          {
            group: CNPG_GROUP,
            version: CNPG_VERSION,
            plural: cnpgPlural(target.kind),
            namespace: target.namespace,
            name: target.name,
            body,
          },
          undefined,
        );
  await orUndefined(patched);
}

/** After a step: go on, go on without having changed anything, or end the pass here. */
type StepResult = "continue" | "unchanged" | "stop";

/** The resourceVersion of an object, as read or as answered. */
function versionOf(object: unknown): string | undefined {
  return (object as { metadata?: { resourceVersion?: string } } | undefined)?.metadata?.resourceVersion;
}

async function execute(
  context: ReconcileContext,
  resource: PostgresCluster,
  step: PlanStep,
  observation: PostgresObservation,
): Promise<StepResult> {
  const { client } = context;
  switch (step.kind) {
    case "ensure-capability":
      await context.installer.ensure(CNPG_CAPABILITY);
      return "stop";
    case "apply": {
      // Server-side apply of identical content changes nothing on the server (the resourceVersion stays).
      const before = observation.objects.get(
        objectKey({
          kind: step.object.kind,
          name: step.object.metadata.name,
          namespace: step.object.metadata.namespace ?? "",
        }),
      );
      const after = await client.apply(step.object);
      return before && versionOf(before) === versionOf(after) ? "unchanged" : "continue";
    }
    case "generate-credentials":
      return (await generateCredentials(client, step)) ? "continue" : "unchanged";
    case "delete":
      return (await client.delete({
        apiVersion: step.target.apiVersion,
        kind: step.target.kind,
        metadata: { name: step.target.name, namespace: step.target.namespace },
      }))
        ? "continue"
        : "unchanged";
    case "retain":
      await release(client, step);
      return "continue";
    case "release-capability":
      await context.installer.release(step.capability, step.consumers);
      return "continue";
    case "remove-finalizer":
      await removeFinalizer(client, POSTGRES_CLUSTER_PLURAL, resource);
      return "continue";
  }
}

/**
 * Reads the resource again after its finalizer was just added: the status write that ends the pass is
 * conditional on the resourceVersion, which adding the finalizer changed.
 */
async function withFinalizer(context: ReconcileContext, resource: PostgresCluster): Promise<PostgresCluster> {
  const had = resource.metadata.deletionTimestamp || resource.metadata.finalizers?.includes(FINALIZER);
  await ensureFinalizer(context.client, POSTGRES_CLUSTER_PLURAL, resource);
  if (had) return resource;
  return (await readPostgresCluster(context.client, resource.metadata.namespace, resource.metadata.name)) ?? resource;
}

/**
 * One reconcile pass of a PostgresCluster stored in the cluster: observe, plan, perform the steps in
 * order (stopping after operators are ensured, so that their new kinds are discovered before use), record
 * Events, write status. Safe to repeat: every step is idempotent and a pass interrupted anywhere leaves a
 * state the next pass converges from. "Not ready yet" is `requeue`, never an exception.
 *
 * A step that fails ends the pass as a failure on the resource: its phase condition (OperatorsReady or
 * DatastoreReady) and Ready False with the failure's reason and summary, one Warning Event per distinct
 * cause, the status written all the same; then the pass throws a ReconcileFailure, which the operator
 * retries with backoff and Pulumi shows as the error. Only what changed something is reported: a pass
 * that finds everything in place logs nothing and writes nothing.
 */
export async function reconcilePostgresCluster(
  context: ReconcileContext,
  stored: PostgresCluster,
): Promise<ReconcileOutcome> {
  const report = context.report ?? silentReporter;
  const now = context.now ?? (() => new Date());
  const resource = await withFinalizer(context, stored);
  const where = `${resource.metadata.namespace}/${resource.metadata.name}`;
  const observation = await observePostgresCluster(
    context.client,
    context.installer,
    resource,
    observeOptions(context),
  );
  let plan = planPostgresCluster(resource, observation, context);
  const performed: string[] = [];
  let stoppedEarly = false;
  let failure: ReconcileFailure | undefined;
  for (const step of plan.steps) {
    let next: StepResult;
    try {
      next = await execute(context, resource, step, observation);
    } catch (error) {
      const cause = stepFailureOf(step, error);
      plan = failedPlan(resource, plan, step, cause);
      failure = new ReconcileFailure(`PostgresCluster ${where}`, failurePhase(step), cause);
      break;
    }
    performed.push(step.description);
    if (next !== "unchanged") report(`[${where}] ${step.description}`);
    if (next === "stop") {
      stoppedEarly = true;
      break;
    }
  }
  await recordEvents(context.client, resource, plan.events, now(), report);
  const finalized = !failure && plan.steps.some((s) => s.kind === "remove-finalizer");
  const written = finalized
    ? "unchanged"
    : await writeStatus(context.client, POSTGRES_CLUSTER_PLURAL, resource, plan.status, now());
  if (failure) throw failure;
  // Changed meanwhile by another process: the next pass decides from what it wrote.
  const requeue = plan.requeue || stoppedEarly || written === "conflict";
  return { plan, performed, requeue, finalized };
}
