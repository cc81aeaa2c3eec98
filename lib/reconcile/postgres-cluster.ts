import { randomBytes } from "node:crypto";
import { OWNED_BY_LABEL } from "../api/group.js";
import { POSTGRES_CLUSTER_PLURAL, type PostgresCluster } from "../api/postgres-cluster.js";
import type { CapabilityInstaller } from "../apply/capability-installer.js";
import { type KubeClient, orUndefined, statusOf } from "../cluster/kube-client.js";
import { type Reporter, silentReporter } from "../local-plane/progress.js";
import { observePostgresCluster } from "../observe/postgres-cluster.js";
import {
  CNPG_CAPABILITY,
  failedPlan,
  failurePhase,
  type PlanStep,
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

async function execute(
  context: ReconcileContext,
  resource: PostgresCluster,
  step: PlanStep,
): Promise<"continue" | "stop"> {
  const { client } = context;
  switch (step.kind) {
    case "ensure-capability":
      await context.installer.ensure(CNPG_CAPABILITY);
      return "stop";
    case "apply":
      await client.apply(step.object);
      return "continue";
    case "generate-credentials":
      await generateCredentials(client, step);
      return "continue";
    case "delete":
      await client.delete({
        apiVersion: step.target.apiVersion,
        kind: step.target.kind,
        metadata: { name: step.target.name, namespace: step.target.namespace },
      });
      return "continue";
    case "retain":
      await client.custom.patchNamespacedCustomObject(
        {
          group: step.target.apiVersion.split("/")[0] ?? "",
          version: step.target.apiVersion.split("/")[1] ?? "",
          plural: `${step.target.kind.toLowerCase()}s`,
          namespace: step.target.namespace,
          name: step.target.name,
          body: [{ op: "remove", path: `/metadata/labels/${OWNED_BY_LABEL.replace("/", "~1")}` }],
        },
        undefined,
      );
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
 * One reconcile pass of a PostgresCluster stored in the cluster: observe, plan, perform the steps in
 * order (stopping after operators are ensured, so that their new kinds are discovered before use), record
 * Events, write status. Safe to repeat: every step is idempotent and a pass interrupted anywhere leaves a
 * state the next pass converges from. "Not ready yet" is `requeue`, never an exception.
 *
 * A step that fails ends the pass as a failure on the resource: its phase condition (OperatorsReady or
 * DatastoreReady) and Ready False with the failure's reason and summary, one Warning Event per distinct
 * cause, the status written all the same; then the pass throws a ReconcileFailure, which the operator
 * retries with backoff and Pulumi shows as the error.
 */
export async function reconcilePostgresCluster(
  context: ReconcileContext,
  resource: PostgresCluster,
): Promise<ReconcileOutcome> {
  const report = context.report ?? silentReporter;
  const now = context.now ?? (() => new Date());
  const where = `${resource.metadata.namespace}/${resource.metadata.name}`;
  await ensureFinalizer(context.client, POSTGRES_CLUSTER_PLURAL, resource);
  let plan = await previewPostgresCluster(context, resource);
  const performed: string[] = [];
  let stoppedEarly = false;
  let failure: ReconcileFailure | undefined;
  for (const step of plan.steps) {
    report(`[${where}] ${step.description}`);
    let next: "continue" | "stop";
    try {
      next = await execute(context, resource, step);
    } catch (error) {
      const cause = stepFailureOf(step, error);
      plan = failedPlan(resource, plan, step, cause);
      failure = new ReconcileFailure(`PostgresCluster ${where}`, failurePhase(step), cause);
      break;
    }
    performed.push(step.description);
    if (next === "stop") {
      stoppedEarly = true;
      break;
    }
  }
  await recordEvents(context.client, resource, plan.events, now(), report);
  const finalized = !failure && plan.steps.some((s) => s.kind === "remove-finalizer");
  if (!finalized) await writeStatus(context.client, POSTGRES_CLUSTER_PLURAL, resource, plan.status, now());
  if (failure) throw failure;
  return { plan, performed, requeue: plan.requeue || stoppedEarly, finalized };
}
