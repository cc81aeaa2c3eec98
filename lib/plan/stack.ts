import { type Condition, READY, type ReportedFailure, reportedBefore } from "../api/conditions.js";
import { API_GROUP_VERSION, OWNED_BY_LABEL } from "../api/group.js";
import { POSTGRES_CLUSTER_KIND, type PostgresCluster } from "../api/postgres-cluster.js";
import {
  STACK_FEATURE,
  STACK_KIND,
  STACK_POSTGRES_SUFFIX,
  type Stack,
  type StackMember,
  type StackStatus,
} from "../api/stack.js";
import { enforceCap, enforceFeature, type Instance, LICENSED, type LicenceRefusal } from "../licence/enforce.js";
import type { Entitlements } from "../licence/entitlements.js";
import { withFailure } from "./failed-plan.js";
import type { KubeObject, PlannedEvent } from "./postgres-cluster.js";

/** Condition type: whether every member reports Ready. */
export const MEMBERS_READY = "MembersReady";
/** Reason: a resource the Stack did not create holds a member's name. */
export const MEMBER_NAME_TAKEN = "MemberNameTaken";

/** What planning one Stack needs to know about the cluster; gathered by observe/stack.ts. */
export interface StackObservation {
  /** The entitlements in force, and every Stack as the cap sees it (this one included). */
  readonly licence: { readonly entitlements: Entitlements; readonly instances: readonly Instance[] };
  /** The live members, by name; a member not created yet is absent. */
  readonly members: ReadonlyMap<string, PostgresCluster>;
}

export type StackStep =
  | { readonly kind: "apply"; readonly object: KubeObject; readonly description: string }
  | {
      readonly kind: "delete";
      readonly target: { readonly kind: string; readonly name: string; readonly namespace: string };
      readonly description: string;
    }
  | { readonly kind: "remove-finalizer"; readonly description: string };

export interface StackPlan {
  /** Set when the licence skips or refuses this Stack: nothing is applied, members are left as they are. */
  readonly refusal?: LicenceRefusal;
  /** The members as the Stack wants them: applied in order, every pass (which also undoes drift). */
  readonly members: readonly KubeObject[];
  readonly steps: readonly StackStep[];
  readonly conditions: readonly Condition[];
  readonly events: readonly PlannedEvent[];
  readonly status: StackStatus;
  readonly requeue: boolean;
}

/** The owned-by label value of a Stack's members: `stack.<namespace>.<name>`. */
export function stackOwnedBy(stack: Stack): string {
  return `stack.${stack.metadata.namespace}.${stack.metadata.name}`.slice(0, 63).replace(/[-.]+$/, "");
}

/** `stack.<namespace>.<name>` (the owned-by label of a member) → the Stack's `<namespace>/<name>`. */
export function stackOfMember(ownedBy: string | undefined): string | undefined {
  const match = /^stack\.([a-z0-9-]+)\.(.+)$/.exec(ownedBy ?? "");
  return match ? `${match[1]}/${match[2]}` : undefined;
}

/** The name of a Stack's PostgreSQL member: `<stack>-postgres`. */
export function postgresMemberName(stackName: string): string {
  return `${stackName}${STACK_POSTGRES_SUFFIX}`;
}

/**
 * The members a Stack is made of, as objects to apply: today its managed PostgreSQL. Each carries the
 * owned-by label (which makes it the Stack's) and, once the Stack exists, a controller owner reference:
 * should the Stack's finalizer be removed by hand, the garbage collector still deletes its members.
 */
export function stackMembers(stack: Stack): KubeObject[] {
  const { name, namespace, uid } = stack.metadata;
  const postgres = {
    apiVersion: API_GROUP_VERSION,
    kind: POSTGRES_CLUSTER_KIND,
    metadata: {
      name: postgresMemberName(name),
      namespace,
      labels: { [OWNED_BY_LABEL]: stackOwnedBy(stack) },
      ...(uid
        ? {
            ownerReferences: [
              {
                apiVersion: API_GROUP_VERSION,
                kind: STACK_KIND,
                name,
                uid,
                controller: true,
                blockOwnerDeletion: true,
              },
            ],
          }
        : {}),
    },
    spec: {
      type: "cnpg",
      mode: "managed",
      managed: stack.spec.postgres.managed,
      databases: stack.spec.postgres.databases,
    },
  };
  return [postgres];
}

function condition(stack: Stack, type: string, ok: boolean, reason: string, message: string): Condition {
  return { type, status: ok ? "True" : "False", reason, message, observedGeneration: stack.metadata.generation ?? 0 };
}

function memberStatuses(stack: Stack, observation: StackObservation): StackMember[] {
  return stackMembers(stack).map((member) => {
    const found = observation.members.get(member.metadata.name);
    // Only the Stack's own member counts: a resource of that name it did not create is not its member.
    const live = found?.metadata.labels?.[OWNED_BY_LABEL] === stackOwnedBy(stack) ? found : undefined;
    return {
      kind: member.kind,
      name: member.metadata.name,
      namespace: stack.metadata.namespace,
      ready: live?.status?.conditions.some((c) => c.type === READY && c.status === "True") ?? false,
    };
  });
}

/** The instance a Stack is, for the cap: admitted once a pass admitted it, for as long as it exists. */
export function stackInstance(stack: Stack, now: string): Instance {
  return {
    namespace: stack.metadata.namespace,
    name: stack.metadata.name,
    creationTimestamp: stack.metadata.creationTimestamp ?? now,
    admitted: stack.status?.admitted === true,
  };
}

/** The licence's word on a Stack: the feature first (it says most), then the cap on new Stacks. */
function licenceDecision(stack: Stack, observation: StackObservation): LicenceRefusal | undefined {
  const where = `${STACK_KIND} ${stack.metadata.namespace}/${stack.metadata.name}`;
  const feature = enforceFeature(observation.licence.entitlements, STACK_FEATURE, where);
  if (!feature.allowed) return feature;
  const self = observation.licence.instances.find(
    (i) => i.namespace === stack.metadata.namespace && i.name === stack.metadata.name,
  );
  if (!self) return undefined;
  const cap = enforceCap(observation.licence.entitlements, STACK_KIND, observation.licence.instances, self);
  return cap.allowed ? undefined : cap;
}

/**
 * A Stack being deleted: its members are deleted first — each through its own finalizer and deletion
 * policy — and the Stack's finalizer goes last, once none is left; a stuck member keeps the Stack, which
 * says which member it waits for. Never licence-gated: deleting is always allowed.
 */
function deletionPlan(
  stack: Stack,
  members: readonly KubeObject[],
  statuses: readonly StackMember[],
  observation: StackObservation,
  ours: (name: string) => boolean,
): StackPlan {
  const left = members.filter((m) => observation.members.has(m.metadata.name) && ours(m.metadata.name));
  const label = (m: KubeObject) => `${m.kind} ${m.metadata.namespace}/${m.metadata.name}`;
  const steps: StackStep[] = left
    .filter((m) => !observation.members.get(m.metadata.name)?.metadata.deletionTimestamp)
    .map((m) => ({
      kind: "delete",
      target: { kind: m.kind, name: m.metadata.name, namespace: m.metadata.namespace ?? "" },
      description: `delete ${label(m)} (member of the Stack; its own deletion policy applies)`,
    }));
  if (left.length === 0)
    steps.push({ kind: "remove-finalizer", description: "remove the finalizer: every member is deleted" });
  const message =
    left.length === 0
      ? "every member is deleted"
      : `waiting for its members to be deleted: ${left
          .map((m) => {
            const why = observation.members.get(m.metadata.name)?.status?.conditions.find((c) => c.type === READY);
            return `${label(m)}${why ? ` (${why.message})` : ""}`;
          })
          .join(", ")}`;
  const conditions = [condition(stack, READY, false, "Deleting", message)];
  return {
    members,
    steps,
    conditions,
    events: [],
    status: {
      ...stack.status,
      conditions,
      members: statuses.filter((m) => left.some((l) => l.metadata.name === m.name)),
    },
    requeue: left.length > 0,
  };
}

/**
 * The one decision function for a Stack: from the Stack and the observed cluster to the members to
 * apply, the conditions and Events to report and the status to write. Pure, like every planner. A Stack
 * the licence skips gets nothing applied; members it created before keep running untouched (this is
 * how a downgrade at expiry loses nothing). A member name held by a resource the Stack did not create is
 * never taken over.
 */
export function planStack(stack: Stack, observation: StackObservation): StackPlan {
  const members = stackMembers(stack);
  const statuses = memberStatuses(stack, observation);
  const ours = (name: string) =>
    observation.members.get(name)?.metadata.labels?.[OWNED_BY_LABEL] === stackOwnedBy(stack);
  if (stack.metadata.deletionTimestamp) return deletionPlan(stack, members, statuses, observation, ours);
  const refusal = licenceDecision(stack, observation);
  if (refusal) {
    const existing = statuses.filter((m) => ours(m.name));
    const kept =
      existing.length > 0
        ? ` Its members (${existing.map((m) => `${m.kind} ${m.namespace}/${m.name}`).join(", ")}) keep running as they are; the Stack no longer changes them.`
        : "";
    const conditions = [
      condition(stack, READY, false, refusal.reason, `${refusal.message}${kept}`),
      condition(stack, LICENSED, false, refusal.reason, refusal.message),
    ];
    return {
      refusal,
      members,
      steps: [],
      conditions,
      events: !reportedBefore(stack.status?.conditions, LICENSED, refusal.reason)
        ? [{ type: "Warning", reason: refusal.reason, message: `${refusal.message}${kept}` }]
        : [],
      status: {
        observedGeneration: stack.metadata.generation ?? 0,
        conditions,
        ...(stack.status?.admitted ? { admitted: true } : {}),
        members: existing,
      },
      requeue: false,
    };
  }
  const { entitlements } = observation.licence;
  const edition = entitlements.edition === "Licensed" ? `licence ${entitlements.licenseId}` : "the Community edition";
  // A resource of a member's name that this Stack did not create is someone else's: never taken over.
  const taken = members.filter((m) => observation.members.has(m.metadata.name) && !ours(m.metadata.name));
  const waiting = statuses.filter((m) => !m.ready);
  const membersReady =
    taken.length > 0
      ? condition(
          stack,
          MEMBERS_READY,
          false,
          MEMBER_NAME_TAKEN,
          `${taken.map((m) => `${m.kind} ${m.metadata.namespace}/${m.metadata.name}`).join(", ")} already exists and is not this Stack's: it is left alone. Rename the Stack, or delete or rename that resource`,
        )
      : waiting.length === 0
        ? condition(stack, MEMBERS_READY, true, "MembersReady", "every member is Ready")
        : condition(
            stack,
            MEMBERS_READY,
            false,
            "WaitingForMembers",
            `waiting for ${waiting
              .map((m) => {
                const live = observation.members.get(m.name);
                const why = live?.status?.conditions.find((c) => c.type === READY)?.message ?? "not created yet";
                return `${m.kind} ${m.namespace}/${m.name} (${why})`;
              })
              .join(", ")}`,
          );
  const conditions = [
    condition(stack, READY, membersReady.status === "True", membersReady.reason, membersReady.message),
    condition(stack, LICENSED, true, "Admitted", `admitted under ${edition}`),
    membersReady,
  ];
  return {
    members,
    steps: members
      .filter((object) => !taken.includes(object))
      .map((object) => ({
        kind: "apply" as const,
        object,
        description: `apply ${object.kind} ${object.metadata.namespace}/${object.metadata.name} (member of the Stack)`,
      })),
    conditions,
    events: [],
    status: { observedGeneration: stack.metadata.generation ?? 0, conditions, admitted: true, members: statuses },
    // A taken name does not free itself: the resync and the other resource's changes bring the Stack back.
    requeue: taken.length === 0 && waiting.length > 0,
  };
}

/** The condition a failed Stack step is reported on: MembersReady for a member's apply or deletion, Ready alone for the finalizer. */
export function stackFailurePhase(step: StackStep): string {
  return step.kind === "remove-finalizer" ? READY : MEMBERS_READY;
}

/**
 * The plan of a Stack pass whose `step` failed, as it is reported: the step's condition and Ready False
 * with the failure's reason and message, and one Warning Event unless the Stack already reports it.
 */
export function failedStackPlan(
  stack: Stack,
  plan: StackPlan,
  step: StackStep,
  failure: ReportedFailure & { readonly fingerprint: string },
): StackPlan {
  return withFailure(stack, plan, stackFailurePhase(step), failure);
}
