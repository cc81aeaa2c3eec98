import { LITELLM_OPERATOR } from "../../lib/catalog/litellm-operator.js";
import type { HelmCli } from "../../lib/cluster/helm-cli.js";
import { type KubeClient, orUndefined } from "../../lib/cluster/kube-client.js";
import type { ReconcileContext } from "../../lib/engine/context.js";
import type { GatewayStatus } from "../../lib/kinds/gateway/schema.js";
import { toolchainPaths } from "../../lib/local-plane/toolchain-paths.js";
import { destroy, up } from "../../providers/pulumi/runtime.js";
import { FIXTURE_CHARTS } from "../support/capabilities.js";
import { capabilitySuite } from "../support/capability-suite.js";
import { condition, eventually } from "../support/cluster.js";
import { applyLicence, removeLicence, TEST_TRUSTED_KEYS, testLicenceToken } from "../support/licence.js";
import { playLiteLLMOperator, readLiteLLM } from "../support/litellm.js";
import { inProcessOperator } from "../support/operator.js";
import { expectPlantedNowhere, recordedEvents } from "../support/planted-secret.js";
import {
  createReferenceGrant,
  createResource,
  finalizeResources,
  readStoredResource,
  reconcileUntil,
} from "../support/resources.js";

const statusOf = (outcome: { plan: { status: unknown } }) => outcome.plan.status as GatewayStatus;

/** A provider key and a database URL, planted: neither may appear anywhere the product writes. */
const PROVIDER_KEY = "sk-planted-provider-key-6f1e";
const DATABASE_URL = "postgresql://gateway:planted-db-password-93ab@db.example:5432/litellm";

async function secret(client: KubeClient, namespace: string, name: string, data: Record<string, string>) {
  await client.core.createNamespacedSecret({ namespace, body: { metadata: { name }, stringData: data } });
}

const MODELS = [
  { name: "gpt-4o", provider: "openai", model: "gpt-4o", apiKeySecretRef: { name: "openai", key: "api-key" } },
  { name: "llama3", provider: "ollama", model: "llama3", apiBase: "http://ollama.models.svc:11434" },
];

// Gateway on the real plane with real helm: the LiteLLM operator installed from the fixture chart
// (test/fixtures/charts/litellm-operator, standing in for chart 0.23.0), its controller played by
// test/support/litellm.ts (no pod runs here; no proxy could reach a provider).
describe("Gateway", () => {
  // Under the Community edition: the manual wiring it asks for is part of what is tested.
  const suite = capabilitySuite({ capabilities: [LITELLM_OPERATOR] });
  const { namespaces } = suite;
  let client: KubeClient;
  let helm: HelmCli;
  let context: ReconcileContext;
  beforeAll(() => {
    ({ client, helm, context } = suite);
  });

  it("external database: installs the LiteLLM operator, generates the keys, emits the instance and one model per entry; Ready once the operator reports them; deleted, the operator released", async () => {
    const ns = await namespaces.create("gw-external");
    await secret(client, ns, "gateway-db", { url: DATABASE_URL });
    await secret(client, ns, "openai", { "api-key": PROVIDER_KEY });
    await createResource(client, "Gateway", ns, "llm", {
      models: MODELS,
      database: { mode: "external", external: { connectionSecretRef: { name: "gateway-db", key: "url" } } },
    });
    const ready = await reconcileUntil(
      context,
      "Gateway",
      ns,
      "llm",
      (o) => !o.requeue,
      () => playLiteLLMOperator(client, ns, "llm"),
    );
    expect(statusOf(ready).connection).toEqual({
      host: `llm.${ns}.svc`,
      port: 4000,
      credentialsSecret: { name: "llm-master-key", namespace: ns },
      url: `http://llm.${ns}.svc:4000`,
    });
    expect(statusOf(ready).models).toEqual([
      { name: "gpt-4o", synced: true },
      { name: "llama3", synced: true },
    ]);
    const stored = await readStoredResource(client, "Gateway", ns, "llm");
    expect(condition(stored, "Ready")).toMatchObject({
      status: "True",
      message: `Gateway serving 2 model(s) at http://llm.${ns}.svc:4000`,
    });
    expect((await helm.status("litellm-operator", "litellm-operator-system"))?.info.status).toBe("deployed");
    // In place: a further pass changes nothing, so says nothing.
    const said: string[] = [];
    const quiet = { ...context, report: (line: string) => void said.push(line) };
    await reconcileUntil(quiet, "Gateway", ns, "llm", () => true);
    expect(said).toEqual([]);

    // The keys: sk- and 64 hex characters, as the LiteLLM operator generates its own; the master key under
    // LiteLLM's key and the connection's.
    const keys = await client.core.readNamespacedSecret({ name: "llm-master-key", namespace: ns });
    const decoded = (key: string, from = keys) => Buffer.from(from.data?.[key] ?? "", "base64").toString();
    expect(decoded("master-key")).toMatch(/^sk-[0-9a-f]{64}$/);
    expect(decoded("password")).toBe(decoded("master-key"));
    const salt = await client.core.readNamespacedSecret({ name: "llm-salt-key", namespace: ns });
    expect(decoded("salt-key", salt)).toMatch(/^sk-[0-9a-f]{64}$/);
    expect(decoded("salt-key", salt)).not.toBe(decoded("master-key"));

    // Every secret by reference: the instance names the Secrets, the model the provider key's.
    const instance = await readLiteLLM(client, "litellminstances", ns, "llm");
    expect(instance?.spec).toMatchObject({
      masterKey: { secretRef: { name: "llm-master-key", key: "master-key" } },
      saltKey: { secretRef: { name: "llm-salt-key", key: "salt-key" } },
      database: { external: { connectionSecretRef: { name: "gateway-db", key: "url" } } },
      replicas: 1,
    });
    expect(instance?.metadata.labels?.["core.navique.com/owned-by"]).toBeDefined();
    expect((await readLiteLLM(client, "litellmmodels", ns, "llm-gpt-4o"))?.spec).toEqual({
      instanceRef: { name: "llm" },
      modelName: "gpt-4o",
      litellmParams: { model: "openai/gpt-4o", apiKeySecretRef: { name: "openai", key: "api-key" } },
    });
    expect((await readLiteLLM(client, "litellmmodels", ns, "llm-llama3"))?.spec).toMatchObject({
      litellmParams: { model: "ollama/llama3", apiBase: "http://ollama.models.svc:11434" },
    });
    // No value of a secret in what the product wrote: the resource, its instance and models, its Events.
    expectPlantedNowhere([PROVIDER_KEY, "planted-db-password", decoded("master-key"), decoded("salt-key", salt)], {
      [`Gateway ${ns}/llm`]: stored,
      [`LiteLLMInstance ${ns}/llm`]: instance,
      [`LiteLLMModel ${ns}/llm-gpt-4o`]: await readLiteLLM(client, "litellmmodels", ns, "llm-gpt-4o"),
      [`the Events of ${ns}`]: await recordedEvents(client, ns),
    });

    // A model removed from the spec: its LiteLLMModel goes, the other stays.
    await client.custom.patchNamespacedCustomObject({
      group: "core.navique.com",
      version: "v1alpha1",
      plural: "gateways",
      namespace: ns,
      name: "llm",
      body: [{ op: "remove", path: "/spec/models/1" }],
    });
    await reconcileUntil(context, "Gateway", ns, "llm", (o) => !o.requeue);
    expect(await readLiteLLM(client, "litellmmodels", ns, "llm-llama3")).toBeUndefined();
    expect(await readLiteLLM(client, "litellmmodels", ns, "llm-gpt-4o")).toBeDefined();

    // Deleted: its objects go, and the LiteLLM operator, installed for it and needed by nothing else.
    await finalizeResources(context, "Gateway", ns);
    expect(await readLiteLLM(client, "litellminstances", ns, "llm")).toBeUndefined();
    expect(await helm.status("litellm-operator", "litellm-operator-system")).toBeUndefined();
  }, 240_000);

  it("refuses to wire a Secret key that is not there, naming the field, and emits nothing", async () => {
    const ns = await namespaces.create("gw-missing");
    await secret(client, ns, "gateway-db", { uri: DATABASE_URL });
    await createResource(client, "Gateway", ns, "llm", {
      models: [MODELS[0]],
      database: { mode: "external", external: { connectionSecretRef: { name: "gateway-db", key: "url" } } },
    });
    await reconcileUntil(context, "Gateway", ns, "llm", (o) =>
      o.plan.steps.every((s) => s.kind !== "ensure-capability"),
    );
    const stored = await readStoredResource(client, "Gateway", ns, "llm");
    expect(condition(stored, "GatewayReady")).toMatchObject({
      status: "False",
      reason: "SecretMissing",
      message: `spec.database.external.connectionSecretRef: Secret ${ns}/gateway-db has no key url (it has uri): add it, or set spec.database.external.connectionSecretRef.key`,
    });
    expect(await readLiteLLM(client, "litellminstances", ns, "llm")).toBeUndefined();
    await finalizeResources(context, "Gateway", ns);
  }, 240_000);

  it("on a shared PostgresCluster in another namespace, under a grant: wired by hand under Community; licensed, auto-wired — an external cluster takes no claim, and says so", async () => {
    const data = await namespaces.create("gw-data");
    const apps = await namespaces.create("gw-apps");
    // The shared cluster: external mode, Ready from its connection Secret alone (no CNPG needed).
    await secret(client, data, "pg", { host: "pg.example", port: "5432", username: "app", password: "pw" });
    await createResource(client, "PostgresCluster", data, "shared", {
      mode: "external",
      external: { connectionSecretRef: { name: "pg" } },
    });
    await reconcileUntil(context, "PostgresCluster", data, "shared", (o) => !o.requeue);
    await secret(client, apps, "gateway-db", { url: DATABASE_URL });
    await createResource(client, "Gateway", apps, "llm", {
      database: { mode: "postgresCluster", postgresClusterRef: { name: "shared", namespace: data } },
    });

    // No grant: refused, naming the grant to create.
    await reconcileUntil(context, "Gateway", apps, "llm", (o) => o.plan.steps.length === 0 || !o.requeue);
    const refused = await readStoredResource(client, "Gateway", apps, "llm");
    expect(condition(refused, "Ready")?.status).toBe("False");
    expect(condition(refused, "Ready")?.message).toContain("ReferenceGrant");

    await createReferenceGrant(client, data, "gateways", {
      from: [{ group: "core.navique.com", kind: "Gateway", namespace: apps }],
      to: [{ group: "core.navique.com", kind: "PostgresCluster", name: "shared" }],
    });
    // Community: manual wiring, the condition naming the field to set.
    await eventually("DependenciesReady to ask for the manual field", async () => {
      await reconcileUntil(context, "Gateway", apps, "llm", () => true);
      const now = condition(await readStoredResource(client, "Gateway", apps, "llm"), "DependenciesReady");
      return now?.reason === "ManualWiringRequired" ? now : undefined;
    });
    const waiting = await readStoredResource(client, "Gateway", apps, "llm");
    expect(condition(waiting, "DependenciesReady")?.message).toContain("Set spec.database.databaseUrlSecretRef");
    expect(await readLiteLLM(client, "litellminstances", apps, "llm")).toBeUndefined();

    await client.custom.patchNamespacedCustomObject({
      group: "core.navique.com",
      version: "v1alpha1",
      plural: "gateways",
      namespace: apps,
      name: "llm",
      body: [{ op: "add", path: "/spec/database/databaseUrlSecretRef", value: { name: "gateway-db", key: "url" } }],
    });
    const wired = await reconcileUntil(
      context,
      "Gateway",
      apps,
      "llm",
      (o) => !o.requeue,
      () => playLiteLLMOperator(client, apps, "llm"),
    );
    expect(statusOf(wired).wiring).toEqual([
      `spec.database.postgresClusterRef → PostgresCluster ${data}/shared: manual: spec.database.databaseUrlSecretRef is set`,
    ]);
    expect(condition(await readStoredResource(client, "Gateway", apps, "llm"), "Ready")?.status).toBe("True");
    expect((await readLiteLLM(client, "litellminstances", apps, "llm"))?.spec).toMatchObject({
      database: { external: { connectionSecretRef: { name: "gateway-db", key: "url" } } },
    });

    // Licensed with auto-wiring: the gateway's own database would be claimed, which an external cluster
    // does not take: said, Stalled, and nothing of the manual wiring applied in its place.
    await applyLicence(client, testLicenceToken({ features: ["auto-wiring"] }));
    // A manual field filled wins under any licence: emptied, the reference is auto-wired.
    await client.custom.patchNamespacedCustomObject({
      group: "core.navique.com",
      version: "v1alpha1",
      plural: "gateways",
      namespace: apps,
      name: "llm",
      body: [{ op: "remove", path: "/spec/database/databaseUrlSecretRef" }],
    });
    await eventually("the auto-wiring verdict", async () => {
      await reconcileUntil(context, "Gateway", apps, "llm", () => true);
      const now = condition(await readStoredResource(client, "Gateway", apps, "llm"), "GatewayReady");
      return now?.reason === "ClaimNotTaken" ? now : undefined;
    });
    const licensed = await readStoredResource(client, "Gateway", apps, "llm");
    expect(condition(licensed, "GatewayReady")?.message).toBe(
      `spec.database.postgresClusterRef: PostgresCluster ${data}/shared makes no database of its own for a consumer in its mode (external): point spec.database.postgresClusterRef at a managed PostgresCluster, or at an adopting one with spec.adopt.claims set, or set spec.database.databaseUrlSecretRef to wire the gateway by hand`,
    );
    expect(condition(licensed, "Stalled")?.status).toBe("True");
    expect((licensed?.status as GatewayStatus | undefined)?.wiring).toEqual([
      `spec.database.postgresClusterRef → PostgresCluster ${data}/shared: auto-wired`,
    ]);
    await removeLicence(client);
    await finalizeResources(context, "Gateway", apps);
    await finalizeResources(context, "PostgresCluster", data);
  }, 240_000);

  it("through the Pulumi runtime: its outputs, the master key a secret; destroy removes what it made", async () => {
    const ns = await namespaces.create("gw-pulumi");
    await secret(client, ns, "gateway-db", { url: DATABASE_URL });
    const inputs = {
      kind: "Gateway",
      namespace: ns,
      name: "via-pulumi",
      spec: { database: { mode: "external", external: { connectionSecretRef: { name: "gateway-db", key: "url" } } } },
      kubeconfig: process.env.NAVIQUE_TEST_KUBECONFIG ?? "",
      helm: (await toolchainPaths()).helm,
      chartSource: `dir:${FIXTURE_CHARTS}`,
      timeoutSeconds: 120,
    };
    const operator = setInterval(() => void playLiteLLMOperator(client, ns, "via-pulumi").catch(() => undefined), 300);
    try {
      const { outs } = await up(inputs, TEST_TRUSTED_KEYS);
      const keys = await client.core.readNamespacedSecret({ name: "via-pulumi-master-key", namespace: ns });
      expect(outs).toMatchObject({
        url: `http://via-pulumi.${ns}.svc:4000`,
        host: `via-pulumi.${ns}.svc`,
        port: 4000,
        credentialsSecret: { name: "via-pulumi-master-key", namespace: ns },
        masterKey: Buffer.from(keys.data?.["master-key"] ?? "", "base64").toString(),
      });
      expect(String((outs as { masterKey: string }).masterKey)).toMatch(/^sk-[0-9a-f]{64}$/);
    } finally {
      clearInterval(operator);
    }
    await destroy(inputs, TEST_TRUSTED_KEYS);
    expect(await readLiteLLM(client, "litellminstances", ns, "via-pulumi")).toBeUndefined();
    expect(
      await orUndefined(client.core.readNamespacedSecret({ name: "via-pulumi-master-key", namespace: ns })),
    ).toBeUndefined();
  }, 240_000);

  it("through the operator: Ready once the LiteLLM operator reports it", async () => {
    const ns = await namespaces.create("gw-operator");
    await secret(client, ns, "gateway-db", { url: DATABASE_URL });
    await createResource(client, "Gateway", ns, "ops", {
      database: { mode: "external", external: { connectionSecretRef: { name: "gateway-db", key: "url" } } },
    });
    const operator = inProcessOperator(client, helm);
    await operator.start();
    try {
      await eventually("the operator to make Gateway ops Ready", async () => {
        await playLiteLLMOperator(client, ns, "ops");
        const now = condition(await readStoredResource(client, "Gateway", ns, "ops"), "Ready");
        if (now?.status !== "True") throw new Error(`Ready is ${now?.status}: ${now?.message}`);
        return true;
      });
    } finally {
      await operator.stop();
      await finalizeResources(context, "Gateway", ns);
    }
  }, 240_000);
});
