import * as z from "zod";
import { AGE_COLUMN, type KindDefinition, READY_COLUMN } from "../../api/crd.js";
import { withDefault } from "../../api/named-default.js";
import { namespaceName, objectName } from "../../api/refs.js";
import { Connection, ENGINE_STATUS } from "../../api/resource-status.js";
import { storedResource } from "../../api/stored-resource.js";
import { DEFAULT_DELETION_POLICY } from "../datastore/mode.js";
import { DATASTORE_NAME_PATTERN, datastoreName, datastoreNameRules } from "../datastore/name.js";
import {
  DEFAULT_POSTGRES_INSTANCES,
  DEFAULT_POSTGRES_STORAGE_SIZE,
  MAX_DATABASES,
  MAX_POSTGRES_CLUSTER_NAME,
  PostgresDatabase,
  PostgresManaged,
  refuseDuplicateDatabases,
} from "../postgres-cluster/schema.js";

export const STACK_KIND = "Stack";
export const STACK_PLURAL = "stacks";
/** Licensed feature every Stack uses. */
export const STACK_FEATURE = "stack";
/** A Stack's PostgreSQL member is named `<stack>` followed by this. */
export const STACK_POSTGRES_SUFFIX = "-postgres";
/**
 * Longest Stack name: its member `<stack>-postgres` is a PostgresCluster, whose name has at most
 * MAX_POSTGRES_CLUSTER_NAME characters (it becomes a CNPG Cluster's name). Derived, never restated.
 */
export const MAX_STACK_NAME = MAX_POSTGRES_CLUSTER_NAME - STACK_POSTGRES_SUFFIX.length;

/** What is named after a Stack, for the messages of its name's rules. */
const NAMED_AFTER_STACK = `its member PostgresCluster <stack>${STACK_POSTGRES_SUFFIX} is named after it, and a PostgresCluster name (a CNPG Cluster's) has at most ${MAX_POSTGRES_CLUSTER_NAME} characters`;

/** A Stack's metadata.name: see MAX_STACK_NAME. */
export const stackName = datastoreName("Stack", MAX_STACK_NAME, NAMED_AFTER_STACK);

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

export const StackSpec = z
  .object({
    postgres: withDefault(StackPostgres, { DEFAULT_STACK_POSTGRES }).describe(
      "The shared PostgreSQL member: a managed PostgresCluster named <stack>-postgres. Default: the curated one, as its fields' defaults say.",
    ),
  })
  .strict()
  .describe(
    "A curated bundle of the platform's parts, created and kept in step as members owned by the Stack. Needs the licensed feature stack.",
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
export const Stack = storedResource(STACK_KIND, StackSpec, StackStatus, stackName);
export type Stack = z.infer<typeof Stack>;

export const STACK_DEFINITION: KindDefinition = {
  kind: STACK_KIND,
  plural: STACK_PLURAL,
  singular: "stack",
  shortNames: [],
  scope: "Namespaced",
  description:
    "A curated bundle of the platform's parts (licensed feature stack): the Stack creates its members, owns them and keeps them in step; deleting it deletes them, each through its own deletion rules.",
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
  rootValidations: datastoreNameRules("Stack", MAX_STACK_NAME, NAMED_AFTER_STACK),
};
