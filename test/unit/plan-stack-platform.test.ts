import type { KubeObject } from "../../lib/engine/objects.js";
import { AUTO_WIRING_REQUIRED, stackMembers } from "../../lib/kinds/stack/module.js";
import { MAX_STACK_NAME, Stack, StackSpec } from "../../lib/kinds/stack/schema.js";
import { COMMUNITY_CAPS, type Entitlements, type Feature } from "../../lib/licence/entitlements.js";
import { planStack } from "../support/plans.js";

// The Stack as the whole platform: its shared datastores, its consumers wired to them, the parts' name
// rules, the licence's auto-wiring and members removed with their part. Decisions only: the operator's
// side is test/e2e/stack-platform.test.ts.

/** The whole platform, as docs/stack.md writes it. */
const PLATFORM = {
  gateway: {
    models: [{ name: "gpt-4o", provider: "openai", model: "gpt-4o", apiKeySecretRef: { name: "llm", key: "openai" } }],
  },
  observability: {
    s3: {
      bucket: "langfuse",
      accessKeyIdSecretRef: { name: "s3", key: "access-key-id" },
      secretAccessKeySecretRef: { name: "s3", key: "secret-access-key" },
    },
  },
  chatUI: {},
  clickhouse: { managed: { storage: { size: "20Gi" } } },
};

function stack(name: string, spec: unknown = PLATFORM, status?: unknown): Stack {
  return Stack.parse({
    apiVersion: "core.navique.com/v1alpha1",
    kind: "Stack",
    metadata: { name, namespace: "ai", uid: `uid-${name}`, generation: 1 },
    spec,
    ...(status ? { status } : {}),
  });
}

const licensed = (features: readonly Feature[]): Entitlements => ({
  edition: "Licensed",
  features: new Set(features),
  caps: { ...COMMUNITY_CAPS, Stack: 1 },
  licenseId: "lic-1",
});

const licence = (features: readonly Feature[]) => ({
  entitlements: licensed(features),
  instances: [{ namespace: "ai", name: "team", creationTimestamp: "2027-01-01T00:00:00Z", admitted: true }],
});

const applied = (plan: ReturnType<typeof planStack>) =>
  plan.steps.flatMap((step) => (step.kind === "apply" ? [step.object as KubeObject & { spec: unknown }] : []));

/** What the Stack made of a spec, as the cluster holds it: its `status.emitted`, and its members, Ready. */
function made(before: Stack) {
  const members = stackMembers(before).map(({ object }) => object);
  return {
    emitted: members.map((m) => ({ apiVersion: m.apiVersion, kind: m.kind, namespace: "ai", name: m.metadata.name })),
    live: members.map((m) => ({
      ...m,
      metadata: { ...m.metadata, namespace: "ai", labels: { "core.navique.com/owned-by": "stack.ai.team" } },
      status: { conditions: [{ type: "Ready", status: "True", reason: "R", message: "ready" }] },
    })),
  };
}

describe("a Stack that declares the whole platform", () => {
  it("emits its datastores, then each consumer wired to them by name, in the order they depend on", () => {
    const plan = planStack(stack("team"), { licence: licence(["stack", "auto-wiring"]), members: [] });
    const members = applied(plan);
    expect(members.map((m) => `${m.kind} ${m.metadata.name}`)).toEqual([
      "PostgresCluster team-postgres",
      "ClickHouseCluster team-clickhouse",
      "RedisInstance team-redis",
      "MongoCluster team-mongo",
      "MeilisearchInstance team-search",
      "Observability team-langfuse",
      "Gateway team-gateway",
      "ChatUI team-chat",
    ]);
    const spec = (kind: string) => members.find((m) => m.kind === kind)?.spec;
    // The datastore part written in the Stack carries its settings; the others their kind's defaults.
    expect(spec("ClickHouseCluster")).toMatchObject({ mode: "managed", managed: { storage: { size: "20Gi" } } });
    expect(spec("RedisInstance")).toMatchObject({ mode: "managed", managed: { topology: "standalone" } });
    expect(spec("Gateway")).toEqual({
      models: PLATFORM.gateway.models,
      replicas: 1,
      database: { mode: "postgresCluster", postgresClusterRef: { name: "team-postgres" } },
      observabilityRef: { name: "team-langfuse" },
    });
    expect(spec("Observability")).toMatchObject({
      postgresClusterRef: { name: "team-postgres" },
      clickhouseClusterRef: { name: "team-clickhouse" },
      redisInstanceRef: { name: "team-redis" },
      s3: { bucket: "langfuse", region: "auto" },
    });
    expect(spec("ChatUI")).toMatchObject({
      gatewayRef: { name: "team-gateway" },
      mongoClusterRef: { name: "team-mongo" },
      meilisearchInstanceRef: { name: "team-search" },
    });
    // No manual field: every consumer is wired by the product (its own database claimed in the datastore).
    expect(JSON.stringify(members)).not.toMatch(/databaseUrlSecretRef|observabilityKeysSecretRef|gatewayKeySecretRef/);
    expect(plan.conditions[0]?.message).toContain("waiting for PostgresCluster ai/team-postgres (not created yet)");
    expect(plan.conditions[0]?.message).toContain("ChatUI ai/team-chat (not created yet)");
  });

  it("makes only the datastores a consumer needs: a gateway alone brings the PostgreSQL, nothing else", () => {
    const plan = planStack(stack("team", { gateway: {} }), { licence: licence(["stack", "auto-wiring"]), members: [] });
    expect(applied(plan).map((m) => m.kind)).toEqual(["PostgresCluster", "Gateway"]);
    // Without spec.observability the gateway sends no traces.
    expect(applied(plan)[1]?.spec).not.toHaveProperty("observabilityRef");
  });

  it("without auto-wiring: makes the datastores, not the consumers, and says why, naming each and the way out", () => {
    const plan = planStack(stack("team"), { licence: licence(["stack"]), members: [] });
    expect(applied(plan).map((m) => m.kind)).toEqual([
      "PostgresCluster",
      "ClickHouseCluster",
      "RedisInstance",
      "MongoCluster",
      "MeilisearchInstance",
    ]);
    const ready = plan.conditions.find((c) => c.type === "Ready");
    expect(ready).toMatchObject({ status: "False", reason: AUTO_WIRING_REQUIRED });
    expect(ready?.message).toBe(
      "spec.observability, spec.gateway, spec.chatUI are not created: the Stack wires its consumers to its datastores itself, and licence lic-1 does not include auto-wiring. Remove them (and declare those resources on their own, wired by hand), or ask your navique account contact for a licence that includes it, then apply it as the License named `navique`",
    );
    expect(plan.conditions.find((c) => c.type === "Stalled")).toMatchObject({ status: "True" });
    expect(plan.events).toEqual([{ type: "Warning", reason: AUTO_WIRING_REQUIRED, message: ready?.message }]);
    // The next pass, which finds it reported already, records no second Event.
    const again = planStack(stack("team", PLATFORM, plan.status), { licence: licence(["stack"]), members: [] });
    expect(again.events).toEqual([]);
  });

  it("losing auto-wiring deletes nothing: the consumers it made are kept in step, a new one is not made", () => {
    const { emitted, live } = made(stack("team", { gateway: {} }));
    const plan = planStack(
      stack("team", { gateway: {}, observability: PLATFORM.observability }, { conditions: [], emitted }),
      {
        licence: licence(["stack"]),
        members: live,
      },
    );
    expect(plan.steps.filter((s) => s.kind === "delete")).toEqual([]);
    expect(applied(plan).map((m) => m.kind)).toEqual([
      "PostgresCluster",
      "ClickHouseCluster",
      "RedisInstance",
      "Gateway",
    ]);
    expect(plan.conditions[0]).toMatchObject({ reason: AUTO_WIRING_REQUIRED });
    expect(plan.conditions[0]?.message).toMatch(/^spec\.observability is not created: /);
  });

  it("a member beyond its kind's cap holds the Stack: Stalled, the member and the licence's words named", () => {
    const { emitted, live } = made(stack("team", { gateway: {} }));
    const refused =
      "Gateway ai/team-gateway is refused: licence lic-1 allows 1 Gateway instance(s) and 1 come before it (admitted earlier or created first); nothing was created for it. Delete an unused Gateway, or ask your navique account contact for a licence that includes it, then apply it as the License named `navique`";
    // What the member's own pass wrote (lib/engine/gates.ts): the licence's refusal, Stalled.
    const members = live.map((m) =>
      m.kind === "Gateway"
        ? {
            ...m,
            status: {
              conditions: [
                { type: "Ready", status: "False", reason: "InstanceCapExceeded", message: refused },
                { type: "Licensed", status: "False", reason: "InstanceCapExceeded", message: refused },
                { type: "Stalled", status: "True", reason: "InstanceCapExceeded", message: refused },
              ],
            },
          }
        : m,
    );
    const plan = planStack(stack("team", { gateway: {} }, { conditions: [], emitted }), {
      licence: licence(["stack", "auto-wiring"]),
      members,
    });
    expect(plan.conditions[0]).toMatchObject({
      status: "False",
      reason: "WaitingForMembers",
      message: `waiting for Gateway ai/team-gateway (${refused})`,
    });
    expect(plan.conditions.find((c) => c.type === "Stalled")).toMatchObject({ status: "True" });
  });

  it("removing a part deletes its member, and those only it brought", () => {
    const { emitted, live } = made(stack("team"));
    const { chatUI: _chat, ...withoutChat } = PLATFORM;
    const plan = planStack(stack("team", withoutChat, { conditions: [], emitted }), {
      licence: licence(["stack", "auto-wiring"]),
      members: live,
    });
    const deletes = plan.steps.filter((s) => s.kind === "delete").map((s) => s.description);
    // LibreChat goes; its Mongo and Meilisearch, brought by it alone, go with it (each by its own
    // deletion policy, applied by its own pass).
    expect(deletes).toEqual([
      expect.stringContaining("MongoCluster ai/team-mongo"),
      expect.stringContaining("MeilisearchInstance ai/team-search"),
      expect.stringContaining("ChatUI ai/team-chat"),
    ]);
    expect(applied(plan).map((m) => m.kind)).toEqual([
      "PostgresCluster",
      "ClickHouseCluster",
      "RedisInstance",
      "Observability",
      "Gateway",
    ]);
  });
});

describe("the Stack schema's rules between parts", () => {
  it("refuses LibreChat without the gateway it talks to, naming the field and the way out", () => {
    const result = StackSpec.safeParse({ chatUI: {} });
    expect(result.error?.issues.map((i) => [i.path.join("."), i.message])).toEqual([
      [
        "chatUI",
        "spec.chatUI needs spec.gateway: the Stack's LibreChat talks to the Stack's own gateway. Add spec.gateway with its models, or remove spec.chatUI",
      ],
    ]);
  });

  it("refuses a field the Stack wires itself, as any unknown field", () => {
    const result = StackSpec.safeParse({ gateway: { database: { mode: "external" } } });
    expect(result.error?.issues.map((i) => i.path.join("."))).toEqual(["gateway"]);
    expect(result.error?.issues[0]?.message).toContain("database");
  });

  it("lowers the name limit only for a Stack that has a ClickHouse member, and says which part and why", () => {
    const longest = 26;
    const name = (length: number) => `t${"a".repeat(length - 1)}`;
    expect(Stack.safeParse({ ...stack("team"), metadata: { name: name(longest), namespace: "ai" } }).success).toBe(
      true,
    );
    const tooLong = Stack.safeParse({ ...stack("team"), metadata: { name: name(longest + 1), namespace: "ai" } });
    expect(tooLong.error?.issues.map((i) => [i.path.join("."), i.message])).toEqual([
      [
        "metadata.name",
        "a Stack with spec.clickhouse or spec.observability has a name of at most 26 characters, received 27: its member ClickHouseCluster <stack>-clickhouse is named after it, and a ClickHouseCluster name has at most 37 characters. Choose a shorter name, or leave those parts out",
      ],
    ]);
    // Without those parts, the Stack keeps its limit of MAX_STACK_NAME.
    const gatewayOnly = {
      ...stack("team", { gateway: {} }),
      metadata: { name: name(MAX_STACK_NAME), namespace: "ai" },
    };
    expect(Stack.safeParse(gatewayOnly).success).toBe(true);
  });
});
