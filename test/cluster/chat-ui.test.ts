import { parse } from "yaml";
import { LITELLM_OPERATOR } from "../../lib/catalog/litellm-operator.js";
import { MONGODB_KUBERNETES } from "../../lib/catalog/mongodb-kubernetes.js";
import { type KubeClient, orUndefined } from "../../lib/cluster/kube-client.js";
import type { ReconcileContext } from "../../lib/engine/context.js";
import type { ChatUIStatus } from "../../lib/kinds/chat-ui/schema.js";
import type { GatewayStatus } from "../../lib/kinds/gateway/schema.js";
import type { MongoClusterStatus } from "../../lib/kinds/mongo-cluster/schema.js";
import { decodedReleaseRecords } from "../support/capabilities.js";
import { capabilitySuite } from "../support/capability-suite.js";
import { condition } from "../support/cluster.js";
import { playLiteLLMOperator, playLiteLLMVirtualKeys } from "../support/litellm.js";
import { playMongoDBOperator } from "../support/mongodb.js";
import { expectPlantedNowhere, recordedEvents } from "../support/planted-secret.js";
import {
  createReferenceGrant,
  createResource,
  deleteResource,
  finalizeResources,
  readStoredResource,
  reconcileUntil,
} from "../support/resources.js";
import { deleteProvisionedVolumes, provisionVolume } from "../support/volumes.js";

const MEILI_KEY = "planted-meili-master-6d2e";
const SUITE = "chat-ui";
const LITELLM = { group: "litellm.palena.ai", version: "v1alpha1", plural: "litellmvirtualkeys" };

const decoded = (secret: { data?: Record<string, string> } | undefined, key: string) =>
  Buffer.from(secret?.data?.[key] ?? "", "base64").toString();

type Env = { name: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } };

// ChatUI on the real plane with real helm, under a licence with auto-wiring: the LibreChat release of the
// fixture chart (test/fixtures/charts/librechat, standing in for the official chart 2.0.8) on a managed
// MongoCluster (MCK from its fixture chart, its controller played) and an external Meilisearch, talking to
// a Gateway of another namespace (the LiteLLM operator from its fixture chart, its instance and virtual-key
// controllers played: no proxy runs, so the key is the played controller's). kwok runs the pods as Ready.
describe("ChatUI", () => {
  const suite = capabilitySuite({
    capabilities: [LITELLM_OPERATOR, MONGODB_KUBERNETES],
    licence: { features: ["auto-wiring"] },
  });
  const { namespaces } = suite;
  let client: KubeClient;
  let context: ReconcileContext;
  beforeAll(() => {
    ({ client, context } = suite);
  });
  afterAll(async () => {
    if (client) await deleteProvisionedVolumes(client, SUITE);
  });

  it("auto-wired: a virtual key of its own from the Gateway, its database claimed, every secret by reference; deleted, its key revoked", async () => {
    const data = await namespaces.create("chat-data");
    const gateways = await namespaces.create("chat-gateways");
    const apps = await namespaces.create("chat-apps");
    // Its stores: a managed MongoCluster and an external Meilisearch.
    await createResource(client, "MongoCluster", data, "docs", { managed: { deletionPolicy: "Delete" } });
    const playMongo = () => playMongoDBOperator(client, data, "docs");
    await reconcileUntil(context, "MongoCluster", data, "docs", (o) => !o.requeue, playMongo);
    await client.core.createNamespacedSecret({
      namespace: data,
      body: { metadata: { name: "search-conn" }, stringData: { host: "search.data.internal", password: MEILI_KEY } },
    });
    await createResource(client, "MeilisearchInstance", data, "search", {
      mode: "external",
      external: { connectionSecretRef: { name: "search-conn" } },
    });
    await reconcileUntil(context, "MeilisearchInstance", data, "search", (o) => !o.requeue);
    // Its gateway.
    await client.core.createNamespacedSecret({
      namespace: gateways,
      body: {
        metadata: { name: "gateway-db" },
        stringData: { url: "postgresql://llm:pw@db.example.internal:5432/llm" },
      },
    });
    await createResource(client, "Gateway", gateways, "llm", {
      database: { mode: "external", external: { connectionSecretRef: { name: "gateway-db", key: "url" } } },
      models: [
        { name: "gpt-4o", provider: "openai", model: "gpt-4o" },
        { name: "llama3", provider: "ollama", model: "llama3", apiBase: "http://ollama.models.svc:11434" },
      ],
    });
    const playGateway = async () => {
      await playLiteLLMOperator(client, gateways, "llm");
      await playLiteLLMVirtualKeys(client, gateways);
    };
    await reconcileUntil(context, "Gateway", gateways, "llm", (o) => !o.requeue, playGateway);

    await createResource(client, "ChatUI", apps, "chat", {
      gatewayRef: { name: "llm", namespace: gateways },
      mongoClusterRef: { name: "docs", namespace: data },
      meilisearchInstanceRef: { name: "search", namespace: data },
    });
    const from = [{ group: "core.navique.com", kind: "ChatUI", namespace: apps }];
    await createReferenceGrant(client, gateways, "chat", {
      from,
      to: [{ group: "core.navique.com", kind: "Gateway", name: "llm" }],
    });
    await createReferenceGrant(client, data, "chat", {
      from,
      to: [
        { group: "core.navique.com", kind: "MongoCluster", name: "docs" },
        { group: "core.navique.com", kind: "MeilisearchInstance", name: "search" },
      ],
    });

    // Each claim, then the key: it waits, saying for what; the cluster and the gateway each make theirs.
    await reconcileUntil(
      context,
      "ChatUI",
      apps,
      "chat",
      (o) => condition(o.plan, "ChatUIReady")?.reason === "ClaimPending",
    );
    const made = await reconcileUntil(
      context,
      "MongoCluster",
      data,
      "docs",
      (o) => !o.requeue && ((o.plan.status as MongoClusterStatus).claims ?? []).length === 1,
      playMongo,
    );
    const [claim] = (made.plan.status as MongoClusterStatus).claims ?? [];
    expect(claim?.claimant).toBe(`ChatUI/${apps}/chat`);
    const pendingKey = await reconcileUntil(context, "ChatUI", apps, "chat", (o) =>
      (condition(o.plan, "ChatUIReady")?.message ?? "").includes("virtual key"),
    );
    expect(condition(pendingKey.plan, "ChatUIReady")?.message).toBe(
      `waiting for Gateway ${gateways}/llm to issue the UI's virtual key (its claim)`,
    );
    const issuing = await reconcileUntil(
      context,
      "Gateway",
      gateways,
      "llm",
      (o) => !o.requeue && ((o.plan.status as GatewayStatus).claims ?? []).length === 1,
      playGateway,
    );
    const [keyClaim] = (issuing.plan.status as GatewayStatus).claims ?? [];
    const keyName = keyClaim?.credentialsSecret.name ?? "";
    expect(keyClaim).toEqual({
      claimant: `ChatUI/${apps}/chat`,
      credentialsSecret: { name: expect.stringMatching(/^llm-vk-[0-9a-f]{8}$/), namespace: gateways },
      keys: { apiKey: "api_key" },
    });
    const virtualKey = (await client.custom.getNamespacedCustomObject({
      ...LITELLM,
      namespace: gateways,
      name: keyName,
    })) as {
      spec: Record<string, unknown>;
    };
    expect(virtualKey.spec).toEqual({
      instanceRef: { name: "llm" },
      keyAlias: `ChatUI/${apps}/chat`,
      keySecretName: keyName,
    });
    expect(condition(await readStoredResource(client, "Gateway", gateways, "llm"), "Ready")?.status).toBe("True");

    const ready = await reconcileUntil<ChatUIStatus>(
      context,
      "ChatUI",
      apps,
      "chat",
      (o) => !o.requeue,
      () => provisionVolume(client, SUITE, apps, "chat-images"),
    );
    const stored = await readStoredResource(client, "ChatUI", apps, "chat");
    expect(condition(stored, "Ready")).toMatchObject({
      status: "True",
      message: `LibreChat serving Gateway at http://chat.${apps}.svc:3080`,
    });
    expect(ready.plan.status.wiring).toEqual([`spec.gatewayRef → Gateway ${gateways}/llm: auto-wired`]);
    expect(ready.plan.status.gateway).toBe(
      `spec.gatewayRef → Gateway ${gateways}/llm: endpoint Gateway at http://llm.${gateways}.svc:4000/v1 (gpt-4o, llama3), a virtual key issued for it by Gateway ${gateways}/llm`,
    );

    // What LibreChat reads: its keys generated, its connections copied beside it, the virtual key among them.
    const issuedKey = decoded(
      await client.core.readNamespacedSecret({ name: keyName, namespace: gateways }),
      "api_key",
    );
    const connections = await client.core.readNamespacedSecret({ name: "chat-connections", namespace: apps });
    expect(decoded(connections, "gateway-api-key")).toBe(issuedKey);
    expect(decoded(connections, "meili-master-key")).toBe(MEILI_KEY);
    const claimSecret = await client.core.readNamespacedSecret({
      name: claim?.credentialsSecret.name ?? "",
      namespace: data,
    });
    const mongoPassword = decoded(claimSecret, "password");
    expect(decoded(connections, "mongo-uri")).toBe(
      `mongodb://${claim?.user}:${encodeURIComponent(mongoPassword)}@docs-svc.${data}.svc:27017/${claim?.database}`,
    );
    const credentials = await client.core.readNamespacedSecret({ name: "chat-credentials", namespace: apps });
    expect(decoded(credentials, "CREDS_KEY")).toMatch(/^[0-9a-f]{64}$/);
    expect(decoded(credentials, "CREDS_IV")).toMatch(/^[0-9a-f]{32}$/);
    expect(decoded(credentials, "JWT_SECRET")).toMatch(/^[0-9a-f]{64}$/);
    expect(decoded(credentials, "JWT_REFRESH_SECRET")).toMatch(/^[0-9a-f]{64}$/);

    // What the chart rendered: the generated keys loaded whole, the rest by secretKeyRef, librechat.yaml mounted.
    const deployment = await client.apps.readNamespacedDeployment({ name: "chat", namespace: apps });
    const container = deployment.spec?.template.spec?.containers[0];
    expect(container?.envFrom).toEqual([
      { configMapRef: { name: "chat-configenv" } },
      { secretRef: { name: "chat-credentials", optional: true } },
    ]);
    expect((container?.env ?? []) as Env[]).toEqual([
      { name: "MONGO_URI", valueFrom: { secretKeyRef: { name: "chat-connections", key: "mongo-uri" } } },
      { name: "MEILI_MASTER_KEY", valueFrom: { secretKeyRef: { name: "chat-connections", key: "meili-master-key" } } },
      {
        name: "NAVIQUE_GATEWAY_API_KEY",
        valueFrom: { secretKeyRef: { name: "chat-connections", key: "gateway-api-key" } },
      },
    ]);
    const configEnv = await client.core.readNamespacedConfigMap({ name: "chat-configenv", namespace: apps });
    expect(configEnv.data).toEqual({
      MEILI_HOST: "http://search.data.internal:7700",
      SEARCH: "true",
      DOMAIN_CLIENT: `http://chat.${apps}.svc:3080`,
      DOMAIN_SERVER: `http://chat.${apps}.svc:3080`,
    });
    const config = await client.core.readNamespacedConfigMap({ name: "chat-config", namespace: apps });
    const endpoint = (parse(config.data?.["librechat.yaml"] ?? "") as { endpoints: { custom: unknown[] } }).endpoints
      .custom[0];
    expect(endpoint).toMatchObject({
      baseURL: `http://llm.${gateways}.svc:4000/v1`,
      apiKey: `\${NAVIQUE_GATEWAY_API_KEY}`,
      models: { default: ["gpt-4o", "llama3"], fetch: true },
    });

    // No secret in helm's record, the resources, their statuses or the Events.
    const records = await decodedReleaseRecords(client, apps, "chat");
    expect(records.map((r) => [r.record.revision, r.record.status])).toEqual([[1, "deployed"]]);
    expectPlantedNowhere([issuedKey, mongoPassword, MEILI_KEY, decoded(credentials, "CREDS_KEY")], {
      [`helm's record of ${apps}/chat`]: records.map((r) => r.raw),
      [`ChatUI ${apps}/chat`]: stored,
      [`Gateway ${gateways}/llm`]: await readStoredResource(client, "Gateway", gateways, "llm"),
      [`the Events of ${apps}, ${gateways} and ${data}`]: await recordedEvents(client, apps, gateways, data),
    });

    // Deleted: the release uninstalled, its Secrets gone; the gateway's next pass deletes its virtual key
    // (the LiteLLM operator then revokes it), the cluster's drops its user and database.
    await deleteResource(client, "ChatUI", apps, "chat");
    await finalizeResources(context, "ChatUI", apps);
    expect(await decodedReleaseRecords(client, apps, "chat")).toEqual([]);
    for (const name of ["chat-connections", "chat-credentials"])
      expect(await orUndefined(client.core.readNamespacedSecret({ name, namespace: apps }))).toBeUndefined();
    const after = await reconcileUntil(context, "Gateway", gateways, "llm", (o) => !o.requeue, playGateway);
    expect(after.performedInAllPasses).toContain(
      `delete LiteLLMVirtualKey ${gateways}/${keyName} (no longer in the spec)`,
    );
    expect((after.plan.status as GatewayStatus).claims).toEqual([]);
    expect(
      await orUndefined(client.custom.getNamespacedCustomObject({ ...LITELLM, namespace: gateways, name: keyName })),
    ).toBeUndefined();
    const released = await reconcileUntil(context, "MongoCluster", data, "docs", (o) => !o.requeue, playMongo);
    expect((released.plan.status as MongoClusterStatus).claims).toEqual([]);

    await finalizeResources(context, "Gateway", gateways);
    await finalizeResources(context, "MeilisearchInstance", data);
    await finalizeResources(context, "MongoCluster", data);
  }, 300_000);
});
