import { readFileSync } from "node:fs";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { buildApp } from "../../examples/cdk8s/app.js";
import { OWNERSHIP_MARKS } from "../../lib/api/group.js";
import { ensureNaviqueCrds } from "../../lib/apply/navique-crds.js";
import type { HelmCli } from "../../lib/cluster/helm-cli.js";
import { type KubeClient, orUndefined } from "../../lib/cluster/kube-client.js";
import { run } from "../../lib/cluster/process.js";
import { pulumiEnvironment } from "../../lib/local-plane/pulumi-environment.js";
import { toolchainPaths } from "../../lib/local-plane/toolchain-paths.js";
import {
  CAPABILITY_SUITE_SETUP_MS,
  FIXTURE_CHARTS,
  lockCapabilities,
  releaseRecords,
  resetCapabilities,
  testClient,
  testHelm,
} from "../support/capabilities.js";
import { readClickHouse } from "../support/clickhouse.js";
import { condition } from "../support/cluster.js";
import {
  EXAMPLE_APPLICATIONS,
  EXAMPLE_CAPABILITIES,
  EXAMPLE_DATASTORES,
  EXAMPLE_GATEWAY_KEY,
  EXAMPLE_GRANT,
  EXAMPLE_SECRETS,
  exampleRemoteValue,
  grantExampleAdoption,
  playExampleControllers,
  prepareExampleCluster,
  readExampleDatastores,
  removeExampleNamespaces,
} from "../support/example-cluster.js";
import { applyLicence, removeLicence, testLicenceToken } from "../support/licence.js";
import { readCommunity } from "../support/mongodb.js";
import { planTrustingTestKey } from "../support/plan-cli.js";
import { readCnpgCluster } from "../support/postgres.js";
import { readRedis } from "../support/redis.js";
import { readStoredResource } from "../support/resources.js";
import { TYPESCRIPT_SOURCES_ENV } from "../support/typescript-sources.js";

const EXAMPLE = join(process.cwd(), "examples", "pulumi");

/**
 * How long `up` of the six datastores may take: five operators installed one after another where they
 * depend on each other, every datastore waited for; ~15 s on a quiet machine, ~60 s with both cores busy.
 */
const UP_MS = 10 * 60_000;

/** The generated credentials of the example's managed datastores: Secret and key, by namespace. */
const GENERATED_CREDENTIALS = [
  ["navique-example-platform", "platform-db-credentials"],
  ["navique-example-platform", "langfuse-clickhouse-credentials"],
  ["navique-example-platform", "langfuse-redis-credentials"],
  ["navique-example-apps", "librechat-mongo-credentials"],
  ["navique-example-apps", "librechat-search-master-key"],
] as const;

// examples/pulumi run as users run it: the real pulumi CLI and engine, the TypeScript program from its
// project directory through the Node.js language host, the dynamic provider in its own process, a local
// file backend, charts from the fixture mirror. No pod runs here: the test plays the controllers of every
// datastore — CNPG, the ClickHouse, redis- and MongoDB operators, a storage provisioner for Meilisearch's
// claim — by writing what each would write (test/support/example-cluster.ts), and the user (the adopted
// cluster `shared` and its Secret, made beforehand).
describe("the Pulumi example: every datastore of the platform", () => {
  let client: KubeClient;
  let helm: HelmCli;
  let unlock: () => Promise<void>;
  let work: string;
  let env: NodeJS.ProcessEnv;
  let stopPlaying: (() => void) | undefined;

  const pulumi = async (...args: string[]) =>
    (await run("pulumi", [...args, "--non-interactive"], { cwd: EXAMPLE, env })).stdout;

  beforeAll(async () => {
    unlock = await lockCapabilities();
    client = testClient();
    helm = await testHelm();
    await ensureNaviqueCrds(client);
    await resetCapabilities(client, helm, EXAMPLE_CAPABILITIES, { crds: false });
    await prepareExampleCluster(client, helm);
    stopPlaying = playExampleControllers(client);

    work = await mkdtemp(join(tmpdir(), "navique-pulumi-example-"));
    const environment = await pulumiEnvironment({ stateDir: join(work, "state"), passphrase: "example-passphrase" });
    env = {
      ...environment.env,
      KUBECONFIG: process.env.NAVIQUE_TEST_KUBECONFIG,
      NAVIQUE_CHART_SOURCE: `dir:${FIXTURE_CHARTS}`,
      ...TYPESCRIPT_SOURCES_ENV,
    };
    // Under the Community edition: a Pulumi program cannot be handed the test's licence key (licences are
    // verified with the product's own keys), so the program runs wired by hand; the licensed wiring of the
    // same platform is judged by navique plan, which takes the key (below).
    await pulumi("stack", "init", "example");
  }, CAPABILITY_SUITE_SETUP_MS);

  afterAll(async () => {
    stopPlaying?.();
    if (client) await removeLicence(client);
    if (client && helm) {
      await removeExampleNamespaces(client, helm);
      await resetCapabilities(client, helm, EXAMPLE_CAPABILITIES, { crds: false });
    }
    if (work) await rm(work, { recursive: true, force: true });
    await unlock?.();
  }, CAPABILITY_SUITE_SETUP_MS);

  it("without the data namespace's ReferenceGrant, the preview warns with the grant to create", async () => {
    await client.custom.deleteNamespacedCustomObject({
      group: "core.navique.com",
      version: "v1alpha1",
      plural: "referencegrants",
      ...EXAMPLE_GRANT,
    });
    try {
      const preview = await pulumi("preview");
      expect(preview).toMatch(
        /warning: PostgresCluster navique-example-apps\/chat-db: reference not permitted: spec\.adopt\.clusterRef \(namespace navique-example-data\) and spec\.adopt\.credentialsSecretRef \(namespace navique-example-data\) are not granted by the referenced namespace: nothing was read, copied or created there\. Create a ReferenceGrant in namespace navique-example-data from group core\.navique\.com kind PostgresCluster namespace navique-example-apps to group postgresql\.cnpg\.io kind Cluster name shared, and to group "" kind Secret name shared-app/,
      );
      expect(preview).not.toContain("copy the credentials of navique-example-data/shared-app");
    } finally {
      await grantExampleAdoption(client);
    }
  });

  it("under a licence with auto-wiring, navique plan of the cdk8s app built for it wires every reference", async () => {
    const out = await mkdtemp(join(tmpdir(), "navique-example-licensed-"));
    await applyLicence(client, testLicenceToken({ features: ["auto-wiring"] }));
    try {
      buildApp(out, { autoWiring: true }).synth();
      const planned = await planTrustingTestKey(["-f", join(out, "navique-example.yaml")], out);
      for (const line of [
        "Gateway navique-example-platform/llm: spec.database.postgresClusterRef → PostgresCluster navique-example-platform/platform-db: auto-wired",
        "Gateway navique-example-platform/llm: spec.observabilityRef → Observability navique-example-platform/langfuse: auto-wired",
        "ChatUI navique-example-apps/librechat: spec.gatewayRef → Gateway navique-example-platform/llm: auto-wired",
      ])
        expect(planned.stdout).toContain(line);
      expect(planned.stdout).not.toContain("langfuse-project-keys");
      expect(planned.code).toBe(2);
    } finally {
      await removeLicence(client);
      await rm(out, { recursive: true, force: true });
    }
  });

  it("previews every decision, with its evidence, before anything changes", async () => {
    const preview = await pulumi("preview");
    // Each capability's decision, with the start of its evidence (the rest says what an earlier suite left).
    for (const line of [
      "PostgresCluster navique-example-platform/platform-db: capability cert-manager: install cert-manager v1.21.1 as release cert-manager/cert-manager (no release cert-manager/cert-manager;",
      "PostgresCluster navique-example-platform/platform-db: capability cloudnative-pg: install cloudnative-pg 0.29.0 as release cnpg-system/cloudnative-pg (no release cnpg-system/cloudnative-pg;",
      "ClickHouseCluster navique-example-platform/langfuse-clickhouse: capability cert-manager: install cert-manager v1.21.1 as release cert-manager/cert-manager (no release cert-manager/cert-manager;",
      "ClickHouseCluster navique-example-platform/langfuse-clickhouse: capability clickhouse-operator: install clickhouse-operator 0.0.7 as release clickhouse-operator-system/clickhouse-operator (no release clickhouse-operator-system/clickhouse-operator;",
      "RedisInstance navique-example-platform/langfuse-redis: capability redis-operator: install redis-operator 0.26.1 as release ot-operators/redis-operator (no release ot-operators/redis-operator;",
      "MongoCluster navique-example-apps/librechat-mongo: capability mongodb-kubernetes: install mongodb-kubernetes 1.9.1 as release mongodb/mongodb-kubernetes-operator (no release mongodb/mongodb-kubernetes-operator;",
    ])
      expect(preview).toContain(line);
    // What each datastore would make, once its operators are Ready.
    for (const line of [
      "PostgresCluster navique-example-platform/platform-db: apply CNPG Cluster navique-example-platform/platform-db (1 instance(s), 10Gi)",
      "ClickHouseCluster navique-example-platform/langfuse-clickhouse: create Secret navique-example-platform/langfuse-clickhouse-credentials with a generated password (kept if it exists)",
      "ClickHouseCluster navique-example-platform/langfuse-clickhouse: apply KeeperCluster navique-example-platform/langfuse-clickhouse (1 pod(s), 1Gi each)",
      "ClickHouseCluster navique-example-platform/langfuse-clickhouse: apply ClickHouseCluster navique-example-platform/langfuse-clickhouse (1 shard(s) × 1 replica(s), 20Gi each)",
      "RedisInstance navique-example-platform/langfuse-redis: create Secret navique-example-platform/langfuse-redis-credentials with a generated password (kept if it exists)",
      "RedisInstance navique-example-platform/langfuse-redis: apply Redis navique-example-platform/langfuse-redis (standalone, 1Gi)",
      "PostgresCluster navique-example-apps/chat-db: copy the credentials of navique-example-data/shared-app into Secret navique-example-apps/chat-db-adopted-credentials",
      "PostgresCluster navique-example-apps/chat-db: apply CNPG Database navique-example-data/shared-librechat beside the adopted cluster",
      "MongoCluster navique-example-apps/librechat-mongo: create Secret navique-example-apps/librechat-mongo-credentials with a generated password for user admin (kept if it exists)",
      "MongoCluster navique-example-apps/librechat-mongo: apply MongoDBCommunity navique-example-apps/librechat-mongo (MongoDB 8.3.4, 3 member(s), 10Gi each, 0 claim(s))",
      "MeilisearchInstance navique-example-apps/librechat-search: create Secret navique-example-apps/librechat-search-master-key with a generated master key (kept if it exists)",
      "MeilisearchInstance navique-example-apps/librechat-search: apply PersistentVolumeClaim navique-example-apps/librechat-search-data (5Gi, deletion policy Retain)",
      "MeilisearchInstance navique-example-apps/librechat-search: install Helm release navique-example-apps/librechat-search (meilisearch 0.34.0)",
      `${EXAMPLE_SECRETS}: capability external-secrets: install external-secrets 2.9.0 as release external-secrets/external-secrets (no release external-secrets/external-secrets;`,
      `${EXAMPLE_SECRETS}: apply SecretStore navique-example-platform/platform-secrets (Azure Key Vault https://navique-example.vault.azure.net)`,
      `${EXAMPLE_SECRETS}: apply ExternalSecret navique-example-platform/llm-provider-keys (Secret llm-provider-keys: OPENAI_API_KEY, ANTHROPIC_API_KEY from SecretStore platform-secrets)`,
      // Community: each reference wired by hand, through the Secrets the program names.
      "Gateway navique-example-platform/llm: spec.database.postgresClusterRef → PostgresCluster navique-example-platform/platform-db: manual: spec.database.databaseUrlSecretRef is set",
      "Gateway navique-example-platform/llm: spec.observabilityRef → Observability navique-example-platform/langfuse: manual: spec.observabilityKeysSecretRef is set",
      "ChatUI navique-example-apps/librechat: spec.gatewayRef → Gateway navique-example-platform/llm: manual: spec.gatewayKeySecretRef is set",
      `${EXAMPLE_SECRETS}: apply ExternalSecret navique-example-platform/langfuse-project-keys (Secret langfuse-project-keys: public-key, secret-key from SecretStore platform-secrets)`,
      // Held until the SecretsManagement it reads through is Ready: nothing is installed for it before, as
      // the operator's pass installs nothing (lib/engine/plan.ts, reachesOperators).
      "Gateway navique-example-platform/llm: nothing to do until: waiting for what it depends on: spec.secretsRef: SecretsManagement navique-example-platform/platform-secrets does not exist: create it, or point spec.secretsRef at one that does. Nothing of it is applied until then",
    ])
      expect(preview).toContain(line);
    expect(preview).not.toContain("Gateway navique-example-platform/llm: capability ");
    expect(preview).not.toContain("would run helm");
    // Without helm on PATH the preview says, on each component whose `up` would run helm, that it would
    // fail, and what for: the operators' installs, or the component's own Helm release.
    const helmDirectory = dirname((await toolchainPaths()).helm);
    const path = (env.PATH ?? "").split(":").filter((entry) => entry !== helmDirectory);
    const withoutHelm = (
      await run("pulumi", ["preview", "--non-interactive"], { cwd: EXAMPLE, env: { ...env, PATH: path.join(":") } })
    ).stdout;
    const noHelm =
      "no helm binary: none configured (the component's `helm` argument, or --helm) and none named helm on PATH; install helm v4 or point `helm` at it";
    for (const datastore of EXAMPLE_DATASTORES.filter(
      (d) => !d.endsWith("/chat-db") && !d.endsWith("/librechat-search"),
    ))
      expect(withoutHelm).toContain(
        `warning: ${datastore}: \`pulumi up\` would run helm for its capability operators: ${noHelm}`,
      );
    expect(withoutHelm).toContain(
      `warning: MeilisearchInstance navique-example-apps/librechat-search: \`pulumi up\` would run helm for its Helm release: ${noHelm}`,
    );
    // The adopted one installs nothing: it needs no helm.
    expect(withoutHelm).not.toContain("navique-example-apps/chat-db: `pulumi up` would run helm");
    // Nothing happened.
    for (const { release } of EXAMPLE_CAPABILITIES)
      expect(await releaseRecords(client, release.namespace, release.name)).toHaveLength(0);
    expect(await releaseRecords(client, "navique-example-apps", "librechat-search")).toHaveLength(0);
    expect(await readExampleDatastores(client)).toEqual(EXAMPLE_DATASTORES.map(() => undefined));
  });

  it(
    "up: every datastore and application Ready, wired by hand, operators owned, each generated credential a secret in the state and nowhere in plain text",
    async () => {
      const up = await pulumi("up", "--yes", "--skip-preview");
      expect(up).toContain("navique:PostgresCluster");
      // Langfuse, the gateway and LibreChat: Ready, every reference wired by hand.
      const applications = await readExampleDatastores(client, EXAMPLE_APPLICATIONS);
      expect(applications.map((stored) => condition(stored, "Ready")?.status)).toEqual(
        EXAMPLE_APPLICATIONS.map(() => "True"),
      );
      const [, gateway, chat] = applications;
      expect((gateway?.status as { wiring?: string[] } | undefined)?.wiring).toEqual([
        "spec.database.postgresClusterRef → PostgresCluster navique-example-platform/platform-db: manual: spec.database.databaseUrlSecretRef is set",
        "spec.observabilityRef → Observability navique-example-platform/langfuse: manual: spec.observabilityKeysSecretRef is set",
      ]);
      expect((chat?.status as { wiring?: string[] } | undefined)?.wiring).toEqual([
        "spec.gatewayRef → Gateway navique-example-platform/llm: manual: spec.gatewayKeySecretRef is set",
      ]);
      const applicationSecrets = await Promise.all(
        (
          [
            ["navique-example-platform", "langfuse-secrets", "encryption-key"],
            ["navique-example-platform", "llm-master-key", "master-key"],
            ["navique-example-apps", "librechat-connections", "mongo-uri"],
            ["navique-example-apps", "librechat-credentials", "CREDS_KEY"],
          ] as const
        ).map(async ([namespace, name, key]) => {
          const secret = await client.core.readNamespacedSecret({ name, namespace });
          return Buffer.from(secret.data?.[key] ?? "", "base64").toString();
        }),
      );
      expect(applicationSecrets.every((value) => value.length >= 16)).toBe(true);
      const outputs = JSON.parse(await pulumi("stack", "output", "--json")) as Record<string, unknown>;
      expect(outputs).toMatchObject({
        platformHost: "platform-db-rw.navique-example-platform.svc",
        platformPassword: "[secret]",
        langfuseClickhouseUrl: "http://langfuse-clickhouse.navique-example-platform.svc:8123",
        langfuseClickhousePassword: "[secret]",
        langfuseRedisHost: "langfuse-redis.navique-example-platform.svc",
        chatHost: "shared-rw.navique-example-data.svc",
        chatProvenance: "adopted",
        librechatMongoHost: "librechat-mongo-svc.navique-example-apps.svc",
        librechatSearchUrl: "http://librechat-search.navique-example-apps.svc:7700",
        platformCapabilities: [
          { name: "cert-manager", provenance: "owned", chartVersion: "v1.21.1" },
          { name: "cloudnative-pg", provenance: "owned", chartVersion: "0.29.0" },
        ],
        langfuseUrl: "http://langfuse-web.navique-example-platform.svc:3000",
        langfuseSecretKey: "[secret]",
        gatewayUrl: "http://llm.navique-example-platform.svc:4000",
        librechatUrl: "http://librechat.navique-example-apps.svc:3080",
      });
      const ready = (await readExampleDatastores(client)).map((stored) => condition(stored, "Ready")?.status);
      expect(ready).toEqual(EXAMPLE_DATASTORES.map(() => "True"));
      // The secrets a person provides: from the (played) key vault into the Secret, named in the outputs only.
      const secrets = await readStoredResource(
        client,
        "SecretsManagement",
        "navique-example-platform",
        "platform-secrets",
      );
      expect(condition(secrets, "Ready")?.status).toBe("True");
      expect(outputs.platformSecretNames).toEqual([
        "llm-provider-keys",
        "langfuse-s3",
        "litellm-database",
        "langfuse-project-keys",
      ]);
      const providerKeys = await client.core.readNamespacedSecret({
        name: "llm-provider-keys",
        namespace: "navique-example-platform",
      });
      const remote = ["openai-api-key", "anthropic-api-key"].map(exampleRemoteValue);
      // What else the played key vault holds: Langfuse's S3 and project keys, the gateway's database URL.
      const vaulted = ["langfuse-s3-secret-access-key", "langfuse-secret-key", "litellm-database-url"].map(
        exampleRemoteValue,
      );
      expect(
        ["OPENAI_API_KEY", "ANTHROPIC_API_KEY"].map((key) =>
          Buffer.from(providerKeys.data?.[key] ?? "", "base64").toString(),
        ),
      ).toEqual(remote);
      const generated = await Promise.all(
        GENERATED_CREDENTIALS.map(async ([namespace, name]) => {
          const secret = await client.core.readNamespacedSecret({ name, namespace });
          return Buffer.from(secret.data?.password ?? "", "base64").toString();
        }),
      );
      expect(generated.every((value) => value.length >= 16)).toBe(true);
      const revealed = JSON.parse(await pulumi("stack", "output", "--json", "--show-secrets")) as {
        platformPassword: string;
        langfuseClickhousePassword: string;
      };
      expect([revealed.platformPassword, revealed.langfuseClickhousePassword]).toEqual(generated.slice(0, 2));
      const stateDir = join(work, "state", ".pulumi", "stacks", "navique-example");
      for (const file of await readdir(stateDir)) {
        const state = readFileSync(join(stateDir, file), "utf8");
        for (const value of [
          ...generated,
          ...applicationSecrets,
          ...remote,
          ...vaulted,
          EXAMPLE_GATEWAY_KEY,
          "user-made-password",
        ])
          expect(state).not.toContain(value);
      }
      for (const { release } of EXAMPLE_CAPABILITIES)
        expect([
          release.name,
          (await releaseRecords(client, release.namespace, release.name))[0]?.metadata?.labels,
        ]).toEqual([release.name, expect.objectContaining(OWNERSHIP_MARKS)]);
      // The chart mirror is recorded relative to the project, not as a path of the machine; the one from
      // $NAVIQUE_CHART_SOURCE is the program's argument here.
      const exported = await pulumi("stack", "export");
      expect(exported).not.toContain(FIXTURE_CHARTS);
      expect(exported).toContain(`"chartSource": "dir:${relative(EXAMPLE, FIXTURE_CHARTS)}"`);
    },
    UP_MS,
  );

  it("a no-op preview of every datastore and application in place prints no decision line", async () => {
    const preview = await pulumi("preview", "--expect-no-changes");
    for (const resource of [...EXAMPLE_DATASTORES, ...EXAMPLE_APPLICATIONS])
      expect(preview).not.toContain(`${resource}:`);
    expect(preview).toContain("unchanged");
  });

  it("destroy: finalizes every datastore and application, keeps the managed data (Retain), leaves the adopted cluster, releases the operators; says why it leaves the namespace it made", async () => {
    const destroy = await pulumi("destroy", "--yes", "--skip-preview");
    // navique-example-apps was made by a component's create (the platform's namespace was there, with its
    // grant); it still holds what Retain kept.
    expect(destroy).toMatch(
      /\S+ navique-example-apps\/\S+: namespace navique-example-apps, which its create made, is left: it still holds /,
    );
    expect(await readExampleDatastores(client)).toEqual(EXAMPLE_DATASTORES.map(() => undefined));
    expect(await readExampleDatastores(client, EXAMPLE_APPLICATIONS)).toEqual(
      EXAMPLE_APPLICATIONS.map(() => undefined),
    );
    expect(await releaseRecords(client, "navique-example-platform", "langfuse")).toEqual([]);
    expect(await releaseRecords(client, "navique-example-apps", "librechat")).toEqual([]);
    expect(await readCnpgCluster(client, "navique-example-platform", "platform-db")).toBeDefined();
    expect(await readCnpgCluster(client, "navique-example-data", "shared")).toBeDefined();
    expect(
      await readClickHouse(client, "clickhouseclusters", "navique-example-platform", "langfuse-clickhouse"),
    ).toBeDefined();
    expect(await readRedis(client, "navique-example-platform", "langfuse-redis")).toBeDefined();
    expect(await readCommunity(client, "navique-example-apps", "librechat-mongo")).toBeDefined();
    expect(
      await orUndefined(
        client.core.readNamespacedPersistentVolumeClaim({
          name: "librechat-search-data",
          namespace: "navique-example-apps",
        }),
      ),
    ).toBeDefined();
    for (const { release } of EXAMPLE_CAPABILITIES)
      expect([release.name, await releaseRecords(client, release.namespace, release.name)]).toEqual([release.name, []]);
    expect(await releaseRecords(client, "navique-example-apps", "librechat-search")).toEqual([]);
  });
});
