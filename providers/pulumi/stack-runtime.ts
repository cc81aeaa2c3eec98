/**
 * What the Stack's dynamic provider runs, inside the provider process; imported at call time by the
 * serialized provider (see runtime-provider.ts), like runtime.ts.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { API_GROUP, API_VERSION } from "../../lib/api/group.js";
import type { PostgresClusterStatus } from "../../lib/api/postgres-cluster.js";
import { STACK_KIND, STACK_PLURAL, StackSpec, type StackSpecInput } from "../../lib/api/stack.js";
import { orUndefined } from "../../lib/cluster/kube-client.js";
import { readStack } from "../../lib/observe/stack.js";
import { MEMBER_NAME_TAKEN, MEMBERS_READY, type StackPlan } from "../../lib/plan/stack.js";
import { reconcileStack, reconcileStackDeletion } from "../../lib/reconcile/stack.js";
import { type ClusterInputs, checkSpec, contextFor, prepareCluster, reconcileOnce, unlessVanished } from "./runtime.js";

/** The Stack dynamic resource's inputs, as stored in the Pulumi state (no secret among them). */
export interface StackInputs extends ClusterInputs {
  readonly namespace: string;
  readonly name: string;
  readonly spec: StackSpecInput;
  readonly timeoutSeconds: number;
}

/** Where consumers connect to a Stack's PostgreSQL member: no secret, the Secret's name only. */
export interface StackPostgresOutput {
  readonly host: string;
  readonly port: number;
  readonly credentialsSecret: { readonly name: string; readonly namespace: string };
}

export interface StackOutputs extends StackInputs {
  /** The resources the Stack created and keeps in step. */
  readonly members: readonly { readonly kind: string; readonly namespace: string; readonly name: string }[];
  readonly postgres: StackPostgresOutput;
}

const PASS_INTERVAL_MS = 1_000;

/** Pulumi's `check` of a Stack. */
export function check(news: StackInputs) {
  return checkSpec(StackSpec, news);
}

/**
 * What Pulumi cannot wait out, as an error: the licence skipping or refusing the Stack (naming the
 * feature or cap and how to get it), or a member name held by a resource the Stack did not create.
 */
function failIfBlocked(where: string, plan: StackPlan): void {
  const { refusal } = plan;
  if (refusal) {
    const verb = refusal.reason === "FeatureNotLicensed" ? "skipped" : "refused";
    throw new Error(`${where} ${verb} by the licence: ${refusal.message}`);
  }
  const members = plan.conditions.find((c) => c.type === MEMBERS_READY);
  if (members?.reason === MEMBER_NAME_TAKEN) throw new Error(`${where}: ${members.message}`);
}

/** The outputs of a Ready Stack: its members, and where its PostgreSQL is (never the password). */
function outputsOf(inputs: StackInputs, plan: StackPlan, postgres: PostgresClusterStatus | undefined): StackOutputs {
  return {
    ...inputs,
    members: plan.status.members.map(({ kind, namespace, name }) => ({ kind, namespace, name })),
    postgres: {
      host: postgres?.host ?? "",
      port: postgres?.port ?? 5432,
      credentialsSecret: {
        name: postgres?.credentialsSecret?.name ?? "",
        namespace: postgres?.credentialsSecret?.namespace ?? inputs.namespace,
      },
    },
  };
}

/**
 * Create or update: records the Stack custom resource, then reconciles it and its members pass after
 * pass until every member is Ready. Pulumi runs no operator, so the members are reconciled here — by the
 * same core functions the operator calls. A Stack the licence skips or refuses is an error naming the
 * feature or cap and how to get it; the custom resource stays, with that condition and Event.
 */
export async function up(
  inputs: StackInputs,
  trustedKeys?: ReadonlyMap<string, string>,
): Promise<{ id: string; outs: StackOutputs }> {
  const context = contextFor(inputs, trustedKeys);
  const { client } = context;
  const where = `Stack ${inputs.namespace}/${inputs.name}`;
  await prepareCluster(client, inputs.namespace);
  await client.apply({
    apiVersion: `${API_GROUP}/${API_VERSION}`,
    kind: STACK_KIND,
    metadata: { name: inputs.name, namespace: inputs.namespace },
    // Parsed again at this boundary: the defaults are written out, so the object says exactly what runs.
    spec: StackSpec.parse(inputs.spec),
  } as never);
  const deadline = Date.now() + inputs.timeoutSeconds * 1000;
  for (;;) {
    const stack = await readStack(client, inputs.namespace, inputs.name);
    if (!stack) throw new Error(`${where} vanished while being reconciled`);
    const outcome = await reconcileStack(context, stack);
    failIfBlocked(where, outcome.plan);
    const memberStatuses = [];
    for (const member of outcome.plan.members) {
      memberStatuses.push((await reconcileOnce(context, inputs.namespace, member.metadata.name)).plan.status);
    }
    if (!outcome.requeue) {
      return { id: `${inputs.namespace}/${inputs.name}`, outs: outputsOf(inputs, outcome.plan, memberStatuses[0]) };
    }
    if (Date.now() > deadline) {
      const ready = outcome.plan.conditions.find((c) => c.type === "Ready");
      throw new Error(`${where} was not Ready after ${inputs.timeoutSeconds}s: ${ready?.message ?? "unknown"}`);
    }
    await sleep(PASS_INTERVAL_MS);
  }
}

/**
 * Delete: deletes the Stack and runs its finalization to the end, as the operator would — the Stack
 * deletes its members, each member is finalized (its release rules and deletion policy), and the Stack's
 * finalizer goes last.
 */
export async function destroy(inputs: StackInputs, trustedKeys?: ReadonlyMap<string, string>): Promise<void> {
  const context = contextFor(inputs, trustedKeys);
  const { client } = context;
  if (!(await readStack(client, inputs.namespace, inputs.name))) return;
  await orUndefined(
    client.custom.deleteNamespacedCustomObject({
      group: API_GROUP,
      version: API_VERSION,
      plural: STACK_PLURAL,
      namespace: inputs.namespace,
      name: inputs.name,
    }),
  );
  const deadline = Date.now() + inputs.timeoutSeconds * 1000;
  let waitingFor = "";
  for (;;) {
    const stack = await readStack(client, inputs.namespace, inputs.name);
    if (!stack) return;
    const outcome = await unlessVanished(
      () => reconcileStackDeletion(context, stack),
      async () => (await readStack(client, inputs.namespace, inputs.name)) === undefined,
    );
    if (!outcome) return;
    waitingFor = outcome.plan.conditions[0]?.message ?? waitingFor;
    if (Date.now() > deadline) {
      throw new Error(
        `Stack ${inputs.namespace}/${inputs.name} was not deleted after ${inputs.timeoutSeconds}s: ${waitingFor}`,
      );
    }
    await sleep(PASS_INTERVAL_MS / 4);
  }
}
