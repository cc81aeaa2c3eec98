import { join } from "node:path";
import ts from "typescript";
import type * as z from "zod";
import type { ChatUISpecReferences } from "../../lib/api/generated/chat-ui-spec.js";
import type { ClickHouseClusterSpecReferences } from "../../lib/api/generated/click-house-cluster-spec.js";
import type { GatewaySpecReferences } from "../../lib/api/generated/gateway-spec.js";
import type { MeilisearchInstanceSpecReferences } from "../../lib/api/generated/meilisearch-instance-spec.js";
import type { MongoClusterSpecReferences } from "../../lib/api/generated/mongo-cluster-spec.js";
import type { ObservabilitySpecReferences } from "../../lib/api/generated/observability-spec.js";
import type { OrganizationSpecReferences } from "../../lib/api/generated/organization-spec.js";
import type { PostgresClusterSpecReferences } from "../../lib/api/generated/postgres-cluster-spec.js";
import type { RedisInstanceSpecReferences } from "../../lib/api/generated/redis-instance-spec.js";
import type { StackSpecReferences } from "../../lib/api/generated/stack-spec.js";
import type { TeamSpecReferences } from "../../lib/api/generated/team-spec.js";
import type { UserSpecReferences } from "../../lib/api/generated/user-spec.js";
import type { ReferenceTree } from "../../lib/api/reference-fields.js";
import type { ReferenceGrantSpecInput } from "../../lib/api/reference-grant.js";
import { specDeclarationPath, specInterfaceName } from "../../lib/docs/field-doc-files.js";
import { hasReferences } from "../../lib/docs/front-end-files.js";
import type { ChatUISpec, ChatUISpecInput } from "../../lib/kinds/chat-ui/schema.js";
import type { ClickHouseClusterSpec, ClickHouseClusterSpecInput } from "../../lib/kinds/clickhouse-cluster/schema.js";
import type { GatewaySpec, GatewaySpecInput } from "../../lib/kinds/gateway/schema.js";
import type { LicenseSpec, LicenseSpecInput } from "../../lib/kinds/license/schema.js";
import type { ManagementPlaneSpec, ManagementPlaneSpecInput } from "../../lib/kinds/management-plane/schema.js";
import type {
  MeilisearchInstanceSpec,
  MeilisearchInstanceSpecInput,
} from "../../lib/kinds/meilisearch-instance/schema.js";
import type { MongoClusterSpec, MongoClusterSpecInput } from "../../lib/kinds/mongo-cluster/schema.js";
import type { ObservabilitySpec, ObservabilitySpecInput } from "../../lib/kinds/observability/schema.js";
import type { OrganizationSpec, OrganizationSpecInput } from "../../lib/kinds/organization/schema.js";
import type { PostgresClusterSpec, PostgresClusterSpecInput } from "../../lib/kinds/postgres-cluster/schema.js";
import type { RedisInstanceSpec, RedisInstanceSpecInput } from "../../lib/kinds/redis-instance/schema.js";
import { allDefinitions, REGISTRY, type ReferenceGrantSpec } from "../../lib/kinds/registry.js";
import type { SecretsManagementSpec, SecretsManagementSpecInput } from "../../lib/kinds/secrets-management/schema.js";
import type { StackSpec, StackSpecInput } from "../../lib/kinds/stack/schema.js";
import type { TeamSpec, TeamSpecInput } from "../../lib/kinds/team/schema.js";
import type { UserSpec, UserSpecInput } from "../../lib/kinds/user/schema.js";

/** `true` when A and B are assignable to each other; `false` otherwise. */
type MutuallyAssignable<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

/**
 * The field names of a type at every depth, each field required: two types with the same shape have the
 * same one. Mutual assignability alone would let an optional field be missing on one side.
 */
type Shape<T> = T extends readonly (infer E)[]
  ? Shape<E>[]
  : T extends object
    ? { [K in keyof T]-?: Shape<T[K]> }
    : "value";

/** The generated interface and `z.input` of its schema: assignable both ways, with the same fields at every depth. */
type Agree<Generated, Schema extends z.ZodType> =
  MutuallyAssignable<Generated, z.input<Schema>> extends true
    ? MutuallyAssignable<Shape<Generated>, Shape<z.input<Schema>>>
    : false;

/**
 * The type-level test: `npm run typecheck` (and the check below) fails on this object when a generated
 * spec interface drifts from its schema, one property per kind of the registry.
 */
const SPEC_INTERFACES_AGREE = {
  License: true satisfies Agree<LicenseSpecInput, typeof LicenseSpec>,
  PostgresCluster: true satisfies Agree<PostgresClusterSpecInput, typeof PostgresClusterSpec>,
  Stack: true satisfies Agree<StackSpecInput, typeof StackSpec>,
  RedisInstance: true satisfies Agree<RedisInstanceSpecInput, typeof RedisInstanceSpec>,
  MeilisearchInstance: true satisfies Agree<MeilisearchInstanceSpecInput, typeof MeilisearchInstanceSpec>,
  Gateway: true satisfies Agree<GatewaySpecInput, typeof GatewaySpec>,
  ClickHouseCluster: true satisfies Agree<ClickHouseClusterSpecInput, typeof ClickHouseClusterSpec>,
  MongoCluster: true satisfies Agree<MongoClusterSpecInput, typeof MongoClusterSpec>,
  SecretsManagement: true satisfies Agree<SecretsManagementSpecInput, typeof SecretsManagementSpec>,
  Observability: true satisfies Agree<ObservabilitySpecInput, typeof ObservabilitySpec>,
  ChatUI: true satisfies Agree<ChatUISpecInput, typeof ChatUISpec>,
  Organization: true satisfies Agree<OrganizationSpecInput, typeof OrganizationSpec>,
  Team: true satisfies Agree<TeamSpecInput, typeof TeamSpec>,
  User: true satisfies Agree<UserSpecInput, typeof UserSpec>,
  ReferenceGrant: true satisfies Agree<ReferenceGrantSpecInput, typeof ReferenceGrantSpec>,
  ManagementPlane: true satisfies Agree<ManagementPlaneSpecInput, typeof ManagementPlaneSpec>,
};

/**
 * The generated reference trees (`<Kind>SpecReferences`, beside each spec interface: what a cdk8s construct
 * of the kind accepts a construct for) and `ReferenceTree` of their schemas: the same type.
 */
const REFERENCE_TREES_AGREE = {
  PostgresCluster: true satisfies MutuallyAssignable<
    PostgresClusterSpecReferences,
    ReferenceTree<typeof PostgresClusterSpec>
  >,
  RedisInstance: true satisfies MutuallyAssignable<
    RedisInstanceSpecReferences,
    ReferenceTree<typeof RedisInstanceSpec>
  >,
  MeilisearchInstance: true satisfies MutuallyAssignable<
    MeilisearchInstanceSpecReferences,
    ReferenceTree<typeof MeilisearchInstanceSpec>
  >,
  Gateway: true satisfies MutuallyAssignable<GatewaySpecReferences, ReferenceTree<typeof GatewaySpec>>,
  ClickHouseCluster: true satisfies MutuallyAssignable<
    ClickHouseClusterSpecReferences,
    ReferenceTree<typeof ClickHouseClusterSpec>
  >,
  MongoCluster: true satisfies MutuallyAssignable<MongoClusterSpecReferences, ReferenceTree<typeof MongoClusterSpec>>,
  ChatUI: true satisfies MutuallyAssignable<ChatUISpecReferences, ReferenceTree<typeof ChatUISpec>>,
  Organization: true satisfies MutuallyAssignable<OrganizationSpecReferences, ReferenceTree<typeof OrganizationSpec>>,
  Team: true satisfies MutuallyAssignable<TeamSpecReferences, ReferenceTree<typeof TeamSpec>>,
  User: true satisfies MutuallyAssignable<UserSpecReferences, ReferenceTree<typeof UserSpec>>,
  Observability: true satisfies MutuallyAssignable<
    ObservabilitySpecReferences,
    ReferenceTree<typeof ObservabilitySpec>
  >,
  Stack: true satisfies MutuallyAssignable<StackSpecReferences, ReferenceTree<typeof StackSpec>>,
  // A kind without reference fields has no such type: its tree is never.
  SecretsManagement: true satisfies MutuallyAssignable<never, ReferenceTree<typeof SecretsManagementSpec>>,
};

const THIS_FILE = join(process.cwd(), "test", "unit", "spec-declarations.test.ts");
const POSTGRES_DECLARATION = join(process.cwd(), "lib", "api", "generated", "postgres-cluster-spec.ts");
const REDIS_DECLARATION = join(process.cwd(), "lib", "api", "generated", "redis-instance-spec.ts");

/** Every file parsed once, for both programs below: only the replaced ones differ. */
const parsedFiles = new Map<string, ts.SourceFile>();

/** The diagnostics of this very file, type-checked as tsconfig.json does, with some files' text replaced. */
function diagnosticsOfThisFile(replaced: ReadonlyMap<string, string> = new Map()): string[] {
  const config = ts.getParsedCommandLineOfConfigFile(
    join(process.cwd(), "tsconfig.json"),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n"));
      },
    },
  );
  if (!config) throw new Error("tsconfig.json did not parse");
  const host = ts.createCompilerHost(config.options);
  const readFile = host.readFile.bind(host);
  host.readFile = (file) => replaced.get(file) ?? readFile(file);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (file, language, onError, create) => {
    const text = replaced.get(file);
    if (text !== undefined) return ts.createSourceFile(file, text, language);
    const parsed = parsedFiles.get(file) ?? getSourceFile(file, language, onError, create);
    if (parsed) parsedFiles.set(file, parsed);
    return parsed;
  };
  const program = ts.createProgram([THIS_FILE], config.options, host);
  const file = program.getSourceFile(THIS_FILE);
  return ts
    .getPreEmitDiagnostics(program, file)
    .map(
      (d) =>
        `${d.file && d.start !== undefined ? `line ${d.file.getLineAndCharacterOfPosition(d.start).line + 1}: ` : ""}${ts.flattenDiagnosticMessageText(d.messageText, " ")}`,
    );
}

/** The line of this file that asserts a kind's interface agrees with its schema. */
function assertionLine(kind: string): number {
  const lines = ts.sys.readFile(THIS_FILE)?.split("\n") ?? [];
  return lines.findIndex((line) => line.startsWith(`  ${kind}: true satisfies Agree<`)) + 1;
}

/** A generated declaration without one optional member and its doc comment. */
function withoutMember(text: string, member: string): string {
  const lines = text.split("\n");
  const at = lines.findIndex((line) => line.trim().startsWith(`readonly ${member}?:`));
  const start = lines.slice(0, at).findLastIndex((line) => line.trim() === "/**");
  return [...lines.slice(0, start), ...lines.slice(at + 1)].join("\n");
}

describe("the generated spec interfaces", () => {
  it("cover every kind of the registry, each in its file under lib/api/generated", () => {
    expect(Object.keys(SPEC_INTERFACES_AGREE).sort()).toEqual(
      allDefinitions()
        .map((d) => d.kind)
        .sort(),
    );
    expect(allDefinitions().map((d) => [specInterfaceName(d), specDeclarationPath(d)])).toContainEqual([
      "PostgresClusterSpecInput",
      "lib/api/generated/postgres-cluster-spec.ts",
    ]);
  });

  it("come with the type of their reference fields where they have any, for every kind the front ends make", () => {
    expect(Object.keys(REFERENCE_TREES_AGREE).sort()).toEqual(REGISTRY.kinds.map((m) => m.definition.kind).sort());
    const withReferences = REGISTRY.kinds.filter((m) => hasReferences(m.definition.spec)).map((m) => m.definition.kind);
    expect(withReferences.sort()).toEqual([
      "ChatUI",
      "ClickHouseCluster",
      "Gateway",
      "MeilisearchInstance",
      "MongoCluster",
      "Observability",
      "Organization",
      "PostgresCluster",
      "RedisInstance",
      "Stack",
      "Team",
      "User",
    ]);
  });

  it("agree with z.input of their schemas, and their reference trees with the schemas': this file type-checks", () => {
    expect(diagnosticsOfThisFile()).toEqual([]);
  });

  it("would not, had a field drifted: a changed type, or a missing optional field, fails the assertion of its kind", () => {
    const postgres = ts.sys.readFile(POSTGRES_DECLARATION) ?? "";
    const redis = ts.sys.readFile(REDIS_DECLARATION) ?? "";
    const retyped = postgres.replace("readonly instances?: number;", "readonly instances?: string;");
    const dropped = withoutMember(redis, "sentinelImage");
    expect(retyped).not.toBe(postgres);
    expect(dropped).not.toBe(redis);
    expect(dropped).not.toContain("sentinelImage");
    const drifted = new Map([
      [POSTGRES_DECLARATION, retyped],
      [REDIS_DECLARATION, dropped],
    ]);
    expect(diagnosticsOfThisFile(drifted)).toEqual(
      ["PostgresCluster", "RedisInstance"].map(
        (kind) => `line ${assertionLine(kind)}: Type 'true' does not satisfy the expected type 'false'.`,
      ),
    );
  });
});
