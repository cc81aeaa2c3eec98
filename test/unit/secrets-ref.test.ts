import type { Credentials, KubeObject } from "../../lib/engine/objects.js";
import { GATEWAY_MODULE } from "../../lib/kinds/gateway/module.js";
import { REDIS_INSTANCE_MODULE } from "../../lib/kinds/redis-instance/module.js";
import { operatorKindPlans } from "../support/plans.js";

const redis = operatorKindPlans(
  REDIS_INSTANCE_MODULE,
  { name: "cache", namespace: "apps" },
  { capability: "redis-operator", namespace: "ot-operators" },
);

/** The SecretsManagement apps/platform as stored: Ready or not, providing `secrets`. */
function secretsManagement(ready: boolean, secrets: readonly string[]): KubeObject {
  return {
    apiVersion: "core.navique.com/v1alpha1",
    kind: "SecretsManagement",
    metadata: { name: "platform", namespace: "apps" },
    status: {
      conditions: [
        ready
          ? { type: "Ready", status: "True", reason: "Ready", message: `provides ${secrets.join(", ")} in apps` }
          : {
              type: "Ready",
              status: "False",
              reason: "WaitingForSecrets",
              message: "waiting for ExternalSecret apps/redis-conn",
            },
      ],
      secrets: secrets.map((name) => ({ name, ready })),
    },
  };
}

const CONNECTION: Credentials = { host: "redis.example.internal", port: "6380", password: "pw" };

describe("a datastore's secretsRef", () => {
  const external = (connection = "redis-conn") =>
    redis.resource({
      mode: "external",
      external: { connectionSecretRef: { name: connection }, secretsRef: { name: "platform" } },
    });

  it("declares the SecretsManagement as a dependency of its external block: DependenciesReady names it until it is Ready", () => {
    expect(REDIS_INSTANCE_MODULE.dependsOn?.(external() as never)).toEqual([
      {
        field: "spec.external.secretsRef",
        group: "core.navique.com",
        kind: "SecretsManagement",
        name: "platform",
        namespace: "apps",
        needs: "ready",
      },
    ]);
    const missing = redis.plan(external(), redis.view());
    expect(missing.steps).toEqual([]);
    expect(missing.conditions.find((c) => c.type === "DependenciesReady")).toMatchObject({
      status: "False",
      reason: "DependencyMissing",
      message:
        "waiting for what it depends on: spec.external.secretsRef: SecretsManagement apps/platform does not exist: create it, or point spec.external.secretsRef at one that does. Nothing of it is applied until then",
    });
    const waiting = redis.plan(
      external(),
      redis.view({ dependencies: { "spec.external.secretsRef": secretsManagement(false, ["redis-conn"]) } }),
    );
    expect(waiting.conditions.find((c) => c.type === "DependenciesReady")?.message).toBe(
      "waiting for what it depends on: spec.external.secretsRef: SecretsManagement apps/platform is not Ready (waiting for ExternalSecret apps/redis-conn). Nothing of it is applied until then",
    );
  });

  it("refuses a connection Secret the SecretsManagement does not provide, naming the field; wires one it provides", () => {
    const unprovided = redis.plan(
      external("other-conn"),
      redis.view({
        dependencies: { "spec.external.secretsRef": secretsManagement(true, ["redis-conn"]) },
        reads: { externalCredentials: CONNECTION as never },
      }),
    );
    expect(unprovided.conditions.find((c) => c.type === "Stalled")).toMatchObject({
      status: "True",
      reason: "SecretNotProvided",
      message:
        "spec.external.connectionSecretRef names Secret other-conn, which SecretsManagement apps/platform (spec.external.secretsRef) does not provide (it provides redis-conn): add it to its spec.eso.secrets or spec.sealedSecrets.secrets, or name one it provides",
    });
    const wired = redis.plan(
      external(),
      redis.view({
        dependencies: { "spec.external.secretsRef": secretsManagement(true, ["redis-conn"]) },
        reads: { externalCredentials: CONNECTION as never },
      }),
    );
    expect(wired.conditions.find((c) => c.type === "DependenciesReady")).toMatchObject({ status: "True" });
    expect(wired.conditions.find((c) => c.type === "Ready")).toMatchObject({ status: "True" });
    expect(wired.status.connection).toMatchObject({ host: "redis.example.internal", port: 6380 });
  });

  it("in adopt mode, refuses a credentials Secret in another namespace than the SecretsManagement's", () => {
    const adopt = redis.resource({
      mode: "adopt",
      adopt: {
        redisRef: { name: "shared" },
        credentialsSecretRef: { name: "shared-auth", namespace: "data" },
        secretsRef: { name: "platform" },
      },
    });
    const refused = redis.plan(
      adopt,
      redis.view({
        dependencies: { "spec.adopt.secretsRef": secretsManagement(true, ["shared-auth"]) },
        referenceGrants: [
          {
            namespace: "data",
            name: "apps",
            spec: {
              from: [{ group: "core.navique.com", kind: "RedisInstance", namespace: "apps" }],
              to: [
                { group: "redis.redis.opstreelabs.in", kind: "Redis", name: "shared" },
                { group: "", kind: "Secret", name: "shared-auth" },
              ],
            },
          } as never,
        ],
      }),
    );
    expect(refused.steps).toEqual([]);
    expect(refused.conditions.find((c) => c.type === "Stalled")?.message).toBe(
      "spec.adopt.credentialsSecretRef names Secret data/shared-auth, outside apps, whose Secrets SecretsManagement apps/platform (spec.adopt.secretsRef) provides: name a Secret of apps, or remove spec.adopt.secretsRef",
    );
  });
});

describe("a Gateway's secretsRef", () => {
  const gateway = operatorKindPlans(
    GATEWAY_MODULE,
    { name: "llm", namespace: "apps" },
    { capability: "litellm-operator", namespace: "litellm-operator-system" },
  );
  const resource = gateway.resource({
    secretsRef: { name: "platform" },
    database: { mode: "external", external: { connectionSecretRef: { name: "gateway-db", key: "url" } } },
    models: [
      {
        name: "gpt-4o",
        provider: "openai",
        model: "gpt-4o",
        apiKeySecretRef: { name: "provider-keys", key: "openai" },
      },
    ],
  });

  it("is gated on its SecretsManagement, and each Secret its spec names must be one it provides", () => {
    expect(GATEWAY_MODULE.dependsOn?.(resource as never).map((d) => `${d.field} → ${d.kind} ${d.name}`)).toEqual([
      "spec.secretsRef → SecretsManagement platform",
    ]);
    const unprovided = gateway.plan(
      resource,
      gateway.view({ dependencies: { "spec.secretsRef": secretsManagement(true, ["provider-keys"]) } }),
    );
    expect(unprovided.steps).toEqual([]);
    expect(unprovided.conditions.find((c) => c.type === "Stalled")?.message).toBe(
      "spec.database.external.connectionSecretRef names Secret gateway-db, which SecretsManagement apps/platform (spec.secretsRef) does not provide (it provides provider-keys): add it to its spec.eso.secrets or spec.sealedSecrets.secrets, or name one it provides",
    );
    const provided = gateway.plan(
      resource,
      gateway.view({ dependencies: { "spec.secretsRef": secretsManagement(true, ["provider-keys", "gateway-db"]) } }),
    );
    expect(provided.conditions.find((c) => c.type === "Stalled")).toBeUndefined();
    expect(provided.conditions.find((c) => c.type === "DependenciesReady")).toMatchObject({ status: "True" });
  });
});
