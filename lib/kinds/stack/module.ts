import * as z from "zod";
import { type Condition, READY, reportedBefore, stalledOf } from "../../api/conditions.js";
import { API_GROUP_VERSION } from "../../api/group.js";
import type { Connection } from "../../api/resource-status.js";
import { AUTO_WIRING } from "../../engine/dependencies.js";
import type { Desired, KindModule } from "../../engine/kind-module.js";
import { type KubeObject, keyOf, labelOf } from "../../engine/objects.js";
import { outputsProjection } from "../../engine/outputs.js";
import { ownedBy, ownerReference } from "../../engine/ownership.js";
import type { EngineView } from "../../engine/view.js";
import { edition } from "../../licence/enforce.js";
import { HOW_TO_LICENSE } from "../../licence/entitlements.js";
import { SecretOutput } from "../datastore/connection-outputs.js";
import { POSTGRES_CLUSTER_KIND } from "../postgres-cluster/schema.js";
import { postgresConnection, type WrittenPostgresStatus } from "../postgres-cluster/status-connection.js";
import { memberName, presentParts, STACK_PARTS, type StackPart, type StackPartField, stackPart } from "./parts.js";
import {
  DEFAULT_STACK_CLICKHOUSE_MANAGED,
  DEFAULT_STACK_MEILISEARCH_MANAGED,
  DEFAULT_STACK_MONGO_MANAGED,
  DEFAULT_STACK_REDIS_MANAGED,
  STACK_DEFINITION,
  STACK_FEATURE,
  Stack,
  type StackMember,
  type StackStatus,
  stackName,
} from "./schema.js";

/** Condition type: whether every member reports Ready. */
export const MEMBERS_READY = "MembersReady";

/** The reason a Stack gives when its consumers cannot be wired under the licence in force. */
export const AUTO_WIRING_REQUIRED = "AutoWiringRequired";

/** The name of a Stack's PostgreSQL member: `<stack>-postgres`. */
export function postgresMemberName(stackName: string): string {
  return memberName(stackName, stackPart("postgres"));
}

/** A reference to another member, by name: members live in the Stack's namespace. */
const ref = (stack: Stack, field: StackPartField) => ({ name: memberName(stack.metadata.name, stackPart(field)) });

/** The spec of each part's member, from the Stack's spec: the datastores managed, the consumers wired. */
function memberSpec(stack: Stack, field: StackPartField): Record<string, unknown> {
  const spec = stack.spec;
  switch (field) {
    case "postgres":
      return { type: "cnpg", mode: "managed", managed: spec.postgres.managed, databases: spec.postgres.databases };
    case "clickhouse":
      return { mode: "managed", managed: spec.clickhouse?.managed ?? DEFAULT_STACK_CLICKHOUSE_MANAGED };
    case "redis":
      return { mode: "managed", managed: spec.redis?.managed ?? DEFAULT_STACK_REDIS_MANAGED };
    case "mongo":
      return { mode: "managed", managed: spec.mongo?.managed ?? DEFAULT_STACK_MONGO_MANAGED };
    case "meilisearch":
      return { mode: "managed", managed: spec.meilisearch?.managed ?? DEFAULT_STACK_MEILISEARCH_MANAGED };
    case "observability":
      return {
        ...spec.observability,
        postgresClusterRef: ref(stack, "postgres"),
        clickhouseClusterRef: ref(stack, "clickhouse"),
        redisInstanceRef: ref(stack, "redis"),
      };
    case "gateway":
      return {
        ...spec.gateway,
        database: { mode: "postgresCluster", postgresClusterRef: ref(stack, "postgres") },
        ...(spec.observability ? { observabilityRef: ref(stack, "observability") } : {}),
      };
    case "chatUI":
      return {
        ...spec.chatUI,
        gatewayRef: ref(stack, "gateway"),
        mongoClusterRef: ref(stack, "mongo"),
        meilisearchInstanceRef: ref(stack, "meilisearch"),
      };
  }
}

/**
 * The members a Stack is made of, each with its part, as objects to apply in the order of STACK_PARTS: its
 * datastores, then its consumers. Each carries, once the Stack exists, a controller owner reference:
 * should the Stack's finalizer be removed by hand, the garbage collector still deletes its members. (The
 * engine adds the ownership marks.)
 */
export function stackMembers(stack: Stack): { readonly part: StackPart; readonly object: KubeObject }[] {
  const { name, namespace, uid } = stack.metadata;
  return presentParts(stack.spec).map((part) => ({
    part,
    object: {
      apiVersion: API_GROUP_VERSION,
      kind: part.kind,
      metadata: {
        name: memberName(name, part),
        namespace,
        ...(uid ? { ownerReferences: [ownerReference(stack)] } : {}),
      },
      spec: memberSpec(stack, part.field),
    },
  }));
}

/** What the Stack reads of a live member: its conditions, and where it says consumers connect. */
interface MemberStatus extends WrittenPostgresStatus {
  readonly conditions?: readonly Condition[];
}

function desiredStack(stack: Stack, view: EngineView): Desired<StackStatus> {
  const { entitlements } = view.licence;
  const wire = entitlements.features.has(AUTO_WIRING);
  const found = (member: KubeObject) => ownedBy(stack, view.objects.get(keyOf(member)));
  // Without auto-wiring a consumer is not created: emitted, it would only stall on a manual field the
  // Stack does not let one fill. One the Stack made before (the licence changed since) is kept in step,
  // never collected: it reports its own wiring, and losing a licence feature deletes nothing.
  const all = stackMembers(stack);
  const withheld = all.filter(({ part, object }) => part.wired && !wire && !found(object));
  const members = all.filter((member) => !withheld.includes(member)).map(({ object }) => object);
  const unwired = withheld.map(({ part }) => part);
  // Only the Stack's own member counts: a resource of that name it did not create is not its member.
  const live = (member: KubeObject) =>
    found(member) ? (view.objects.get(keyOf(member))?.status as MemberStatus | undefined) : undefined;
  const statuses: StackMember[] = members.map((member) => ({
    kind: member.kind,
    name: member.metadata.name,
    namespace: stack.metadata.namespace,
    ready: live(member)?.conditions?.some((c) => c.type === READY && c.status === "True") ?? false,
  }));
  const waiting = members.filter((_, i) => !statuses[i]?.ready);
  // A member that cannot go on without a change holds the Stack as well.
  const stalled = waiting.some((m) => stalledOf(live(m)?.conditions) !== undefined);
  const postgres = live(members.find((m) => m.kind === POSTGRES_CLUSTER_KIND) as KubeObject);
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
  const unwiredMessage = `${unwired.map((p) => `spec.${p.field}`).join(", ")} ${unwired.length > 1 ? "are" : "is"} not created: the Stack wires its consumers to its datastores itself, and ${edition(entitlements)} does not include auto-wiring. Remove ${unwired.length > 1 ? "them" : "it"} (and declare ${unwired.length > 1 ? "those resources" : "that resource"} on ${unwired.length > 1 ? "their" : "its"} own, wired by hand), or ${HOW_TO_LICENSE}`;
  // Said once, as a Warning Event, when it starts: not at every pass while it lasts.
  const announce =
    unwired.length > 0 && !reportedBefore(stack.status?.conditions, READY, AUTO_WIRING_REQUIRED)
      ? [{ type: "Warning" as const, reason: AUTO_WIRING_REQUIRED, message: unwiredMessage }]
      : [];
  return {
    events: announce,
    steps: members.map((object) => ({
      kind: "apply" as const,
      object,
      description: `apply ${object.kind} ${object.metadata.namespace}/${object.metadata.name} (member of the Stack)`,
    })),
    status: { members: statuses, ...(connection ? { postgres: connection } : {}) },
    readyMessage: "every member is Ready",
    verdict:
      unwired.length > 0
        ? {
            ok: false,
            reason: AUTO_WIRING_REQUIRED,
            stalled: true,
            message: unwiredMessage,
          }
        : waiting.length === 0
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
 * Stack: the platform as one resource (licensed feature `stack`), whose members — product resources of
 * their own kinds, its datastores and its consumers wired to them — it creates, owns and keeps in step;
 * deleted first when it is (docs/stack.md).
 */
export const STACK_MODULE: KindModule<Stack, StackStatus> = {
  definition: STACK_DEFINITION,
  schema: Stack,
  name: stackName,
  licence: { feature: STACK_FEATURE },
  phase: MEMBERS_READY,
  needs: () => [],
  emits: STACK_PARTS.map((part) => ({
    apiVersion: API_GROUP_VERSION,
    kind: part.kind,
    plural: part.plural,
    product: true,
  })),
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
