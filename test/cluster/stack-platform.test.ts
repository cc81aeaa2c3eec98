import { API_GROUP, API_VERSION } from "../../lib/api/group.js";
import { ensureNaviqueCrds } from "../../lib/apply/navique-crds.js";
import { statusOf } from "../../lib/cluster/kube-client.js";
import type { ReconcileContext } from "../../lib/engine/context.js";
import { readResource, reconcileResource } from "../../lib/engine/reconcile.js";
import { STACK_PLURAL, type StackSpecInput } from "../../lib/kinds/stack/schema.js";
import { createReconcileContext } from "../../lib/reconcile/context.js";
import {
  CAPABILITY_SUITE_SETUP_MS,
  FIXTURE_SOURCE,
  lockCapabilities,
  testClient,
  testHelm,
} from "../support/capabilities.js";
import { condition, createTestNamespace } from "../support/cluster.js";
import { applyLicence, removeLicence, TEST_TRUSTED_KEYS, testLicenceToken } from "../support/licence.js";
import { discardNamespace } from "../support/namespace-content.js";
import { eventsAbout } from "../support/postgres.js";
import { readStoredResource, registered } from "../support/resources.js";
import { createStack, finalizeStacks, readStack } from "../support/stack.js";

// The Stack as the whole platform, on the real apiserver: the CRD's rules between parts, the members the
// Stack's pass applies — each accepted by its own kind's CRD, owned by the Stack, wired to the others —,
// a part removed taking its members with it, and a licence without auto-wiring creating no consumer and
// deleting none. Only the Stack is reconciled here: each member's own pass (capability operators,
// workloads) is its kind's tests', and the Stack's e2e under the operator is test/e2e/stack.test.ts.

const PLATFORM: StackSpecInput = {
  gateway: {
    models: [
      { name: "gpt-4o", provider: "openai", model: "gpt-4o", apiKeySecretRef: { name: "llm-keys", key: "openai" } },
    ],
  },
  observability: {
    s3: {
      bucket: "langfuse",
      accessKeyIdSecretRef: { name: "langfuse-s3", key: "access-key-id" },
      secretAccessKeySecretRef: { name: "langfuse-s3", key: "secret-access-key" },
    },
  },
  chatUI: { endpointName: "Team gateway" },
};

const MEMBERS = [
  ["PostgresCluster", "team-postgres"],
  ["ClickHouseCluster", "team-clickhouse"],
  ["RedisInstance", "team-redis"],
  ["MongoCluster", "team-mongo"],
  ["MeilisearchInstance", "team-search"],
  ["Observability", "team-langfuse"],
  ["Gateway", "team-gateway"],
  ["ChatUI", "team-chat"],
] as const;

describe("the Stack as the whole platform, on the real apiserver", () => {
  const client = testClient();
  let context: ReconcileContext;
  let ns = "";
  let unlock: () => Promise<void>;

  // The licence is the cluster's: hold the lock every suite that applies one holds.
  beforeAll(async () => {
    unlock = await lockCapabilities();
    await ensureNaviqueCrds(client);
    context = createReconcileContext({
      client,
      helm: await testHelm(),
      source: FIXTURE_SOURCE,
      trustedKeys: TEST_TRUSTED_KEYS,
    });
    ns = (await createTestNamespace("stack-platform")).name;
    await applyLicence(client, testLicenceToken({ features: ["stack", "auto-wiring"], caps: { Stack: 5 } }));
  }, CAPABILITY_SUITE_SETUP_MS);

  afterAll(async () => {
    if (ns) {
      await finalizeStacks(context).catch(() => undefined);
      await discardNamespace(client, ns);
    }
    await removeLicence(client);
    await unlock?.();
  });

  /** One pass of the Stack, as the operator's would be (its members are not reconciled). */
  const passOf = async (name: string) => {
    const stack = await readResource(context, registered("Stack"), ns, name);
    if (!stack) throw new Error(`Stack ${ns}/${name} is gone`);
    return reconcileResource(context, stack);
  };

  const rejectionOf = async (name: string, spec: StackSpecInput) => {
    const rejection = await client.custom
      .createNamespacedCustomObject({
        group: API_GROUP,
        version: API_VERSION,
        plural: STACK_PLURAL,
        namespace: ns,
        body: { apiVersion: `${API_GROUP}/${API_VERSION}`, kind: "Stack", metadata: { name }, spec },
      })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(statusOf(rejection)).toBe(422);
    const body = JSON.parse(String((rejection as { body: unknown }).body)) as {
      details: { causes: { message: string }[] };
    };
    return body.details.causes.map((c) => c.message);
  };

  it("the CRD refuses a name its ClickHouse member could not bear, and LibreChat without the gateway", async () => {
    expect(await rejectionOf(`t${"a".repeat(26)}`, { observability: PLATFORM.observability })).toEqual([
      "Invalid value: metadata.name: a Stack with spec.clickhouse or spec.observability has a name of at most 26 characters, received more: its member ClickHouseCluster <stack>-clickhouse is named after it, and a ClickHouseCluster name has at most 37 characters. Choose a shorter name, or leave those parts out",
    ]);
    expect(await rejectionOf("chat-alone", { chatUI: {} })).toEqual([
      expect.stringContaining(
        "spec.chatUI needs spec.gateway: the Stack's LibreChat talks to the Stack's own gateway. Add spec.gateway with its models, or remove spec.chatUI",
      ),
    ]);
  });

  it("one pass applies every member, each accepted by its kind's CRD, owned by the Stack and wired to the others", async () => {
    await createStack(client, ns, "team", PLATFORM);
    const outcome = await passOf("team");
    expect(outcome.performed.filter((step) => step.includes("member of the Stack"))).toHaveLength(MEMBERS.length);
    const stack = await readStack(client, ns, "team");
    for (const [kind, name] of MEMBERS) {
      const member = await readStoredResource(client, kind, ns, name);
      const { ownerReferences } = (member?.metadata ?? {}) as { ownerReferences?: unknown[] };
      expect(ownerReferences).toEqual([
        expect.objectContaining({ kind: "Stack", name: "team", uid: stack?.metadata.uid, controller: true }),
      ]);
    }
    expect(stack?.status?.members.map((m) => [m.kind, m.name])).toEqual(MEMBERS.map(([kind, name]) => [kind, name]));
    const gateway = await readStoredResource(client, "Gateway", ns, "team-gateway");
    expect(gateway?.spec).toMatchObject({
      database: { mode: "postgresCluster", postgresClusterRef: { name: "team-postgres" } },
      observabilityRef: { name: "team-langfuse" },
      models: [{ name: "gpt-4o" }],
    });
    const chat = await readStoredResource(client, "ChatUI", ns, "team-chat");
    expect(chat?.spec).toMatchObject({
      endpointName: "Team gateway",
      gatewayRef: { name: "team-gateway" },
      mongoClusterRef: { name: "team-mongo" },
      meilisearchInstanceRef: { name: "team-search" },
    });
    // None of them is Ready yet (no member was reconciled): the Stack says which it waits for.
    expect(condition(stack, "Ready")).toMatchObject({ status: "False", reason: "WaitingForMembers" });
    expect(condition(stack, "Ready")?.message).toContain(`ChatUI ${ns}/team-chat (not created yet)`);
  });

  it("a part removed takes its member, and the datastores only it brought, with it; the rest is untouched", async () => {
    const before = await readStoredResource(client, "Gateway", ns, "team-gateway");
    const { chatUI: _chat, ...withoutChat } = PLATFORM;
    await client.custom.patchNamespacedCustomObject({
      group: API_GROUP,
      version: API_VERSION,
      plural: STACK_PLURAL,
      namespace: ns,
      name: "team",
      body: [{ op: "replace", path: "/spec", value: withoutChat }],
    });
    await passOf("team");
    for (const [kind, name] of MEMBERS) {
      const gone = ["ChatUI", "MongoCluster", "MeilisearchInstance"].includes(kind);
      expect([kind, (await readStoredResource(client, kind, ns, name)) === undefined]).toEqual([kind, gone]);
    }
    const after = await readStoredResource(client, "Gateway", ns, "team-gateway");
    expect(after?.metadata.resourceVersion).toBe(before?.metadata.resourceVersion);
  });

  it("without auto-wiring: a new Stack's consumers are not created, and it says so; consumers made before stay", async () => {
    await applyLicence(client, testLicenceToken({ features: ["stack"], caps: { Stack: 5 } }));
    await createStack(client, ns, "solo", { gateway: {} });
    await passOf("solo");
    expect(await readStoredResource(client, "PostgresCluster", ns, "solo-postgres")).toBeDefined();
    expect(await readStoredResource(client, "Gateway", ns, "solo-gateway")).toBeUndefined();
    const solo = await readStack(client, ns, "solo");
    const message =
      "spec.gateway is not created: the Stack wires its consumers to its datastores itself, and licence lic-test does not include auto-wiring. Remove it (and declare that resource on its own, wired by hand), or ask your navique account contact for a licence that includes it, then apply it as the License named `navique`";
    expect(condition(solo, "Ready")).toMatchObject({ status: "False", reason: "AutoWiringRequired", message });
    expect(condition(solo, "Stalled")).toMatchObject({ status: "True", reason: "AutoWiringRequired" });
    expect(await eventsAbout(client, ns, "solo")).toContainEqual({
      type: "Warning",
      reason: "AutoWiringRequired",
      note: message,
    });

    // The Stack made under the earlier licence keeps its consumers: losing a feature deletes nothing.
    await passOf("team");
    for (const name of ["team-gateway", "team-langfuse"])
      expect(
        await readStoredResource(client, name === "team-gateway" ? "Gateway" : "Observability", ns, name),
      ).toBeDefined();
  });
});
