import { CHAT_UI_KIND, CHAT_UI_PLURAL, MAX_CHAT_UI_NAME } from "../chat-ui/schema.js";
import {
  CLICKHOUSE_CLUSTER_KIND,
  CLICKHOUSE_CLUSTER_PLURAL,
  MAX_CLICKHOUSE_CLUSTER_NAME,
} from "../clickhouse-cluster/schema.js";
import { GATEWAY_KIND, GATEWAY_PLURAL, MAX_GATEWAY_NAME } from "../gateway/schema.js";
import {
  MAX_MEILISEARCH_INSTANCE_NAME,
  MEILISEARCH_INSTANCE_KIND,
  MEILISEARCH_INSTANCE_PLURAL,
} from "../meilisearch-instance/schema.js";
import { MAX_MONGO_CLUSTER_NAME, MONGO_CLUSTER_KIND, MONGO_CLUSTER_PLURAL } from "../mongo-cluster/schema.js";
import { MAX_OBSERVABILITY_NAME, OBSERVABILITY_KIND, OBSERVABILITY_PLURAL } from "../observability/schema.js";
import {
  MAX_POSTGRES_CLUSTER_NAME,
  POSTGRES_CLUSTER_KIND,
  POSTGRES_CLUSTER_PLURAL,
} from "../postgres-cluster/schema.js";
import { MAX_REDIS_INSTANCE_NAME, REDIS_INSTANCE_KIND, REDIS_INSTANCE_PLURAL } from "../redis-instance/schema.js";

// The one table of a Stack's parts: the spec field that declares each, the member it becomes (its kind
// and the suffix of its name after the Stack's) and the longest name that kind allows. The schema's name
// rules, the CRD's CEL rules, the members and the docs all read it.

/** The spec fields of a Stack's parts. */
export type StackPartField =
  | "postgres"
  | "clickhouse"
  | "redis"
  | "mongo"
  | "meilisearch"
  | "observability"
  | "gateway"
  | "chatUI";

export interface StackPart {
  readonly field: StackPartField;
  /** The member's kind, and the plural the API serves it under. */
  readonly kind: string;
  readonly plural: string;
  /** The member is named `<stack><suffix>`. */
  readonly suffix: string;
  /** The longest name of the member's kind (what it becomes upstream bounds it). */
  readonly maxName: number;
  /** What bounds that name upstream, where messages say it: `a CNPG Cluster's`. */
  readonly boundBy?: string;
  /**
   * When the member exists: `always`, or when the part is declared or any part of `neededBy` is (a
   * datastore its consumers share), or only when declared (a consumer).
   */
  readonly present: "always" | { readonly neededBy: readonly StackPartField[] };
  /** A consumer wired by the Stack itself from the other members: it needs the licensed feature auto-wiring. */
  readonly wired: boolean;
}

/** In the order members are applied: the datastores, then each consumer after what it uses. */
export const STACK_PARTS: readonly StackPart[] = [
  {
    field: "postgres",
    kind: POSTGRES_CLUSTER_KIND,
    plural: POSTGRES_CLUSTER_PLURAL,
    suffix: "-postgres",
    maxName: MAX_POSTGRES_CLUSTER_NAME,
    boundBy: "a CNPG Cluster's",
    present: "always",
    wired: false,
  },
  {
    field: "clickhouse",
    kind: CLICKHOUSE_CLUSTER_KIND,
    plural: CLICKHOUSE_CLUSTER_PLURAL,
    suffix: "-clickhouse",
    maxName: MAX_CLICKHOUSE_CLUSTER_NAME,
    present: { neededBy: ["observability"] },
    wired: false,
  },
  {
    field: "redis",
    kind: REDIS_INSTANCE_KIND,
    plural: REDIS_INSTANCE_PLURAL,
    suffix: "-redis",
    maxName: MAX_REDIS_INSTANCE_NAME,
    present: { neededBy: ["observability"] },
    wired: false,
  },
  {
    field: "mongo",
    kind: MONGO_CLUSTER_KIND,
    plural: MONGO_CLUSTER_PLURAL,
    suffix: "-mongo",
    maxName: MAX_MONGO_CLUSTER_NAME,
    present: { neededBy: ["chatUI"] },
    wired: false,
  },
  {
    field: "meilisearch",
    kind: MEILISEARCH_INSTANCE_KIND,
    plural: MEILISEARCH_INSTANCE_PLURAL,
    suffix: "-search",
    maxName: MAX_MEILISEARCH_INSTANCE_NAME,
    present: { neededBy: ["chatUI"] },
    wired: false,
  },
  {
    field: "observability",
    kind: OBSERVABILITY_KIND,
    plural: OBSERVABILITY_PLURAL,
    suffix: "-langfuse",
    maxName: MAX_OBSERVABILITY_NAME,
    present: { neededBy: [] },
    wired: true,
  },
  {
    field: "gateway",
    kind: GATEWAY_KIND,
    plural: GATEWAY_PLURAL,
    suffix: "-gateway",
    maxName: MAX_GATEWAY_NAME,
    present: { neededBy: [] },
    wired: true,
  },
  {
    field: "chatUI",
    kind: CHAT_UI_KIND,
    plural: CHAT_UI_PLURAL,
    suffix: "-chat",
    maxName: MAX_CHAT_UI_NAME,
    present: { neededBy: [] },
    wired: true,
  },
];

/** The part of a field. */
export function stackPart(field: StackPartField): StackPart {
  const part = STACK_PARTS.find((p) => p.field === field);
  if (!part) throw new Error(`no Stack part ${field}`);
  return part;
}

/** The fields whose presence in a spec makes the part a member: itself and the consumers that need it. */
export function fieldsBringing(part: StackPart): readonly StackPartField[] {
  return part.present === "always" ? [] : [part.field, ...part.present.neededBy];
}

/** The parts a spec makes members of, in STACK_PARTS's order. */
export function presentParts(spec: Partial<Record<StackPartField, unknown>>): StackPart[] {
  return STACK_PARTS.filter(
    (part) => part.present === "always" || fieldsBringing(part).some((field) => spec[field] !== undefined),
  );
}

/** The name of a Stack's member for a part: `<stack><suffix>`. */
export function memberName(stackName: string, part: StackPart): string {
  return `${stackName}${part.suffix}`;
}

/** The longest name of a Stack that has this part as a member. */
export function maxStackNameWith(part: StackPart): number {
  return part.maxName - part.suffix.length;
}

/** What is named after the Stack for this part, for the messages of the name rules. */
export function namedAfterStack(part: StackPart): string {
  return `its member ${part.kind} <stack>${part.suffix} is named after it, and a ${part.kind} name${part.boundBy ? ` (${part.boundBy})` : ""} has at most ${part.maxName} characters`;
}
