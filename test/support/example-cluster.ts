import { join } from "node:path";
import { parseAllDocuments } from "yaml";
import { ensureNaviqueCrds } from "../../lib/apply/navique-crds.js";
import { CERT_MANAGER } from "../../lib/catalog/cert-manager.js";
import { CLICKHOUSE_OPERATOR } from "../../lib/catalog/clickhouse-operator.js";
import { CLOUDNATIVE_PG } from "../../lib/catalog/cloudnative-pg.js";
import { EXTERNAL_SECRETS } from "../../lib/catalog/external-secrets.js";
import { LITELLM_OPERATOR } from "../../lib/catalog/litellm-operator.js";
import { MONGODB_KUBERNETES } from "../../lib/catalog/mongodb-kubernetes.js";
import { REDIS_OPERATOR } from "../../lib/catalog/redis-operator.js";
import type { HelmCli } from "../../lib/cluster/helm-cli.js";
import { type KubeClient, orUndefined } from "../../lib/cluster/kube-client.js";
import { run } from "../../lib/cluster/process.js";
import { LAST_SUCCESSFUL_CONFIGURATION } from "../../lib/kinds/mongo-cluster/mongodb-community-api.js";
import { CNPG_API_VERSION } from "../../lib/kinds/postgres-cluster/cnpg.js";
import { createReconcileContext } from "../../lib/reconcile/context.js";
import { deleteNamespaceAndWait, FIXTURE_CHARTS, FIXTURE_SOURCE } from "./capabilities.js";
import { playClickHouseOperator, readClickHouse } from "./clickhouse.js";
import { playLiteLLMOperator, playLiteLLMVirtualKeys } from "./litellm.js";
import { playMongoDBOperator, readCommunity } from "./mongodb.js";
import { playCnpgClusterReady, readCnpgCluster } from "./postgres.js";
import { playRedisOperator } from "./redis.js";
import { finalizeEveryKind, readStoredResource } from "./resources.js";
import { playExternalSecretsOperator } from "./secrets-controllers.js";
import { deleteProvisionedVolumes, provisionVolume } from "./volumes.js";

/** Namespaces the examples (examples/pulumi, examples/cdk8s) use. */
export const EXAMPLE_NAMESPACES = ["navique-example-platform", "navique-example-apps", "navique-example-data"];

/**
 * The datastores both examples declare, as `<kind> <namespace>/<name>`, in their order: how their decision
 * lines begin.
 */
export const EXAMPLE_DATASTORES = [
  "PostgresCluster navique-example-platform/platform-db",
  "ClickHouseCluster navique-example-platform/langfuse-clickhouse",
  "RedisInstance navique-example-platform/langfuse-redis",
  "PostgresCluster navique-example-apps/chat-db",
  "MongoCluster navique-example-apps/librechat-mongo",
  "MeilisearchInstance navique-example-apps/librechat-search",
] as const;

/** The applications both examples declare — the gateway, Langfuse, LibreChat —, as their decision lines begin. */
export const EXAMPLE_APPLICATIONS = [
  "Observability navique-example-platform/langfuse",
  "Gateway navique-example-platform/llm",
  "ChatUI navique-example-apps/librechat",
] as const;

/** The SecretsManagement both examples declare, as its decision lines begin. */
export const EXAMPLE_SECRETS = "SecretsManagement navique-example-platform/platform-secrets";

/**
 * What the played External Secrets Operator copies from each remote key of the example's Azure Key Vault:
 * a value distinctive enough to be looked for everywhere it must not appear.
 */
export function exampleRemoteValue(remoteKey: string): string {
  return `remote-${remoteKey}-q7Zt4kXw`;
}

/** The key of the gateway the team keeps for LibreChat when it wires it by hand. */
export const EXAMPLE_GATEWAY_KEY = "sk-kept-by-the-team-3f9a";

/** A resource of EXAMPLE_DATASTORES or EXAMPLE_APPLICATIONS, read back: its kind, namespace and name. */
export function exampleDatastore(label: string): { kind: string; namespace: string; name: string } {
  const [kind = "", where = ""] = label.split(" ");
  const [namespace = "", name = ""] = where.split("/");
  return { kind, namespace, name };
}

/** The stored resource of each example datastore, in EXAMPLE_DATASTORES's order (undefined where none). */
export function readExampleDatastores(client: KubeClient, labels: readonly string[] = EXAMPLE_DATASTORES) {
  return Promise.all(
    labels.map((label) => {
      const { kind, namespace, name } = exampleDatastore(label);
      return readStoredResource(client, kind, namespace, name);
    }),
  );
}

/**
 * The capability operators the examples install, each after what needs it (the order their releases are
 * uninstalled in): what a suite running them returns to "nothing installed" before and after.
 */
export const EXAMPLE_CAPABILITIES = [
  CLOUDNATIVE_PG,
  CLICKHOUSE_OPERATOR,
  CERT_MANAGER,
  REDIS_OPERATOR,
  MONGODB_KUBERNETES,
  EXTERNAL_SECRETS,
  LITELLM_OPERATOR,
];

/** What the volumes provisioned for the examples are labelled with. */
const EXAMPLE_VOLUMES = "examples";

/**
 * The cluster the examples expect: no example namespace left from before, and the user's own CNPG
 * Cluster `shared` with its credentials in `navique-example-data` (made as kubectl would, without the
 * product), which the examples adopt, and the ReferenceGrant by which that namespace allows it; the
 * platform's namespace, with the ReferenceGrant by which it lets LibreChat use its gateway (the Pulumi
 * example declares none: its owner does).
 */
export async function prepareExampleCluster(client: KubeClient, helm: HelmCli): Promise<void> {
  await removeExampleNamespaces(client, helm);
  await client.core.createNamespace({ body: { metadata: { name: "navique-example-data" } } });
  const crds = (
    await run(helm.binary, [
      "template",
      "crds",
      join(FIXTURE_CHARTS, "cloudnative-pg"),
      "--show-only",
      "templates/crds.yaml",
    ])
  ).stdout;
  for (const document of parseAllDocuments(crds)) {
    const object = document.toJS() as { apiVersion: string; kind: string; metadata: { name: string } } | null;
    if (object) await client.apply(object, { fieldManager: "kubectl" });
  }
  await ensureNaviqueCrds(client);
  await client.apply(
    {
      apiVersion: CNPG_API_VERSION,
      kind: "Cluster",
      metadata: { name: "shared", namespace: "navique-example-data" },
      spec: { instances: 1 },
    } as never,
    { fieldManager: "kubectl" },
  );
  await client.core.createNamespacedSecret({
    namespace: "navique-example-data",
    body: {
      metadata: { name: "shared-app" },
      type: "kubernetes.io/basic-auth",
      stringData: { username: "chat", password: "user-made-password" },
    },
  });
  await grantExampleAdoption(client);
  await client.core.createNamespace({ body: { metadata: { name: "navique-example-platform" } } });
  await client.apply(
    {
      apiVersion: "core.navique.com/v1alpha1",
      kind: "ReferenceGrant",
      metadata: { name: "navique-example-apps", namespace: "navique-example-platform" },
      spec: {
        from: [{ group: "core.navique.com", kind: "ChatUI", namespace: "navique-example-apps" }],
        to: [{ group: "core.navique.com", kind: "Gateway", name: "llm" }],
      },
    } as never,
    { fieldManager: "kubectl" },
  );
}

/** The examples' ReferenceGrant, as examples/cdk8s declares it. */
export const EXAMPLE_GRANT = { namespace: "navique-example-data", name: "navique-example-apps" };

/**
 * The owner of navique-example-data lets the examples' PostgresClusters in navique-example-apps adopt
 * its cluster and credentials (docs/reference-grants.md), with kubectl.
 */
export async function grantExampleAdoption(client: KubeClient): Promise<void> {
  await client.apply(
    {
      apiVersion: "core.navique.com/v1alpha1",
      kind: "ReferenceGrant",
      metadata: { name: EXAMPLE_GRANT.name, namespace: EXAMPLE_GRANT.namespace },
      spec: {
        from: [{ group: "core.navique.com", kind: "PostgresCluster", namespace: "navique-example-apps" }],
        to: [
          { group: "postgresql.cnpg.io", kind: "Cluster", name: "shared" },
          { group: "", kind: "Secret", name: "shared-app" },
        ],
      },
    } as never,
    { fieldManager: "kubectl" },
  );
}

/**
 * Finalizes the examples' resources (the product's own deletion path), then deletes their namespaces and
 * the volumes provisioned for them.
 */
export async function removeExampleNamespaces(client: KubeClient, helm: HelmCli): Promise<void> {
  const context = createReconcileContext({ client, helm, source: FIXTURE_SOURCE });
  for (const namespace of EXAMPLE_NAMESPACES) await finalizeEveryKind(context, namespace);
  // At once: each deletion waits out the namespace controller's grace period (namespace-content.ts).
  await Promise.all(EXAMPLE_NAMESPACES.map((namespace) => deleteNamespaceAndWait(client, namespace)));
  await deleteProvisionedVolumes(client, EXAMPLE_VOLUMES);
}

/**
 * Plays what cannot run on the local plane (no pod runs) for the examples' datastores, writing what each
 * would write once its object exists, and nothing after (a status played once stays):
 * - the CNPG controller: Ready on the Clusters `platform-db` and the user's `shared`;
 * - the ClickHouse operator: Ready on `langfuse-clickhouse`'s KeeperCluster and ClickHouseCluster, and
 *   their headless Service (test/support/clickhouse.ts);
 * - the redis-operator: the StatefulSet of the Redis `langfuse-redis`, which the real StatefulSet
 *   controller then rolls out on kwok's node (test/support/redis.ts);
 * - the MongoDB operator: phase Running with every member on `librechat-mongo`, and the annotation of
 *   the spec it applied, again after each change of its spec (a claim's user) (test/support/mongodb.ts);
 * - a storage provisioner: the volume of Meilisearch's claim `librechat-search-data`, after which the
 *   real controllers roll out the chart's StatefulSet (test/support/volumes.ts);
 * - the External Secrets Operator: `platform-secrets`'s SecretStore validated, its ExternalSecrets synced
 *   into their Secrets (`llm-provider-keys`, `langfuse-s3` …), each key `exampleRemoteValue(remote key)`
 *   (test/support/secrets-controllers.ts);
 * - the LiteLLM operator: the instance `llm` and its models ready, and each virtual key it is asked for
 *   issued (test/support/litellm.ts);
 * - a storage provisioner for LibreChat's claim of images, `librechat-images`;
 * - the team that wires LibreChat by hand (the Community edition): the Secret `librechat-gateway-key` of
 *   `navique-example-apps`, once the namespace is there.
 * Langfuse's and LibreChat's Deployments are rolled out by the real controllers on kwok's node.
 * Returns the stop function.
 */
export function playExampleControllers(client: KubeClient): () => void {
  const platform = "navique-example-platform";
  const apps = "navique-example-apps";
  const plays = [
    async () => {
      for (const [namespace, name] of [
        [platform, "platform-db"],
        ["navique-example-data", "shared"],
      ] as const) {
        const cluster = (await readCnpgCluster(client, namespace, name)) as { status?: unknown } | undefined;
        if (cluster && !cluster.status) await playCnpgClusterReady(client, namespace, name);
      }
    },
    async () => {
      const objects = await Promise.all(
        (["keeperclusters", "clickhouseclusters"] as const).map((plural) =>
          readClickHouse(client, plural, platform, "langfuse-clickhouse"),
        ),
      );
      if (objects.some((object) => object && !object.status))
        await playClickHouseOperator(client, platform, "langfuse-clickhouse");
    },
    () => playRedisOperator(client, platform, "langfuse-redis"),
    async () => {
      // Again whenever its spec changed (a claim's user added): the operator records the spec it applied.
      const community = await readCommunity(client, apps, "librechat-mongo");
      const applied = community?.metadata.annotations?.[LAST_SUCCESSFUL_CONFIGURATION];
      if (community && (!community.status || applied !== JSON.stringify(community.spec)))
        await playMongoDBOperator(client, apps, "librechat-mongo");
    },
    () => provisionVolume(client, EXAMPLE_VOLUMES, apps, "librechat-search-data"),
    () => playExternalSecretsOperator(client, platform, exampleRemoteValue),
    async () => {
      await playLiteLLMOperator(client, platform, "llm");
      await playLiteLLMVirtualKeys(client, platform);
    },
    () => provisionVolume(client, EXAMPLE_VOLUMES, apps, "librechat-images"),
    async () => {
      if (!(await orUndefined(client.core.readNamespace({ name: apps })))) return;
      if (await orUndefined(client.core.readNamespacedSecret({ name: "librechat-gateway-key", namespace: apps })))
        return;
      await client.core.createNamespacedSecret({
        namespace: apps,
        body: { metadata: { name: "librechat-gateway-key" }, stringData: { api_key: EXAMPLE_GATEWAY_KEY } },
      });
    },
  ];
  let playing = false;
  const timer = setInterval(() => {
    // One round at a time: a slow apiserver must not stack rounds up.
    if (playing) return;
    playing = true;
    void Promise.all(plays.map((play) => play().catch(() => undefined))).finally(() => {
      playing = false;
    });
  }, 300);
  return () => clearInterval(timer);
}
