import { API_GROUP, API_VERSION } from "../../lib/api/group.js";
import { REFERENCE_GRANT_PLURAL } from "../../lib/api/reference-grant.js";
import { LITELLM_OPERATOR } from "../../lib/catalog/litellm-operator.js";
import { type KubeClient, orUndefined } from "../../lib/cluster/kube-client.js";
import type { ReconcileContext } from "../../lib/engine/context.js";
import { capabilitySuite } from "../support/capability-suite.js";
import { condition } from "../support/cluster.js";
import { playLiteLLMIdentities, playLiteLLMOperator, readLiteLLMIdentity } from "../support/litellm.js";
import { eventsAbout } from "../support/postgres.js";
import {
  createReferenceGrant,
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
    licence: { features: ["identities"], caps: { Organization: 1, Team: 4, User: 3 } },
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

  it("a Team in an Organization of the same gateway: its LiteLLMTeam names the Organization's LiteLLMOrganization", async () => {
    await createResource(client, "Team", ns, "core", {
      gatewayRef: { name: "llm" },
      organizationRef: { name: "research" },
    });
    await syncedBy("Team", "core");
    expect(condition(await readStoredResource(client, "Team", ns, "core"), "Ready")).toMatchObject({ status: "True" });
    expect((await readLiteLLMIdentity(client, "litellmteams", ns, "core"))?.spec).toMatchObject({
      instanceRef: { name: "llm" },
      organizationRef: { name: "research" },
    });
  });

  describe("naming a Gateway of another namespace", () => {
    let apps = "";
    const grant = "identities";
    beforeAll(async () => {
      apps = await suite.namespaces.create("identities-apps");
    });
    const gatewayRef = () => ({ name: "llm", namespace: ns });
    const placed = (name: string) => `${apps}.${name}`;

    it("without a ReferenceGrant beside the Gateway nothing is made, and the condition says which grant to create", async () => {
      await createResource(client, "Team", apps, "ops", { gatewayRef: gatewayRef(), alias: "Ops" });
      await reconcileUntil(context, "Team", apps, "ops", (o) => !o.requeue);
      expect(condition(await readStoredResource(client, "Team", apps, "ops"), "Ready")).toMatchObject({
        status: "False",
        reason: "ReferenceNotPermitted",
        message: `spec.gatewayRef (namespace ${ns}) is not granted by the referenced namespace: nothing was read, copied or created there. Create a ReferenceGrant in namespace ${ns} from group core.navique.com kind Team namespace ${apps} to group core.navique.com kind Gateway name llm`,
      });
      expect(await readLiteLLMIdentity(client, "litellmteams", ns, placed("ops"))).toBeUndefined();
    });

    it("under the grant, each identity's LiteLLM object is made beside the Gateway as <namespace>.<name>, its password Secret in its own namespace", async () => {
      await createReferenceGrant(client, ns, grant, {
        from: [
          { group: "core.navique.com", kind: "Team", namespace: apps },
          { group: "core.navique.com", kind: "User", namespace: apps },
        ],
        to: [{ group: "core.navique.com", kind: "Gateway", name: "llm" }],
      });
      await createResource(client, "User", apps, "lin", {
        gatewayRef: gatewayRef(),
        email: "lin@example.com",
        teams: [{ name: "ops" }],
      });
      const played = () => playLiteLLMIdentities(client, ns).then(() => undefined);
      await reconcileUntil(context, "Team", apps, "ops", (o) => !o.requeue, played);
      await reconcileUntil(context, "User", apps, "lin", (o) => !o.requeue, played);
      for (const [kind, name] of [
        ["Team", "ops"],
        ["User", "lin"],
      ] as const) {
        expect(condition(await readStoredResource(client, kind, apps, name), "Ready")).toMatchObject({
          status: "True",
        });
      }
      const team = await readLiteLLMIdentity(client, "litellmteams", ns, placed("ops"));
      expect(team?.spec).toEqual({ instanceRef: { name: "llm" }, teamAlias: "Ops", memberManagement: "mixed" });
      expect(team?.metadata.labels?.["core.navique.com/owned-by"]).toBe(`team.${apps}.ops`);
      expect((await readLiteLLMIdentity(client, "litellmusers", ns, placed("lin")))?.spec).toMatchObject({
        instanceRef: { name: "llm" },
        userId: "lin@example.com",
        teams: [{ teamRef: { name: placed("ops") }, role: "user" }],
      });
      // Nothing of theirs under their own names beside the gateway, nor in their namespace.
      expect(await readLiteLLMIdentity(client, "litellmteams", ns, "ops")).toBeUndefined();
      expect(await readLiteLLMIdentity(client, "litellmteams", apps, "ops")).toBeUndefined();
      const secret = await client.core.readNamespacedSecret({ name: "lin-initial-password", namespace: apps });
      expect(Buffer.from(secret.data?.password ?? "", "base64").toString()).toMatch(/^[A-Za-z0-9]{24}$/);
    });

    it("a Team of another Gateway does not fit a User: nothing is made for the User, Stalled, and a Warning says how to fix it", async () => {
      // This Team names a Gateway of its own namespace (apps/llm), the User the one beside `ns`.
      await createResource(client, "Team", apps, "local", { gatewayRef: { name: "llm" } });
      await createResource(client, "User", apps, "max", {
        gatewayRef: gatewayRef(),
        email: "max@example.com",
        teams: [{ name: "local" }],
      });
      await reconcileUntil(context, "User", apps, "max", () => true);
      const user = await readStoredResource(client, "User", apps, "max");
      const expected = `spec.teams[0].name: Team ${apps}/local is of Gateway ${apps}/llm, not of this User's Gateway ${ns}/llm: LiteLLM keeps each gateway's identities apart. Point both spec.gatewayRef at the same Gateway`;
      expect(condition(user, "DependenciesReady")).toMatchObject({
        status: "False",
        reason: "DependencyMismatch",
        message: expect.stringContaining(expected),
      });
      expect(condition(user, "Stalled")).toMatchObject({ status: "True", reason: "DependencyMismatch" });
      expect(await eventsAbout(client, apps, "max")).toContainEqual(
        expect.objectContaining({
          type: "Warning",
          reason: "DependencyMismatch",
          note: expect.stringContaining(expected),
        }),
      );
      expect(await readLiteLLMIdentity(client, "litellmusers", ns, placed("max"))).toBeUndefined();
      expect(
        await orUndefined(client.core.readNamespacedSecret({ name: "max-initial-password", namespace: apps })),
      ).toBeUndefined();
    });

    it("deleted, a User of another namespace revokes beside the Gateway: its LiteLLMUser there goes, its password Secret here", async () => {
      await deleteResource(client, "User", apps, "lin");
      await finalizeResources(context, "User", apps);
      expect(await readStoredResource(client, "User", apps, "lin")).toBeUndefined();
      expect(await readLiteLLMIdentity(client, "litellmusers", ns, placed("lin"))).toBeUndefined();
      expect(
        await orUndefined(client.core.readNamespacedSecret({ name: "lin-initial-password", namespace: apps })),
      ).toBeUndefined();
    });

    it("the grant revoked, what was made beside the Gateway under it is deleted, and the Team says which grant to create", async () => {
      await client.custom.deleteNamespacedCustomObject({
        group: API_GROUP,
        version: API_VERSION,
        plural: REFERENCE_GRANT_PLURAL,
        namespace: ns,
        name: grant,
      });
      await reconcileUntil(context, "Team", apps, "ops", (o) => !o.requeue);
      expect(await readLiteLLMIdentity(client, "litellmteams", ns, placed("ops"))).toBeUndefined();
      const team = await readStoredResource(client, "Team", apps, "ops");
      expect(condition(team, "Ready")).toMatchObject({ status: "False", reason: "ReferenceNotPermitted" });
      expect((team?.status as { emitted?: unknown[] } | undefined)?.emitted ?? []).toEqual([]);
      expect(await eventsAbout(client, apps, "ops")).toContainEqual(
        expect.objectContaining({
          reason: "GarbageCollected",
          note: `deleting LiteLLMTeam ${ns}/${placed("ops")}: the grant in namespace ${ns} that allowed making it is gone`,
        }),
      );
      // Beside the Gateway, nothing else was touched: the gateway's own identities stay.
      expect(await readLiteLLMIdentity(client, "litellmteams", ns, "search")).toBeDefined();
    });
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
