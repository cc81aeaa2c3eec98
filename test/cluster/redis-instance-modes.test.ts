import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { App, Chart } from "cdk8s";
import { RedisInstance as RedisInstanceConstruct } from "../../constructs/index.js";
import { REDIS_OPERATOR } from "../../lib/catalog/redis-operator.js";
import type { HelmCli } from "../../lib/cluster/helm-cli.js";
import { type KubeClient, orUndefined } from "../../lib/cluster/kube-client.js";
import type { ReconcileContext } from "../../lib/engine/context.js";
import type { RedisInstanceStatus } from "../../lib/kinds/redis-instance/schema.js";
import { toolchainPaths } from "../../lib/local-plane/toolchain-paths.js";
import { destroy, up } from "../../providers/pulumi/runtime.js";
import { FIXTURE_CHARTS } from "../support/capabilities.js";
import { capabilitySuite } from "../support/capability-suite.js";
import { condition, eventually } from "../support/cluster.js";
import { TEST_TRUSTED_KEYS } from "../support/licence.js";
import { inProcessOperator } from "../support/operator.js";
import { planTrustingTestKey } from "../support/plan-cli.js";
import { expectPlantedNowhere, recordedEvents } from "../support/planted-secret.js";
import { playRedisOperator } from "../support/redis.js";
import {
  createReferenceGrant,
  createResource,
  finalizeResources,
  readStoredResource,
  reconcileUntil,
} from "../support/resources.js";

const REDIS = { group: "redis.redis.opstreelabs.in", version: "v1beta2" };

const statusOf = (outcome: { plan: { status: unknown } }) => outcome.plan.status as RedisInstanceStatus;

// RedisInstance on the real plane, one scenario per mode, then through each front end: the operator, the
// Pulumi runtime, cdk8s synth and `navique plan`.
describe("RedisInstance modes", () => {
  // More RedisInstances live here at once than the Community edition allows (2): a test licence.
  const suite = capabilitySuite({ capabilities: [REDIS_OPERATOR], licence: { caps: { RedisInstance: 20 } } });
  const { namespaces } = suite;
  let client: KubeClient;
  let helm: HelmCli;
  let context: ReconcileContext;
  beforeAll(() => {
    ({ client, helm, context } = suite);
  });
  const namespace = (name: string) => namespaces.create(name);

  it("managed: installs the redis-operator, generates the password, creates the Redis; Ready with its StatefulSet; Retain keeps it", async () => {
    const ns = await namespace("redis-managed");
    await createResource(client, "RedisInstance", ns, "cache", {});
    const ready = await reconcileUntil(
      context,
      "RedisInstance",
      ns,
      "cache",
      (o) => !o.requeue,
      () => playRedisOperator(client, ns, "cache"),
    );
    expect(statusOf(ready).connection).toEqual({
      host: `cache.${ns}.svc`,
      port: 6379,
      credentialsSecret: { name: "cache-credentials", namespace: ns },
      url: `redis://cache.${ns}.svc:6379`,
    });
    expect(condition(await readStoredResource(client, "RedisInstance", ns, "cache"), "Ready")).toMatchObject({
      status: "True",
      message: `Redis reachable at cache.${ns}.svc:6379`,
    });
    const secret = await client.core.readNamespacedSecret({ name: "cache-credentials", namespace: ns });
    expect(Buffer.from(secret.data?.password ?? "", "base64").toString()).toHaveLength(32);
    const redis = (await client.custom.getNamespacedCustomObject({
      ...REDIS,
      plural: "redis",
      namespace: ns,
      name: "cache",
    })) as {
      metadata: { labels: Record<string, string>; annotations: Record<string, string> };
      spec: { kubernetesConfig: { redisSecret: unknown }; storage: { keepAfterDelete: boolean } };
    };
    expect(redis.spec.kubernetesConfig.redisSecret).toEqual({ name: "cache-credentials", key: "password" });
    expect(redis.spec.storage.keepAfterDelete).toBe(true);
    expect(redis.metadata.annotations["core.navique.com/owner"]).toBe(`RedisInstance/${ns}/cache`);

    // Deleted under the default Retain: the Redis and its password stay, released to the user.
    await finalizeResources(context, "RedisInstance", ns);
    const kept = (await client.custom.getNamespacedCustomObject({
      ...REDIS,
      plural: "redis",
      namespace: ns,
      name: "cache",
    })) as {
      metadata: { labels?: Record<string, string>; annotations?: Record<string, string> };
    };
    expect(kept.metadata.labels?.["core.navique.com/owned-by"]).toBeUndefined();
    expect(kept.metadata.annotations?.["core.navique.com/owner"]).toBeUndefined();
    const keptSecret = await client.core.readNamespacedSecret({ name: "cache-credentials", namespace: ns });
    expect(keptSecret.data?.password).toBe(secret.data?.password);

    // Created again under the same name, it never takes back the Redis it released: NameTaken, nothing applied.
    await createResource(client, "RedisInstance", ns, "cache", {});
    const taken = await reconcileUntil(context, "RedisInstance", ns, "cache", (o) => !o.requeue);
    expect(taken.plan.conditions.find((c) => c.type === "DatastoreReady")).toMatchObject({
      status: "False",
      reason: "NameTaken",
    });
    expect(taken.performed).toEqual([]);
    // Each scenario leaves nothing behind that counts against the cap of the next.
    await finalizeResources(context, "RedisInstance", ns);
  });

  it("adopt: a Redis of the operator in another namespace, under a grant; the password copied into <name>-adopted-credentials", async () => {
    const data = await namespace("redis-data");
    const apps = await namespace("redis-apps");
    await client.custom.createNamespacedCustomObject({
      ...REDIS,
      plural: "redis",
      namespace: data,
      body: {
        apiVersion: `${REDIS.group}/${REDIS.version}`,
        kind: "Redis",
        metadata: { name: "shared" },
        spec: {
          kubernetesConfig: { image: "quay.io/opstree/redis:v7.0.15", redisSecret: { name: "shared-auth", key: "pw" } },
        },
      },
    });
    await client.core.createNamespacedSecret({
      namespace: data,
      body: { metadata: { name: "shared-auth" }, stringData: { pw: "adopted-s3cret" } },
    });
    const spec = {
      mode: "adopt",
      adopt: {
        redisRef: { name: "shared", namespace: data },
        credentialsSecretRef: { name: "shared-auth", namespace: data, key: "pw" },
      },
    };
    await createResource(client, "RedisInstance", apps, "cache", spec);
    const refused = await reconcileUntil(context, "RedisInstance", apps, "cache", () => true);
    expect(refused.plan.conditions[0]?.reason).toBe("ReferenceNotPermitted");
    expect(
      await orUndefined(client.core.readNamespacedSecret({ name: "cache-adopted-credentials", namespace: apps })),
    ).toBeUndefined();

    await createReferenceGrant(client, data, "apps-redis", {
      from: [{ group: "core.navique.com", kind: "RedisInstance", namespace: apps }],
      to: [
        { group: "redis.redis.opstreelabs.in", kind: "Redis", name: "shared" },
        { group: "", kind: "Secret", name: "shared-auth" },
      ],
    });
    const adopted = await reconcileUntil(context, "RedisInstance", apps, "cache", (o) => !o.requeue);
    expect(statusOf(adopted)).toMatchObject({
      provenance: "adopted",
      connection: {
        host: `shared.${data}.svc`,
        port: 6379,
        credentialsSecret: { name: "cache-adopted-credentials", namespace: apps },
      },
    });
    const copy = await client.core.readNamespacedSecret({ name: "cache-adopted-credentials", namespace: apps });
    expect(Buffer.from(copy.data?.password ?? "", "base64").toString()).toBe("adopted-s3cret");
    // Adopted, never touched: no mark of ours on the user's Redis.
    const shared = (await client.custom.getNamespacedCustomObject({
      ...REDIS,
      plural: "redis",
      namespace: data,
      name: "shared",
    })) as {
      metadata: { labels?: Record<string, string> };
    };
    expect(shared.metadata.labels?.["core.navique.com/owned-by"]).toBeUndefined();
    // The password never shows in the resource, nor in what was said about it.
    expectPlantedNowhere("adopted-s3cret", {
      [`RedisInstance ${apps}/cache`]: await readStoredResource(client, "RedisInstance", apps, "cache"),
      [`the Events of ${apps}`]: await recordedEvents(client, apps),
    });
  });

  it("external: through the operator, the Pulumi runtime, cdk8s synth and navique plan", async () => {
    const ns = await namespace("redis-external");
    await client.core.createNamespacedSecret({
      namespace: ns,
      body: {
        metadata: { name: "redis-conn" },
        stringData: { host: "redis.example.internal", port: "6380", password: "ext-pw" },
      },
    });
    const spec = { mode: "external" as const, external: { connectionSecretRef: { name: "redis-conn" } } };

    // The operator: watches the kind from the registry and reconciles it to Ready.
    await createResource(client, "RedisInstance", ns, "ops", spec);
    const operator = inProcessOperator(client, helm);
    await operator.start();
    try {
      await eventually("the operator to make RedisInstance ops Ready", async () =>
        condition(await readStoredResource(client, "RedisInstance", ns, "ops"), "Ready")?.status === "True"
          ? true
          : undefined,
      );
    } finally {
      await operator.stop();
    }
    await finalizeResources(context, "RedisInstance", ns);

    // The Pulumi runtime (what `pulumi up` and `destroy` run in the provider process), one runtime for every kind.
    const inputs = {
      kind: "RedisInstance",
      namespace: ns,
      name: "via-pulumi",
      spec,
      kubeconfig: process.env.NAVIQUE_TEST_KUBECONFIG ?? "",
      helm: (await toolchainPaths()).helm,
      chartSource: `dir:${FIXTURE_CHARTS}`,
      timeoutSeconds: 120,
    };
    const { outs } = await up(inputs, TEST_TRUSTED_KEYS);
    expect(outs).toMatchObject({
      host: "redis.example.internal",
      port: 6380,
      password: "ext-pw",
      provenance: "external",
    });
    await destroy(inputs, TEST_TRUSTED_KEYS);
    expect(await readStoredResource(client, "RedisInstance", ns, "via-pulumi")).toBeUndefined();

    // cdk8s synth, then `navique plan -f` on what it wrote: the same engine's lines. The CLI verifies the
    // suite's licence with the test key given by --trust, as the suite's operator does: both fit its cap
    // (under Community, the two declared ones would be counted with every RedisInstance stored).
    const out = await mkdtemp(join(tmpdir(), "navique-redis-synth-"));
    try {
      const app = new App({ outdir: out });
      const chart = new Chart(app, "redis", { namespace: ns });
      new RedisInstanceConstruct(chart, "from-git", { spec });
      new RedisInstanceConstruct(chart, "managed-one", {});
      app.synth();
      const plan = await planTrustingTestKey(["-f", join(out, "redis.k8s.yaml")], out);
      // Not in the cluster yet, and needing nothing made but itself: what its Ready will say is said.
      expect(plan.stdout).toContain(
        `RedisInstance ${ns}/from-git: create it, nothing else: Secret ${ns}/redis-conn holds host, port and password: consumers are sent to redis.example.internal:6380, which the product does not contact`,
      );
      expect(plan.code).toBe(2);
      expect(plan.stdout).toContain(`RedisInstance ${ns}/managed-one: capability redis-operator:`);
      expect(plan.stdout).toContain(`RedisInstance ${ns}/managed-one: apply Redis ${ns}/managed-one (standalone, 1Gi)`);
      expectPlantedNowhere("ext-pw", {
        "navique plan's output": plan.stdout,
        "what cdk8s wrote": await readFile(join(out, "redis.k8s.yaml"), "utf8"),
      });
    } finally {
      await rm(out, { recursive: true, force: true });
    }
  });
});
