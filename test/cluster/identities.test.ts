import { LITELLM_OPERATOR } from "../../lib/catalog/litellm-operator.js";
import { type KubeClient, orUndefined } from "../../lib/cluster/kube-client.js";
import type { ReconcileContext } from "../../lib/engine/context.js";
import { capabilitySuite } from "../support/capability-suite.js";
import { condition } from "../support/cluster.js";
import { playLiteLLMIdentities, playLiteLLMOperator, readLiteLLMIdentity } from "../support/litellm.js";
import { eventsAbout } from "../support/postgres.js";
import {
  createResource,
  deleteResource,
  finalizeResources,
  readStoredResource,
  reconcileUntil,
} from "../support/resources.js";

// Organization, Team and User on the real plane with real helm: the Gateway's LiteLLM operator installed
// from the fixture chart (standing in for chart 0.23.0), its controllers played by test/support/litellm.ts
// (no pod runs here, no proxy holds the identities): the instance Ready, each identity synced with an id.
describe("Organization, Team and User", () => {
  const suite = capabilitySuite({
    capabilities: [LITELLM_OPERATOR],
    licence: { features: ["identities"], caps: { Organization: 1, Team: 2, User: 2 } },
  });
  let client: KubeClient;
  let context: ReconcileContext;
  let ns = "";
  beforeAll(async () => {
    ({ client, context } = suite);
    ns = await suite.namespaces.create("identities");
    await client.core.createNamespacedSecret({
      namespace: ns,
      body: { metadata: { name: "gateway-db" }, stringData: { url: "postgresql://u:p@db.example:5432/litellm" } },
    });
    await createResource(client, "Gateway", ns, "llm", {
      models: [{ name: "llama3", provider: "ollama", model: "llama3", apiBase: "http://ollama.models.svc:11434" }],
      database: { mode: "external", external: { connectionSecretRef: { name: "gateway-db", key: "url" } } },
    });
    await reconcileUntil(
      context,
      "Gateway",
      ns,
      "llm",
      (o) => !o.requeue,
      () => playLiteLLMOperator(client, ns, "llm"),
    );
  });

  const syncedBy = (kind: string, name: string) =>
    reconcileUntil(
      context,
      kind,
      ns,
      name,
      (o) => !o.requeue,
      async () => void (await playLiteLLMIdentities(client, ns)),
    );

  it("each becomes the LiteLLM operator's object beside the gateway, Ready once synced, with LiteLLM's id", async () => {
    await createResource(client, "Organization", ns, "research", {
      gatewayRef: { name: "llm" },
      models: ["llama3"],
      maxBudget: 500,
      budgetDuration: "30d",
      members: [{ email: "ada@example.com", role: "org_admin" }, { email: "grace@example.com" }],
    });
    await createResource(client, "Team", ns, "search", {
      gatewayRef: { name: "llm" },
      alias: "Search",
      maxBudget: 100,
    });
    await createResource(client, "User", ns, "ada", {
      gatewayRef: { name: "llm" },
      email: "ada@example.com",
      maxBudget: 20,
      teams: [{ name: "search", role: "admin" }],
    });
    for (const [kind, name] of [
      ["Organization", "research"],
      ["Team", "search"],
      ["User", "ada"],
    ] as const) {
      await syncedBy(kind, name);
      const stored = await readStoredResource(client, kind, ns, name);
      expect(condition(stored, "Ready")).toMatchObject({ status: "True" });
      expect((stored?.status as { litellmId?: string } | undefined)?.litellmId).toMatch(/^[0-9a-f]{16}$/);
    }

    expect((await readLiteLLMIdentity(client, "litellmorganizations", ns, "research"))?.spec).toEqual({
      instanceRef: { name: "llm" },
      organizationAlias: "research",
      models: ["llama3"],
      maxBudget: 500,
      budgetDuration: "30d",
      // Each member with a role, the LiteLLM operator's default written out.
      members: [
        { email: "ada@example.com", role: "org_admin" },
        { email: "grace@example.com", role: "internal_user" },
      ],
    });
    expect((await readLiteLLMIdentity(client, "litellmteams", ns, "search"))?.spec).toEqual({
      instanceRef: { name: "llm" },
      teamAlias: "Search",
      memberManagement: "mixed",
      maxBudgetMonthly: 100,
    });
    expect((await readLiteLLMIdentity(client, "litellmusers", ns, "ada"))?.spec).toEqual({
      instanceRef: { name: "llm" },
      userId: "ada@example.com",
      userEmail: "ada@example.com",
      userRole: "internal_user",
      maxBudget: 20,
      teams: [{ teamRef: { name: "search" }, role: "admin" }],
    });
  });

  it("a User's initial password is generated into a Secret it owns; its status names the Secret, never the value", async () => {
    const secret = await client.core.readNamespacedSecret({ name: "ada-initial-password", namespace: ns });
    const password = Buffer.from(secret.data?.password ?? "", "base64").toString();
    expect(password).toMatch(/^[A-Za-z0-9]{24}$/);
    expect(secret.metadata?.labels?.["core.navique.com/owned-by"]).toBe(`user.${ns}.ada`);
    const user = await readStoredResource(client, "User", ns, "ada");
    expect(user?.status).toMatchObject({ passwordSecret: { name: "ada-initial-password" } });
    expect(JSON.stringify(user)).not.toContain(password);
    const events = await eventsAbout(client, ns, "ada");
    expect(JSON.stringify(events)).not.toContain(password);
  });

  it("beyond the licence's cap, a second Organization is refused and nothing is made for it", async () => {
    await createResource(client, "Organization", ns, "second", { gatewayRef: { name: "llm" } });
    await reconcileUntil(context, "Organization", ns, "second", (o) => !o.requeue);
    const second = await readStoredResource(client, "Organization", ns, "second");
    expect(condition(second, "Licensed")).toMatchObject({ status: "False", reason: "InstanceCapExceeded" });
    expect(await readLiteLLMIdentity(client, "litellmorganizations", ns, "second")).toBeUndefined();
  });

  it("deleted, a User revokes: its LiteLLMUser goes (the LiteLLM operator's finalizer deletes the user in LiteLLM) and its password Secret too", async () => {
    await deleteResource(client, "User", ns, "ada");
    await finalizeResources(context, "User", ns);
    expect(await readLiteLLMIdentity(client, "litellmusers", ns, "ada")).toBeUndefined();
    expect(
      await orUndefined(client.core.readNamespacedSecret({ name: "ada-initial-password", namespace: ns })),
    ).toBeUndefined();
    expect(await readStoredResource(client, "User", ns, "ada")).toBeUndefined();
    // The rest stays.
    expect(await readLiteLLMIdentity(client, "litellmteams", ns, "search")).toBeDefined();
  });
});
