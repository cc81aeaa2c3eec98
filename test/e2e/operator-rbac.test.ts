import type { ChildProcess } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse, stringify } from "yaml";
import { OPERATOR_NAME, OWNERSHIP_MARKS, SYSTEM_NAMESPACE } from "../../lib/api/group.js";
import type { CapabilityEntry } from "../../lib/catalog/capability.js";
import { CERT_MANAGER } from "../../lib/catalog/cert-manager.js";
import { CLOUDNATIVE_PG } from "../../lib/catalog/cloudnative-pg.js";
import { EXTERNAL_SECRETS } from "../../lib/catalog/external-secrets.js";
import { REDIS_OPERATOR } from "../../lib/catalog/redis-operator.js";
import type { HelmCli } from "../../lib/cluster/helm-cli.js";
import { KubeClient, orUndefined, statusOf } from "../../lib/cluster/kube-client.js";
import {
  CAPABILITY_SUITE_SETUP_MS,
  lockCapabilities,
  releaseRecords,
  resetCapabilities,
  testClient,
  testHelm,
} from "../support/capabilities.js";
import { condition, createTestNamespace, eventually } from "../support/cluster.js";
import { removeConsoleObjectsOutsideReleases } from "../support/console-leftovers.js";
import { naviqueCrdsServed } from "../support/failing-step.js";
import { discardNamespace } from "../support/namespace-content.js";
import { startOperatorProcess, stopOperatorProcess } from "../support/operator-process.js";
import {
  createPostgresCluster,
  playCnpgClusterReady,
  readCnpgCluster,
  readPostgresCluster,
} from "../support/postgres.js";
import { playRedisOperator } from "../support/redis.js";
import { createResource, readStoredResource } from "../support/resources.js";
import { playExternalSecretsOperator } from "../support/secrets-controllers.js";

const CHART_RELEASE = "navique-rbac-test";
const CAPABILITIES: readonly CapabilityEntry[] = [CERT_MANAGER, CLOUDNATIVE_PG, REDIS_OPERATOR, EXTERNAL_SECRETS];
/** The user's ClusterSecretStore the SecretsManagement reads (the operator may only get it). */
const CLUSTER_STORE = {
  group: "external-secrets.io",
  version: "v1",
  plural: "clustersecretstores",
  name: "rbac-store",
};

// The operator's ClusterRole and Role are enough for what it does: the operator runs as users run it
// (`navique operator`, its own process, the fixture chart mirror) with the identity its chart gives it —
// the chart installed by the real helm, then a token of its ServiceAccount from the TokenRequest API — and
// installs four capability operators, CRDs, RBAC and all, brings a managed PostgresCluster, a managed
// RedisInstance and a SecretsManagement reading a user's ClusterSecretStore to Ready, finalizes them and
// uninstalls the capabilities, with no Forbidden anywhere.
// Capability installs are cluster-wide: the suite holds the capability lock and starts from nothing
// installed, the capabilities' CRDs deleted, so that the operator creates them itself. CloudNativePG and
// the redis operator cannot run here, nor ESO: the test plays them, writing the Cluster status and the
// StatefulSet they would write, and ESO's Ready conditions and the Secret it would materialise.
describe("the operator with its chart's permissions", () => {
  let client: KubeClient;
  let helm: HelmCli;
  let unlock: (() => Promise<void>) | undefined;
  let work = "";
  let kubeconfig = "";
  let operator: ChildProcess | undefined;
  let output: () => string = () => "";
  let playing: NodeJS.Timeout | undefined;
  let ns = "";

  beforeAll(async () => {
    client = testClient();
    helm = await testHelm();
    unlock = await lockCapabilities();
    await naviqueCrdsServed(client);
    await resetCapabilities(client, helm, CAPABILITIES, { crds: true });
    // A run killed before its cleanup left its release behind (or the console suite its objects): the next
    // run starts from none.
    await helm.uninstall(CHART_RELEASE, SYSTEM_NAMESPACE);
    await removeConsoleObjectsOutsideReleases(client);
    await helm.install(CHART_RELEASE, join(process.cwd(), "charts", OPERATOR_NAME), {
      namespace: SYSTEM_NAMESPACE,
      createNamespace: true,
      wait: false,
    });
    // The ServiceAccount's token, as the kubelet would mount it in the operator's pod.
    const request = await client.core.createNamespacedServiceAccountToken({
      name: OPERATOR_NAME,
      namespace: SYSTEM_NAMESPACE,
      body: { spec: { audiences: [], expirationSeconds: 3600 } },
    });
    const token = request.status?.token ?? "";
    expect(token.length).toBeGreaterThan(20);
    const admin = parse(await readFile(process.env.NAVIQUE_TEST_KUBECONFIG ?? "", "utf8")) as {
      users: { name: string; user: Record<string, unknown> }[];
    };
    work = await mkdtemp(join(tmpdir(), "navique-operator-rbac-"));
    kubeconfig = join(work, "operator.kubeconfig");
    const asOperator = { ...admin, users: admin.users.map((u) => ({ name: u.name, user: { token } })) };
    await writeFile(kubeconfig, stringify(asOperator), { mode: 0o600 });
    ns = (await createTestNamespace("operator-rbac")).name;
    // With leader election, as the chart runs it: the Role on leases covers the leader Lease too.
    const started = startOperatorProcess({ kubeconfig, leaderElect: true });
    operator = started.process;
    output = started.output;
    playing = setInterval(() => {
      void (async () => {
        const cluster = (await readCnpgCluster(client, ns, "db")) as { status?: unknown } | undefined;
        if (cluster && !cluster.status) await playCnpgClusterReady(client, ns, "db");
        await playRedisOperator(client, ns, "cache");
        await playClusterSecretStore(client);
        await playExternalSecretsOperator(client, ns, () => "rbac-remote-value");
      })().catch(() => undefined);
    }, 300);
  }, CAPABILITY_SUITE_SETUP_MS);

  afterAll(async () => {
    if (!unlock) return;
    try {
      clearInterval(playing);
      if (operator) await stopOperatorProcess(operator);
      if (ns) await discardNamespace(client, ns);
      await orUndefined(client.custom.deleteClusterCustomObject(CLUSTER_STORE));
      if (helm) {
        await resetCapabilities(client, helm, CAPABILITIES, { crds: false });
        await helm.uninstall(CHART_RELEASE, SYSTEM_NAMESPACE);
      }
      if (work) await rm(work, { recursive: true, force: true });
    } finally {
      await unlock();
    }
  }, CAPABILITY_SUITE_SETUP_MS);

  it("runs as the chart's ServiceAccount, which may not do what the operator does not (the check can fail)", async () => {
    const asOperator = KubeClient.fromFile(kubeconfig);
    const refused = await asOperator.core.listPodForAllNamespaces().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(statusOf(refused)).toBe(403);
    expect(String((refused as { body?: unknown }).body)).toContain(
      `system:serviceaccount:${SYSTEM_NAMESPACE}:${OPERATOR_NAME}`,
    );
  });

  it("installs cert-manager, cloudnative-pg, redis-operator and external-secrets, and brings a managed PostgresCluster, a RedisInstance and a SecretsManagement to Ready", async () => {
    await createPostgresCluster(client, ns, "db", {
      databases: [{ name: "app" }],
      managed: { deletionPolicy: "Delete" },
    });
    await createResource(client, "RedisInstance", ns, "cache", { managed: { deletionPolicy: "Delete" } });
    await createResource(client, "SecretsManagement", ns, "platform", {
      backend: "eso",
      eso: {
        clusterSecretStoreRef: { name: CLUSTER_STORE.name },
        secrets: [{ name: "db", data: [{ key: "password", remoteKey: "apps/db" }] }],
      },
    });
    const postgres = await eventually(
      "the PostgresCluster to be Ready",
      async () => {
        const resource = await readPostgresCluster(client, ns, "db");
        return condition(resource, "Ready")?.status === "True" ? resource : undefined;
      },
      { timeoutMs: 240_000 },
    );
    expect(postgres.status?.capabilities.map((c) => c.name)).toEqual(["cert-manager", "cloudnative-pg"]);
    const redis = await eventually(
      "the RedisInstance to be Ready",
      async () => {
        const resource = await readStoredResource(client, "RedisInstance", ns, "cache");
        return condition(resource, "Ready")?.status === "True" ? resource : undefined;
      },
      { timeoutMs: 240_000 },
    );
    expect(condition(redis, "Ready")?.message).toBe(`Redis reachable at cache.${ns}.svc:6379`);
    const secrets = await eventually(
      "the SecretsManagement to be Ready",
      async () => {
        const resource = await readStoredResource(client, "SecretsManagement", ns, "platform");
        return condition(resource, "Ready")?.status === "True" ? resource : undefined;
      },
      { timeoutMs: 240_000 },
    );
    expect(condition(secrets, "Ready")?.message).toBe(`provides db in ${ns} through ClusterSecretStore rbac-store`);
    for (const entry of CAPABILITIES) {
      const records = await releaseRecords(client, entry.release.namespace, entry.release.name);
      expect([entry.name, records.at(-1)?.metadata?.labels]).toEqual([
        entry.name,
        expect.objectContaining({ ...OWNERSHIP_MARKS, status: "deployed" }),
      ]);
    }
    // The capabilities' CRDs were created by the operator, by name.
    for (const name of CAPABILITIES.flatMap((entry) => entry.crds.names)) {
      await expect(client.extensions.readCustomResourceDefinition({ name })).resolves.toMatchObject({
        metadata: { name },
      });
    }
  }, 360_000);

  it("finalizes them, deleting what they own, and uninstalls the capabilities no longer needed", async () => {
    await client.custom.deleteNamespacedCustomObject({
      group: "core.navique.com",
      version: "v1alpha1",
      plural: "secretsmanagements",
      namespace: ns,
      name: "platform",
    });
    await client.custom.deleteNamespacedCustomObject({
      group: "core.navique.com",
      version: "v1alpha1",
      plural: "postgresclusters",
      namespace: ns,
      name: "db",
    });
    await client.custom.deleteNamespacedCustomObject({
      group: "core.navique.com",
      version: "v1alpha1",
      plural: "redisinstances",
      namespace: ns,
      name: "cache",
    });
    await eventually(
      "the resources to be finalized and gone",
      async () =>
        (await readPostgresCluster(client, ns, "db")) === undefined &&
        (await readStoredResource(client, "RedisInstance", ns, "cache")) === undefined &&
        (await readStoredResource(client, "SecretsManagement", ns, "platform")) === undefined
          ? true
          : undefined,
      { timeoutMs: 120_000 },
    );
    expect(await readCnpgCluster(client, ns, "db")).toBeUndefined();
    for (const entry of CAPABILITIES) {
      await eventually(
        `${entry.name} to be uninstalled`,
        async () =>
          (await releaseRecords(client, entry.release.namespace, entry.release.name)).length === 0 ? true : undefined,
        { timeoutMs: 180_000 },
      );
    }
  }, 360_000);

  it("was refused nothing: no Forbidden in its output or in any Event it recorded", async () => {
    expect(output()).toContain("acquired the leader lease");
    expect(output()).toContain("[operator] started");
    expect(
      output()
        .split("\n")
        .filter((line) => /forbidden/i.test(line)),
    ).toEqual([]);
    const events = await client.events.listNamespacedEvent({ namespace: ns });
    expect(events.items.filter((e) => /forbidden/i.test(e.note ?? ""))).toEqual([]);
  });
});

/**
 * The user's ClusterSecretStore, once ESO's CRDs are there (the operator installs them), and the Ready
 * condition ESO would write on it once its provider answered (no ESO pod runs here).
 */
async function playClusterSecretStore(client: KubeClient): Promise<void> {
  const { name, ...crd } = CLUSTER_STORE;
  if (!(await orUndefined(client.custom.getClusterCustomObject({ ...crd, name })))) {
    await client.custom.createClusterCustomObject({
      ...crd,
      body: {
        apiVersion: `${crd.group}/${crd.version}`,
        kind: "ClusterSecretStore",
        metadata: { name },
        spec: {
          provider: { vault: { server: "https://vault.example.com:8200", auth: { kubernetes: { role: "apps" } } } },
        },
      },
    });
  }
  await client.custom.patchClusterCustomObjectStatus({
    ...crd,
    name,
    body: [
      {
        op: "add",
        path: "/status",
        value: { conditions: [{ type: "Ready", status: "True", reason: "Valid", message: "store validated" }] },
      },
    ],
  });
}
