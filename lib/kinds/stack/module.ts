import * as z from "zod";
import { type Condition, READY, stalledOf } from "../../api/conditions.js";
import { API_GROUP_VERSION } from "../../api/group.js";
import type { Connection } from "../../api/resource-status.js";
import type { Desired, KindModule } from "../../engine/kind-module.js";
import { type KubeObject, keyOf, labelOf } from "../../engine/objects.js";
import { outputsProjection } from "../../engine/outputs.js";
import { ownedBy, ownerReference } from "../../engine/ownership.js";
import type { EngineView } from "../../engine/view.js";
import { SecretOutput } from "../datastore/connection-outputs.js";
import { POSTGRES_CLUSTER_DEFINITION, POSTGRES_CLUSTER_KIND } from "../postgres-cluster/schema.js";
import { postgresConnection, type WrittenPostgresStatus } from "../postgres-cluster/status-connection.js";
import {
  STACK_DEFINITION,
  STACK_FEATURE,
  STACK_POSTGRES_SUFFIX,
  Stack,
  type StackMember,
  type StackStatus,
  stackName,
} from "./schema.js";

/** Condition type: whether every member reports Ready. */
export const MEMBERS_READY = "MembersReady";

/** The name of a Stack's PostgreSQL member: `<stack>-postgres`. */
export function postgresMemberName(stackName: string): string {
  return `${stackName}${STACK_POSTGRES_SUFFIX}`;
}

/**
 * The members a Stack is made of, as objects to apply: today its managed PostgreSQL. Each carries, once
 * the Stack exists, a controller owner reference: should the Stack's finalizer be removed by hand, the
 * garbage collector still deletes its members. (The engine adds the ownership marks.)
 */
export function stackMembers(stack: Stack): KubeObject[] {
  const { name, namespace, uid } = stack.metadata;
  return [
    {
      apiVersion: API_GROUP_VERSION,
      kind: POSTGRES_CLUSTER_KIND,
      metadata: {
        name: postgresMemberName(name),
        namespace,
        ...(uid ? { ownerReferences: [ownerReference(stack)] } : {}),
      },
      spec: {
        type: "cnpg",
        mode: "managed",
        managed: stack.spec.postgres.managed,
        databases: stack.spec.postgres.databases,
      },
    },
  ];
}

/** What the Stack reads of a live member: its conditions, and where it says consumers connect. */
interface MemberStatus extends WrittenPostgresStatus {
  readonly conditions?: readonly Condition[];
}

function desiredStack(stack: Stack, view: EngineView): Desired<StackStatus> {
  const members = stackMembers(stack);
  const live = (member: KubeObject) => {
    const found = view.objects.get(keyOf(member));
    // Only the Stack's own member counts: a resource of that name it did not create is not its member.
    return ownedBy(stack, found) ? (found?.status as MemberStatus | undefined) : undefined;
  };
  const statuses: StackMember[] = members.map((member) => ({
    kind: member.kind,
    name: member.metadata.name,
    namespace: stack.metadata.namespace,
    ready: live(member)?.conditions?.some((c) => c.type === READY && c.status === "True") ?? false,
  }));
  const waiting = members.filter((_, i) => !statuses[i]?.ready);
  // A member that cannot go on without a change holds the Stack as well.
  const stalled = waiting.some((m) => stalledOf(live(m)?.conditions) !== undefined);
  const postgres = live(members[0] as KubeObject);
  // The member's `status.connection` (or, written by an earlier release, its top-level fields), its
  // Secret placed in the Stack's namespace, where the member is.
  const said = postgresConnection(postgres);
  const connection: Connection | undefined = said && {
    ...said,
    ...(said.credentialsSecret
      ? {
          credentialsSecret: {
            name: said.credentialsSecret.name,
            namespace: said.credentialsSecret.namespace ?? stack.metadata.namespace,
          },
        }
      : {}),
  };
  return {
    steps: members.map((object) => ({
      kind: "apply" as const,
      object,
      description: `apply ${object.kind} ${object.metadata.namespace}/${object.metadata.name} (member of the Stack)`,
    })),
    status: { members: statuses, ...(connection ? { postgres: connection } : {}) },
    readyMessage: "every member is Ready",
    verdict:
      waiting.length === 0
        ? { ok: true, reason: "MembersReady", message: "every member is Ready" }
        : {
            ok: false,
            reason: "WaitingForMembers",
            ...(stalled ? { stalled } : {}),
            message: `waiting for ${waiting
              .map((m) => {
                const why = live(m)?.conditions?.find((c) => c.type === READY)?.message ?? "not created yet";
                return `${labelOf({ kind: m.kind, name: m.metadata.name, namespace: m.metadata.namespace ?? "" })} (${why})`;
              })
              .join(", ")}`,
          },
  };
}

/**
 * Stack: a curated bundle of the platform's parts (licensed feature `stack`), whose members — product
 * resources of their own kinds — it creates, owns and keeps in step; deleted first when it is (docs/stack.md).
 */
export const STACK_MODULE: KindModule<Stack, StackStatus> = {
  definition: STACK_DEFINITION,
  schema: Stack,
  name: stackName,
  licence: { feature: STACK_FEATURE },
  phase: MEMBERS_READY,
  needs: () => [],
  emits: [
    {
      apiVersion: API_GROUP_VERSION,
      kind: POSTGRES_CLUSTER_KIND,
      plural: POSTGRES_CLUSTER_DEFINITION.plural,
      product: true,
    },
  ],
  observes: () => [],
  references: () => [],
  referencesKinds: [],
  desired: desiredStack,
  outputs: outputsProjection({
    schema: z.object({
      members: z
        .array(z.object({ kind: z.string(), namespace: z.string(), name: z.string() }))
        .describe("The resources the Stack created and keeps in step, e.g. its PostgresCluster `<name>-postgres`."),
      postgres: z
        .object({
          host: z.string().describe("Host consumers connect to."),
          port: z.number().int().describe("Port consumers connect to."),
          credentialsSecret: SecretOutput.describe(
            "The Secret holding username and password: its name only, no secret.",
          ),
        })
        .describe(
          "Where consumers connect to the Stack's PostgreSQL: host, port and the Secret holding the credentials.",
        ),
    }),
    secrets: [],
    project: (status, namespace) => ({
      members: status.members.map(({ kind, namespace: ns, name }) => ({ kind, namespace: ns, name })),
      postgres: {
        host: status.postgres?.host ?? "",
        port: status.postgres?.port ?? 5432,
        credentialsSecret: {
          name: status.postgres?.credentialsSecret?.name ?? "",
          namespace: status.postgres?.credentialsSecret?.namespace ?? namespace,
        },
      },
    }),
  }),
};
