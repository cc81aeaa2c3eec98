import { parse } from "yaml";
import type { Condition } from "../../lib/api/conditions.js";
import { API_GROUP_VERSION } from "../../lib/api/group.js";
import type { EngineResource, KindModule } from "../../lib/engine/kind-module.js";
import type { KubeObject } from "../../lib/engine/objects.js";
import { type PlanContext, planResource } from "../../lib/engine/plan.js";
import type { PlanStep } from "../../lib/engine/steps.js";
import type { EngineView } from "../../lib/engine/view.js";
import { CHAT_UI_MODULE } from "../../lib/kinds/chat-ui/module.js";
import type { ChatUIStatus } from "../../lib/kinds/chat-ui/schema.js";
import { GATEWAY_MODULE } from "../../lib/kinds/gateway/module.js";
import type { GatewayStatus } from "../../lib/kinds/gateway/schema.js";
import { COMMUNITY_CAPS, communityEntitlements, type Entitlements } from "../../lib/licence/entitlements.js";
import { operatorKindPlans } from "../support/plans.js";

const NO_CAPABILITIES: PlanContext = {
  withPrerequisites: (name) => [name],
  releaseOf: (name) => ({ name, namespace: name }),
};

const AUTO_WIRING: Entitlements = {
  edition: "Licensed",
  features: new Set(["auto-wiring"]),
  caps: COMMUNITY_CAPS,
  licenseId: "lic-wiring",
};

/** The ChatUI apps/chat, on a Gateway of gateways and stores of data. */
function chatUI(extra: Record<string, unknown> = {}): EngineResource {
  return CHAT_UI_MODULE.schema.parse({
    apiVersion: API_GROUP_VERSION,
    kind: "ChatUI",
    metadata: { name: "chat", namespace: "apps", uid: "u-1", generation: 1 },
    spec: {
      gatewayRef: { name: "llm", namespace: "gateways" },
      mongoClusterRef: { name: "docs", namespace: "data" },
      meilisearchInstanceRef: { name: "search", namespace: "data" },
      ...extra,
    },
  }) as EngineResource;
}

const ready = [{ type: "Ready", status: "True", reason: "Ready", message: "ready" }];
const CLAIMANT = "ChatUI/apps/chat";
const MONGO_PASSWORD = "mongo-Planted-0001";
const MEILI_KEY = "meili-Planted-0002";
const VIRTUAL_KEY = "sk-virtual-Planted-0003";

const GATEWAY: KubeObject = {
  apiVersion: API_GROUP_VERSION,
  kind: "Gateway",
  metadata: { name: "llm", namespace: "gateways" },
  spec: { models: [{ name: "gpt-4o" }, { name: "llama3" }] },
  status: {
    conditions: ready,
    connection: { host: "llm.gateways.svc", port: 4000, url: "http://llm.gateways.svc:4000" },
    claims: [
      {
        claimant: CLAIMANT,
        credentialsSecret: { name: "llm-vk-0a1b2c3d", namespace: "gateways" },
        keys: { apiKey: "api_key" },
      },
    ],
  },
};
const MONGO: KubeObject = {
  apiVersion: API_GROUP_VERSION,
  kind: "MongoCluster",
  metadata: { name: "docs", namespace: "data" },
  spec: { mode: "managed" },
  status: {
    conditions: ready,
    connection: { host: "docs-svc.data.svc.cluster.local", port: 27017 },
    claims: [
      {
        claimant: CLAIMANT,
        database: "chatui_apps_chat_1a2b3c4d",
        user: "chatui_apps_chat_1a2b3c4d",
        credentialsSecret: { name: "docs-claim-1a2b3c4d", namespace: "data" },
      },
    ],
  },
};
const MEILISEARCH: KubeObject = {
  apiVersion: API_GROUP_VERSION,
  kind: "MeilisearchInstance",
  metadata: { name: "search", namespace: "data" },
  status: {
    conditions: ready,
    connection: {
      host: "search.data.svc",
      port: 7700,
      url: "http://search.data.svc:7700",
      credentialsSecret: { name: "search-master-key", namespace: "data" },
    },
  },
};

function seen(entitlements: Entitlements, overrides: Partial<EngineView> = {}): EngineView {
  return {
    capabilities: [],
    consumers: [],
    objects: new Map(),
    dependencies: {
      "spec.gatewayRef": GATEWAY,
      "spec.mongoClusterRef": MONGO,
      "spec.meilisearchInstanceRef": MEILISEARCH,
    },
    claimed: {
      "spec.mongoClusterRef": {
        claim: (MONGO.status as { claims: never[] }).claims[0] as never,
        credentials: { username: "chatui_apps_chat_1a2b3c4d", password: MONGO_PASSWORD },
      },
      "spec.gatewayRef": {
        claim: (GATEWAY.status as { claims: never[] }).claims[0] as never,
        credentials: { api_key: VIRTUAL_KEY },
      },
    },
    connectionCredentials: { "spec.meilisearchInstanceRef": { password: MEILI_KEY } },
    licence: {
      entitlements,
      instances: [{ name: "chat", namespace: "apps", creationTimestamp: "2027-01-01T00:00:00Z", admitted: false }],
    },
    referenceGrants: [
      {
        namespace: "gateways",
        spec: {
          from: [{ group: "core.navique.com", kind: "ChatUI", namespace: "apps" }],
          to: [{ group: "core.navique.com", kind: "Gateway" }],
        },
      },
      {
        namespace: "data",
        spec: {
          from: [{ group: "core.navique.com", kind: "ChatUI", namespace: "apps" }],
          to: [
            { group: "core.navique.com", kind: "MongoCluster" },
            { group: "core.navique.com", kind: "MeilisearchInstance" },
          ],
        },
      },
    ],
    ...overrides,
  };
}

const plan = (resource: EngineResource, view: EngineView) =>
  planResource<ChatUIStatus>(CHAT_UI_MODULE as unknown as KindModule, resource, view, NO_CAPABILITIES);
const condition = (p: { conditions: readonly Condition[] }, type: string) => p.conditions.find((c) => c.type === type);
const release = (steps: readonly PlanStep[]) =>
  steps.find((s) => s.kind === "workload-release") as Extract<PlanStep, { kind: "workload-release" }>;

describe("a ChatUI's plan", () => {
  it("auto-wired: its virtual key, database URI and search key copied beside it; its keys generated; LibreChat's values hold only references", () => {
    const wired = plan(chatUI(), seen(AUTO_WIRING));
    expect(wired.steps.map((s) => s.description)).toEqual([
      "copy its MongoDB URI, the Meilisearch master key and its virtual key into Secret apps/chat-connections",
      "create Secret apps/chat-credentials with generated CREDS_KEY, CREDS_IV, JWT_SECRET and JWT_REFRESH_SECRET (kept if it exists)",
      "install Helm release apps/chat (librechat 2.0.8)",
    ]);
    expect(wired.steps[0]).toMatchObject({
      object: {
        stringData: {
          "mongo-uri": `mongodb://chatui_apps_chat_1a2b3c4d:${MONGO_PASSWORD}@docs-svc.data.svc.cluster.local:27017/chatui_apps_chat_1a2b3c4d`,
          "meili-master-key": MEILI_KEY,
          "gateway-api-key": VIRTUAL_KEY,
        },
      },
    });
    expect(wired.steps[1]).toMatchObject({
      keys: {
        CREDS_KEY: { length: 64, alphabet: "hex" },
        CREDS_IV: { length: 32, alphabet: "hex" },
        JWT_SECRET: { length: 64, alphabet: "hex" },
        JWT_REFRESH_SECRET: { length: 64, alphabet: "hex" },
      },
    });
    const { values } = release(wired.steps);
    expect(values).toMatchObject({
      fullnameOverride: "chat",
      replicaCount: 1,
      global: {
        librechat: {
          existingSecretName: "chat-credentials",
          env: [
            { name: "MONGO_URI", valueFrom: { secretKeyRef: { name: "chat-connections", key: "mongo-uri" } } },
            {
              name: "MEILI_MASTER_KEY",
              valueFrom: { secretKeyRef: { name: "chat-connections", key: "meili-master-key" } },
            },
            {
              name: "NAVIQUE_GATEWAY_API_KEY",
              valueFrom: { secretKeyRef: { name: "chat-connections", key: "gateway-api-key" } },
            },
          ],
        },
      },
      librechat: {
        configEnv: {
          MEILI_HOST: "http://search.data.svc:7700",
          SEARCH: "true",
          DOMAIN_CLIENT: "http://chat.apps.svc:3080",
          DOMAIN_SERVER: "http://chat.apps.svc:3080",
        },
        imageVolume: { enabled: true, size: "10Gi", accessModes: "ReadWriteOnce" },
      },
      ingress: { enabled: false },
      mongodb: { enabled: false },
      meilisearch: { enabled: false },
      redis: { enabled: false },
      "librechat-rag-api": { enabled: false },
    });
    // librechat.yaml, written as JSON (which is YAML): read back by a YAML parser as LibreChat reads it.
    const config = (values.librechat as { configYamlContent: string }).configYamlContent;
    expect(parse(config)).toEqual({
      version: "1.3.14",
      cache: true,
      endpoints: {
        custom: [
          {
            name: "Gateway",
            apiKey: `\${NAVIQUE_GATEWAY_API_KEY}`,
            baseURL: "http://llm.gateways.svc:4000/v1",
            models: { default: ["gpt-4o", "llama3"], fetch: true },
            titleConvo: true,
            titleModel: "gpt-4o",
            modelDisplayLabel: "Gateway",
          },
        ],
      },
    });
    // No secret the plan read is in helm's values, a description or the status.
    const said = JSON.stringify([values, wired.steps.map((s) => s.description), wired.status]);
    for (const planted of [MONGO_PASSWORD, MEILI_KEY, VIRTUAL_KEY]) expect(said).not.toContain(planted);
    expect(wired.status.wiring).toEqual(["spec.gatewayRef → Gateway gateways/llm: auto-wired"]);
    expect(wired.status.gateway).toBe(
      "spec.gatewayRef → Gateway gateways/llm: endpoint Gateway at http://llm.gateways.svc:4000/v1 (gpt-4o, llama3), a virtual key issued for it by Gateway gateways/llm",
    );
    expect(wired.status.connection).toEqual({ host: "chat.apps.svc", port: 3080, url: "http://chat.apps.svc:3080" });
  });

  it("auto-wired, before the Gateway has issued its key: waits, applying nothing", () => {
    const waiting = plan(
      chatUI(),
      seen(AUTO_WIRING, { claimed: { ...seen(AUTO_WIRING).claimed, "spec.gatewayRef": undefined as never } }),
    );
    expect(waiting.steps).toEqual([]);
    expect(condition(waiting, "ChatUIReady")).toMatchObject({
      reason: "ClaimPending",
      message: "waiting for Gateway gateways/llm to issue the UI's virtual key (its claim)",
    });
  });

  it("under Community: Stalled until spec.gatewayKeySecretRef is set; then LibreChat reads the user's key, nothing of it copied", () => {
    const held = plan(chatUI(), seen(communityEntitlements()));
    expect(held.steps).toEqual([]);
    expect(condition(held, "DependenciesReady")?.message).toContain(
      "spec.gatewayRef: Gateway gateways/llm is not auto-wired: the Community edition does not include auto-wiring. Set spec.gatewayKeySecretRef to wire it by hand",
    );
    expect(condition(held, "Stalled")).toMatchObject({ status: "True", reason: "ManualWiringRequired" });

    const manual = chatUI({ gatewayKeySecretRef: { name: "chat-key", key: "api_key" } });
    const lacking = plan(manual, seen(communityEntitlements()));
    expect(condition(lacking, "ChatUIReady")?.message).toBe(
      "spec.gatewayKeySecretRef: Secret apps/chat-key does not exist: create it with key api_key, or point spec.gatewayKeySecretRef at one that does",
    );
    const wired = plan(
      manual,
      seen(communityEntitlements(), { reads: { "secret:spec.gatewayKeySecretRef": { api_key: "sk-mine" } } }),
    );
    expect((wired.steps[0] as Extract<PlanStep, { kind: "apply" }>).object.stringData).toEqual({
      "mongo-uri": expect.stringContaining("mongodb://"),
      "meili-master-key": MEILI_KEY,
    });
    const env = (release(wired.steps).values.global as { librechat: { env: unknown[] } }).librechat.env;
    expect(env[2]).toEqual({
      name: "NAVIQUE_GATEWAY_API_KEY",
      valueFrom: { secretKeyRef: { name: "chat-key", key: "api_key" } },
    });
    expect(wired.status.wiring).toEqual([
      "spec.gatewayRef → Gateway gateways/llm: manual: spec.gatewayKeySecretRef is set",
    ]);
  });

  it("refuses what LibreChat would refuse: an endpoint named like one of its own, a gateway with no model", () => {
    const named = CHAT_UI_MODULE.schema.safeParse({
      ...chatUI(),
      spec: { ...(chatUI().spec as object), endpointName: "openAI" },
    });
    expect(named.success).toBe(false);
    expect(named.error?.issues.map((i) => [i.path.join("."), i.message])).toEqual([
      [
        "spec.endpointName",
        "must not be one of LibreChat's own endpoints (azureOpenAI, openAI, google, anthropic, assistants, azureAssistants, agents, custom, bedrock): choose another name",
      ],
    ]);
    const bare = plan(
      chatUI(),
      seen(AUTO_WIRING, {
        dependencies: { ...seen(AUTO_WIRING).dependencies, "spec.gatewayRef": { ...GATEWAY, spec: { models: [] } } },
      }),
    );
    expect(condition(bare, "ChatUIReady")).toMatchObject({
      reason: "NoModels",
      message:
        "spec.gatewayRef: Gateway gateways/llm serves no model, and LibreChat needs at least one: add one to its spec.models",
    });
  });
});

describe("a Gateway's virtual keys", () => {
  const gateway = operatorKindPlans(
    GATEWAY_MODULE,
    { name: "llm", namespace: "gateways" },
    { capability: "litellm-operator", namespace: "litellm-operator-system" },
  );
  const resource = gateway.resource({
    database: { mode: "external", external: { connectionSecretRef: { name: "db", key: "url" } } },
    models: [{ name: "gpt-4o", provider: "openai", model: "gpt-4o" }],
  });
  const claim = { claimant: CLAIMANT, kind: "ChatUI", namespace: "apps", name: "chat", field: "spec.gatewayRef" };
  const reads = { "secret:spec.database.external.connectionSecretRef": { url: "postgresql://db" } };

  it("issues one per auto-wired consumer through the LiteLLM operator, and publishes it once synced", () => {
    const asked = gateway.plan(resource, gateway.view({ reads, claims: [claim] }));
    const key = asked.steps.find((s) => s.kind === "apply" && s.object.kind === "LiteLLMVirtualKey");
    expect(key).toMatchObject({
      object: {
        metadata: { name: expect.stringMatching(/^llm-vk-[0-9a-f]{8}$/), namespace: "gateways" },
        spec: { instanceRef: { name: "llm" }, keyAlias: CLAIMANT },
      },
      description: expect.stringContaining(`(a key of its own for ${CLAIMANT})`),
    });
    const name = (key as Extract<PlanStep, { kind: "apply" }>).object.metadata.name;
    expect((key as Extract<PlanStep, { kind: "apply" }>).object.spec).toMatchObject({ keySecretName: name });
    expect((asked.status as GatewayStatus).claims).toEqual([]);

    const synced: KubeObject = {
      apiVersion: "litellm.palena.ai/v1alpha1",
      kind: "LiteLLMVirtualKey",
      metadata: { name, namespace: "gateways" },
      status: { synced: true, keySecretRef: { name, key: "api_key" } },
    };
    const issued = gateway.plan(
      resource,
      gateway.view({ reads, claims: [claim], objects: new Map([[`LiteLLMVirtualKey/gateways/${name}`, synced]]) }),
    );
    expect((issued.status as GatewayStatus).claims).toEqual([
      { claimant: CLAIMANT, credentialsSecret: { name, namespace: "gateways" }, keys: { apiKey: "api_key" } },
    ]);
  });

  it("deleted while a ChatUI still uses it: goes all the same, saying so on its condition and once as a Warning Event", () => {
    const deleting = gateway.resource(
      {
        database: { mode: "external", external: { connectionSecretRef: { name: "db", key: "url" } } },
        models: [{ name: "gpt-4o", provider: "openai", model: "gpt-4o" }],
      },
      { conditions: [], emitted: [] },
    );
    const gone = {
      ...deleting,
      metadata: {
        ...deleting.metadata,
        deletionTimestamp: "2027-02-01T00:00:00Z",
        finalizers: ["core.navique.com/finalizer"],
      },
    };
    const plan = gateway.plan(gone as never, gateway.view({ reads, claims: [claim] }));
    const said = `while still used by ChatUI apps/chat (spec.gatewayRef): what it made for them goes with it`;
    expect(plan.conditions.find((c) => c.type === "Ready")?.message).toBe(`deleting, ${said}`);
    expect(plan.events).toContainEqual({
      type: "Warning",
      reason: "DeletedWhileInUse",
      message: `Gateway gateways/llm is being deleted ${said}, and they wait for it to come back`,
    });
    expect(plan.steps.map((s) => s.kind)).toContain("remove-finalizer");
  });
});

describe("a ChatUI whose Gateway is being deleted", () => {
  it("applies nothing and says so, naming the field and the way out, once as a Warning Event", () => {
    const deleting = { ...GATEWAY, metadata: { ...GATEWAY.metadata, deletionTimestamp: "2027-02-01T00:00:00Z" } };
    const held = plan(
      chatUI(),
      seen(AUTO_WIRING, { dependencies: { ...seen(AUTO_WIRING).dependencies, "spec.gatewayRef": deleting } }),
    );
    expect(held.steps).toEqual([]);
    expect(condition(held, "DependenciesReady")).toMatchObject({
      status: "False",
      reason: "DependencyDeleting",
      message:
        "waiting for what it depends on: spec.gatewayRef: Gateway gateways/llm is being deleted: point spec.gatewayRef at another, or create it again once it is gone. Nothing of it is applied until then",
    });
    expect(held.events.map((e) => [e.type, e.reason])).toEqual([["Warning", "DependencyDeleting"]]);
  });
});
