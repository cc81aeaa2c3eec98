import type { Condition } from "../../lib/api/conditions.js";
import { wiringLine, wiringOf } from "../../lib/engine/dependencies.js";
import type { Credentials, KubeObject } from "../../lib/engine/objects.js";
import type { PlanStep } from "../../lib/engine/steps.js";
import type { EngineView } from "../../lib/engine/view.js";
import { GATEWAY_MODULE } from "../../lib/kinds/gateway/module.js";
import type { GatewayStatus } from "../../lib/kinds/gateway/schema.js";
import { COMMUNITY_CAPS, type Entitlements } from "../../lib/licence/entitlements.js";
import { operatorKindPlans } from "../support/plans.js";

const gateway = operatorKindPlans(
  GATEWAY_MODULE,
  { name: "llm", namespace: "apps" },
  { capability: "litellm-operator", namespace: "litellm-operator-system" },
);

const AUTO_WIRING: Entitlements = {
  edition: "Licensed",
  features: new Set(["auto-wiring"]),
  caps: COMMUNITY_CAPS,
  licenseId: "lic-wiring",
};

const DATABASE = { mode: "external", external: { connectionSecretRef: { name: "db", key: "url" } } };
const TRACES_URL = "http://langfuse-web.obs.svc:3000";
const PROJECT_SECRET = "sk-lf-planted00112233";

/** The Observability obs/langfuse as stored: Ready, publishing its URL and its project keys' Secret. */
const OBSERVABILITY: KubeObject = {
  apiVersion: "core.navique.com/v1alpha1",
  kind: "Observability",
  metadata: { name: "langfuse", namespace: "obs" },
  status: {
    conditions: [{ type: "Ready", status: "True", reason: "Ready", message: `Langfuse at ${TRACES_URL}` }],
    connection: {
      host: "langfuse-web.obs.svc",
      port: 3000,
      url: TRACES_URL,
      credentialsSecret: { name: "langfuse-project-keys", namespace: "obs" },
      keys: { publicKey: "public-key", secretKey: "secret-key" },
    },
  },
};

const GRANT = {
  namespace: "obs",
  spec: {
    from: [{ group: "core.navique.com", kind: "Gateway", namespace: "apps" }],
    to: [{ group: "core.navique.com", kind: "Observability" }],
  },
};

function traced(extra: Record<string, unknown> = {}) {
  return gateway.resource({ database: DATABASE, observabilityRef: { name: "langfuse", namespace: "obs" }, ...extra });
}

function seen(entitlements: Entitlements, extra: Partial<EngineView> = {}, reads: Record<string, Credentials> = {}) {
  const base = gateway.view();
  return gateway.view({
    dependencies: { "spec.observabilityRef": OBSERVABILITY },
    referenceGrants: [GRANT],
    reads: { "secret:spec.database.external.connectionSecretRef": { url: "postgresql://db" }, ...reads },
    licence: { ...base.licence, entitlements },
    ...extra,
  });
}

const condition = (p: { conditions: readonly Condition[] }, type: string) => p.conditions.find((c) => c.type === type);
/** The LiteLLMInstance a plan applies; a plan without one fails the test here. */
function instanceOf(steps: readonly PlanStep[]): Extract<PlanStep, { kind: "apply" }> {
  const found = steps.find((s) => s.kind === "apply" && s.object.kind === "LiteLLMInstance");
  if (found?.kind !== "apply") throw new Error("the plan applies no LiteLLMInstance");
  return found;
}

describe("a Gateway's observabilityRef", () => {
  it("auto-wired under the licence: the project's keys copied beside the gateway, LiteLLM's langfuse_otel callback reading them by reference", () => {
    const plan = gateway.plan(
      traced(),
      seen(AUTO_WIRING, {
        connectionCredentials: { "spec.observabilityRef": { "public-key": "pk-lf-1", "secret-key": PROJECT_SECRET } },
      }),
    );
    const copy = plan.steps.find((s) => s.kind === "apply" && s.object.metadata.name === "llm-observability");
    expect(copy).toMatchObject({
      object: { kind: "Secret", stringData: { "public-key": "pk-lf-1", "secret-key": PROJECT_SECRET } },
      description: "copy the project keys of Observability obs/langfuse into Secret apps/llm-observability",
    });
    expect((instanceOf(plan.steps).object.spec as { callbacks: unknown }).callbacks).toEqual({
      types: ["langfuse_otel"],
      envVars: [
        { name: "LANGFUSE_PUBLIC_KEY", valueFrom: { secretKeyRef: { name: "llm-observability", key: "public-key" } } },
        { name: "LANGFUSE_SECRET_KEY", valueFrom: { secretKeyRef: { name: "llm-observability", key: "secret-key" } } },
        { name: "LANGFUSE_OTEL_HOST", value: TRACES_URL },
        { name: "LANGFUSE_HOST", value: TRACES_URL },
      ],
    });
    const status = plan.status as GatewayStatus;
    expect(status.wiring).toEqual(["spec.observabilityRef → Observability obs/langfuse: auto-wired"]);
    expect(status.observability).toBe(
      `spec.observabilityRef → Observability obs/langfuse: traces sent to ${TRACES_URL} (LiteLLM callback langfuse_otel, keys from Secret apps/llm-observability)`,
    );
    // The secret key is in the copied Secret only: no description, no status, no instance.
    const said = JSON.stringify([plan.steps.map((s) => s.description), status, instanceOf(plan.steps).object]);
    expect(said).not.toContain(PROJECT_SECRET);
  });

  it("auto-wired, before the Observability publishes its keys: waits, applying nothing", () => {
    const plan = gateway.plan(traced(), seen(AUTO_WIRING));
    expect(plan.steps.filter((s) => s.kind === "apply")).toEqual([]);
    expect(condition(plan, "GatewayReady")).toMatchObject({
      reason: "CredentialsPending",
      message:
        "spec.observabilityRef: waiting for Observability obs/langfuse to publish its project's keys (status.connection.credentialsSecret)",
    });
  });

  it("under Community: manual — nothing applied until the field is set, the condition naming it", () => {
    const community = gateway.view().licence.entitlements;
    const plan = gateway.plan(traced(), seen(community));
    expect(plan.steps.filter((s) => s.kind === "apply")).toEqual([]);
    expect(condition(plan, "DependenciesReady")).toMatchObject({
      status: "False",
      reason: "ManualWiringRequired",
    });
    expect(condition(plan, "Stalled")).toMatchObject({ status: "True", reason: "ManualWiringRequired" });
    expect(condition(plan, "DependenciesReady")?.message).toContain(
      "spec.observabilityRef: Observability obs/langfuse is not auto-wired: the Community edition does not include auto-wiring. Set spec.observabilityKeysSecretRef to wire it by hand",
    );
    // What navique plan and pulumi preview print of it (lib/engine/preview.ts): the same decision.
    const [dependency] = GATEWAY_MODULE.dependsOn?.(traced() as never) ?? [];
    expect(dependency && wiringLine(dependency, wiringOf(dependency, community))).toBe(
      "spec.observabilityRef → Observability obs/langfuse: manual: set spec.observabilityKeysSecretRef",
    );
  });

  it("wired by hand: the user's Secret, checked for both keys, read by reference; nothing copied", () => {
    const manual = traced({ observabilityKeysSecretRef: { name: "langfuse-keys" } });
    const community = gateway.view().licence.entitlements;
    const lacking = gateway.plan(
      manual,
      seen(community, {}, { "secret:spec.observabilityKeysSecretRef": { "public-key": "pk" } }),
    );
    expect(condition(lacking, "GatewayReady")).toMatchObject({
      reason: "SecretMissing",
      message:
        "spec.observabilityKeysSecretRef: Secret apps/langfuse-keys has no key secret-key (it has public-key): add it, or point spec.observabilityKeysSecretRef at a Secret that has it",
    });
    const wired = gateway.plan(
      manual,
      seen(community, {}, { "secret:spec.observabilityKeysSecretRef": { "public-key": "pk", "secret-key": "sk" } }),
    );
    expect(wired.steps.some((s) => s.kind === "apply" && s.object.metadata.name === "llm-observability")).toBe(false);
    const envVars = (instanceOf(wired.steps).object.spec as { callbacks: { envVars: unknown[] } }).callbacks.envVars;
    expect(envVars[1]).toEqual({
      name: "LANGFUSE_SECRET_KEY",
      valueFrom: { secretKeyRef: { name: "langfuse-keys", key: "secret-key" } },
    });
    expect((wired.status as GatewayStatus).wiring).toEqual([
      "spec.observabilityRef → Observability obs/langfuse: manual: spec.observabilityKeysSecretRef is set",
    ]);
  });
});
