import * as z from "zod";
import { AGE_COLUMN, type KindDefinition, READY_COLUMN } from "../../api/crd.js";
import { withDefault } from "../../api/named-default.js";
import { namespaceName, objectName } from "../../api/refs.js";
import { Connection, ENGINE_STATUS } from "../../api/resource-status.js";
import { storedResource } from "../../api/stored-resource.js";
import { ChatUISpec } from "../chat-ui/schema.js";
import { ClickHouseManaged } from "../clickhouse-cluster/schema.js";
import { DEFAULT_DELETION_POLICY } from "../datastore/mode.js";
import { DATASTORE_NAME_PATTERN, datastoreName, datastoreNameRules } from "../datastore/name.js";
import { GatewaySpec } from "../gateway/schema.js";
import { MeilisearchManaged } from "../meilisearch-instance/schema.js";
import { MongoManaged } from "../mongo-cluster/schema.js";
import { ObservabilitySpec } from "../observability/schema.js";
import {
  DEFAULT_POSTGRES_INSTANCES,
  DEFAULT_POSTGRES_STORAGE_SIZE,
  MAX_DATABASES,
  PostgresDatabase,
  PostgresManaged,
  refuseDuplicateDatabases,
} from "../postgres-cluster/schema.js";
import { RedisManaged } from "../redis-instance/schema.js";
import {
  fieldsBringing,
  maxStackNameWith,
  namedAfterStack,
  presentParts,
  STACK_PARTS,
  type StackPart,
  stackPart,
} from "./parts.js";

export const STACK_KIND = "Stack";
export const STACK_PLURAL = "stacks";
/** Licensed feature every Stack uses. */
export const STACK_FEATURE = "stack";
/** The part every Stack has: its shared PostgreSQL, `<stack>-postgres`. */
const POSTGRES_PART = stackPart("postgres");
/**
 * Longest Stack name: its member `<stack>-postgres`, present in every Stack, is a PostgresCluster, whose
 * name has at most MAX_POSTGRES_CLUSTER_NAME characters (it becomes a CNPG Cluster's name). A part whose
 * member allows less (a ClickHouseCluster) lowers it only for the Stacks that declare that part
 * (`partNameIssues`): derived from the parts' table, never restated.
 */
export const MAX_STACK_NAME = maxStackNameWith(POSTGRES_PART);

/** A Stack's metadata.name: see MAX_STACK_NAME. */
export const stackName = datastoreName("Stack", MAX_STACK_NAME, namedAfterStack(POSTGRES_PART));

/** The parts whose member allows a shorter Stack name than MAX_STACK_NAME: each is a rule of its own. */
const NARROWING_PARTS: readonly StackPart[] = STACK_PARTS.filter((part) => maxStackNameWith(part) < MAX_STACK_NAME);

/** How a part's presence is written, for messages: `spec.clickhouse or spec.observability`. */
function declaring(part: StackPart): string {
  return fieldsBringing(part)
    .map((field) => `spec.${field}`)
    .join(" or ");
}

function partNameMessage(part: StackPart, received: string): string {
  return `a Stack with ${declaring(part)} has a name of at most ${maxStackNameWith(part)} characters, received ${received}: ${namedAfterStack(part)}. Choose a shorter name, or leave ${fieldsBringing(part).length > 1 ? "those parts" : "that part"} out`;
}

/** The name rules of the parts a Stack declares, for zod: one issue per part its name is too long for. */
export function partNameIssues(name: string, spec: Parameters<typeof presentParts>[0]): string[] {
  return presentParts(spec)
    .filter((part) => NARROWING_PARTS.includes(part) && name.length > maxStackNameWith(part))
    .map((part) => partNameMessage(part, String(name.length)));
}

/** The same rules for the apiserver, as CEL over the whole object (a bare size(), as datastoreNameRules). */
const PART_NAME_RULES = NARROWING_PARTS.map((part) => ({
  rule: `!(${fieldsBringing(part)
    .map((field) => `has(self.spec.${field})`)
    .join(" || ")}) || size(self.metadata.name) <= ${maxStackNameWith(part)}`,
  message: `metadata.name: ${partNameMessage(part, "more")}`,
}));

/** The databases the curated bundle provisions for the gateway and the observability it is built around. */
export const DEFAULT_STACK_DATABASES: readonly PostgresDatabase[] = [{ name: "litellm" }, { name: "langfuse" }];

/**
 * @default for `spec.postgres.managed`: a managed PostgresCluster's own defaults, spelled out (zod fills in
 * a default as it is, without parsing it).
 */
export const DEFAULT_STACK_POSTGRES_MANAGED: z.output<typeof PostgresManaged> = {
  instances: DEFAULT_POSTGRES_INSTANCES,
  storage: { size: DEFAULT_POSTGRES_STORAGE_SIZE },
  deletionPolicy: DEFAULT_DELETION_POLICY,
};

export const StackPostgres = z
  .object({
    managed: withDefault(PostgresManaged, { DEFAULT_STACK_POSTGRES_MANAGED }).describe(
      `Settings of the Stack's managed PostgreSQL cluster. Default: ${DEFAULT_POSTGRES_INSTANCES} instance of ${DEFAULT_POSTGRES_STORAGE_SIZE}, deletion policy ${DEFAULT_DELETION_POLICY}.`,
    ),
    databases: withDefault(
      z
        .array(PostgresDatabase)
        .max(MAX_DATABASES)
        .meta({ "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"] }),
      { DEFAULT_STACK_DATABASES: [...DEFAULT_STACK_DATABASES] },
    ).describe(
      `Databases inside it, at most ${MAX_DATABASES}, names unique. Default: ${DEFAULT_STACK_DATABASES.map((d) => d.name).join(" and ")}, for the gateway and the observability.`,
    ),
  })
  .strict()
  .superRefine((postgres, ctx) =>
    refuseDuplicateDatabases(postgres.databases, "spec.postgres.databases", ["databases"], ctx),
  );

/** @default for `spec.postgres`: the curated bundle's PostgreSQL member. */
export const DEFAULT_STACK_POSTGRES: z.output<typeof StackPostgres> = {
  managed: DEFAULT_STACK_POSTGRES_MANAGED,
  databases: [...DEFAULT_STACK_DATABASES],
};
export type StackPostgres = z.infer<typeof StackPostgres>;

/** @default for `spec.clickhouse.managed`: a managed ClickHouseCluster's own defaults, spelled out. */
export const DEFAULT_STACK_CLICKHOUSE_MANAGED: z.output<typeof ClickHouseManaged> = ClickHouseManaged.parse({});
/** @default for `spec.redis.managed`: a managed RedisInstance's own defaults, spelled out. */
export const DEFAULT_STACK_REDIS_MANAGED: z.output<typeof RedisManaged> = RedisManaged.parse({});
/** @default for `spec.mongo.managed`: a managed MongoCluster's own defaults, spelled out. */
export const DEFAULT_STACK_MONGO_MANAGED: z.output<typeof MongoManaged> = MongoManaged.parse({});
/** @default for `spec.meilisearch.managed`: a managed MeilisearchInstance's own defaults, spelled out. */
export const DEFAULT_STACK_MEILISEARCH_MANAGED: z.output<typeof MeilisearchManaged> = MeilisearchManaged.parse({});

/** Where a datastore part is written, for its description: which consumers bring it without it. */
function datastoreText(field: Parameters<typeof stackPart>[0]): string {
  const part = stackPart(field);
  const by = fieldsBringing(part).slice(1);
  return `A managed ${part.kind} <stack>${part.suffix}, shared by the Stack's consumers: a member when this is set${by.length > 0 ? ` or ${by.map((f) => `spec.${f}`).join(" or ")} is` : ""}.`;
}

/** A datastore part: the settings of its managed member, each defaulting to that kind's own. */
function datastorePart<S extends z.ZodType>(
  field: Parameters<typeof stackPart>[0],
  managed: S,
  constant: Readonly<Record<string, z.output<S>>>,
) {
  return z
    .object({
      managed: withDefault(managed, constant).describe(
        `Settings of the managed ${stackPart(field).kind}. Default: that kind's own.`,
      ),
    })
    .strict()
    .describe(datastoreText(field));
}

/** The consumers' own settings: their kind's spec less what the Stack wires from its other members. */
export const StackGateway = GatewaySpec.omit({
  database: true,
  observabilityRef: true,
  observabilityKeysSecretRef: true,
  secretsRef: true,
}).describe(
  "The LiteLLM gateway member <stack>-gateway: its models and replicas. The Stack wires the rest: a database and a user of its own in <stack>-postgres, and its traces to <stack>-langfuse when spec.observability is set. Needs the licensed feature auto-wiring.",
);
export type StackGateway = z.infer<typeof StackGateway>;

export const StackObservability = ObservabilitySpec.omit({
  postgresClusterRef: true,
  clickhouseClusterRef: true,
  redisInstanceRef: true,
  projectKeysSecretRef: true,
  secretsRef: true,
}).describe(
  "The Langfuse member <stack>-langfuse: its object storage (the keys by Secret reference in the Stack's namespace) and project. The Stack wires the rest: a database and a user of its own in <stack>-postgres, <stack>-clickhouse and <stack>-redis, its project keys generated. Needs the licensed feature auto-wiring.",
);
export type StackObservability = z.infer<typeof StackObservability>;

export const StackChatUI = ChatUISpec.omit({
  gatewayRef: true,
  gatewayKeySecretRef: true,
  mongoClusterRef: true,
  meilisearchInstanceRef: true,
  secretsRef: true,
}).describe(
  "The LibreChat member <stack>-chat (needs spec.gateway). The Stack wires the rest: the gateway <stack>-gateway with a virtual key issued for it, a database and a user of its own in <stack>-mongo, its search in <stack>-search. Needs the licensed feature auto-wiring.",
);
export type StackChatUI = z.infer<typeof StackChatUI>;

/** The rule between the consumers: LibreChat talks to the Stack's own gateway. */
const CHAT_NEEDS_GATEWAY = {
  rule: "!has(self.chatUI) || has(self.gateway)",
  message:
    "spec.chatUI needs spec.gateway: the Stack's LibreChat talks to the Stack's own gateway. Add spec.gateway with its models, or remove spec.chatUI",
};

export const StackSpec = z
  .object({
    postgres: withDefault(StackPostgres, { DEFAULT_STACK_POSTGRES }).describe(
      "The shared PostgreSQL member: a managed PostgresCluster named <stack>-postgres. Default: the curated one, as its fields' defaults say.",
    ),
    clickhouse: datastorePart("clickhouse", ClickHouseManaged, { DEFAULT_STACK_CLICKHOUSE_MANAGED }).optional(),
    redis: datastorePart("redis", RedisManaged, { DEFAULT_STACK_REDIS_MANAGED }).optional(),
    mongo: datastorePart("mongo", MongoManaged, { DEFAULT_STACK_MONGO_MANAGED }).optional(),
    meilisearch: datastorePart("meilisearch", MeilisearchManaged, { DEFAULT_STACK_MEILISEARCH_MANAGED }).optional(),
    observability: StackObservability.optional(),
    gateway: StackGateway.optional(),
    chatUI: StackChatUI.optional(),
  })
  .strict()
  .superRefine((spec, ctx) => {
    if (spec.chatUI && !spec.gateway)
      ctx.addIssue({ code: "custom", message: CHAT_NEEDS_GATEWAY.message, path: ["chatUI"] });
  })
  .meta({ "x-kubernetes-validations": [CHAT_NEEDS_GATEWAY] })
  .describe(
    "The platform as one resource: its shared datastores and its consumers (gateway, observability, chat UI), created and kept in step as members owned by the Stack, each consumer wired to the datastores it uses. Needs the licensed feature stack, and auto-wiring for the consumers.",
  );
export type StackSpec = z.infer<typeof StackSpec>;
/** What a program writes as a Stack's spec, each field documented (generated from StackSpec). */
export type { StackSpecInput } from "../../api/generated/stack-spec.js";

export const StackMember = z
  .object({
    kind: z.string().describe("Kind of the member, e.g. PostgresCluster."),
    name: objectName.describe("Name of the member."),
    namespace: namespaceName.describe("Namespace of the member: the Stack's."),
    ready: z.boolean().describe("Whether the member reports Ready."),
  })
  .strict();
export type StackMember = z.infer<typeof StackMember>;

export const StackStatus = z
  .object({
    ...ENGINE_STATUS,
    members: z.array(StackMember).default([]).describe("The resources the Stack created and keeps in step."),
    postgres: Connection.optional().describe("Where consumers connect to the Stack's PostgreSQL member, once it says."),
  })
  .strict();
export type StackStatus = z.infer<typeof StackStatus>;

/** A Stack as stored in the cluster. */
export const Stack = storedResource(STACK_KIND, StackSpec, StackStatus, stackName).superRefine((stack, ctx) => {
  for (const message of partNameIssues(stack.metadata.name, stack.spec))
    ctx.addIssue({ code: "custom", message, path: ["metadata", "name"] });
});
export type Stack = z.infer<typeof Stack>;

export const STACK_DEFINITION: KindDefinition = {
  kind: STACK_KIND,
  plural: STACK_PLURAL,
  singular: "stack",
  shortNames: [],
  scope: "Namespaced",
  description:
    "The platform as one resource (licensed feature stack): its shared datastores and its consumers (gateway, observability, chat UI), which the Stack creates as members, owns, wires (licensed feature auto-wiring) and keeps in step; deleting it deletes them, each through its own deletion rules.",
  spec: StackSpec,
  status: StackStatus,
  printerColumns: [
    READY_COLUMN,
    {
      name: "Licensed",
      type: "string",
      jsonPath: '.status.conditions[?(@.type=="Licensed")].reason',
      description: "Admitted, or why the licence skips it",
    },
    AGE_COLUMN,
  ],
  namePattern: DATASTORE_NAME_PATTERN,
  rootValidations: [...datastoreNameRules("Stack", MAX_STACK_NAME, namedAfterStack(POSTGRES_PART)), ...PART_NAME_RULES],
};
