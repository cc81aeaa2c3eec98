import { API_GROUP, API_GROUP_VERSION } from "../../lib/api/group.js";
import { type KubeClient, orUndefined } from "../../lib/cluster/kube-client.js";
import {
  CLICKHOUSE_CLUSTER,
  CLICKHOUSE_GROUP,
  KEEPER_CLUSTER,
} from "../../lib/kinds/clickhouse-cluster/clickhouse-operator-api.js";
import { LITELLM_INSTANCE, LITELLM_MODEL, LITELLM_VIRTUAL_KEY } from "../../lib/kinds/gateway/litellm-api.js";
import {
  LAST_SUCCESSFUL_CONFIGURATION,
  MONGODB_COMMUNITY,
  MONGODB_COMMUNITY_GROUP,
} from "../../lib/kinds/mongo-cluster/mongodb-community-api.js";
import { CNPG_API_VERSION, CNPG_CLUSTERS, CNPG_GROUP } from "../../lib/kinds/postgres-cluster/cnpg.js";
import {
  REDIS_OPERATOR_GROUP,
  REDIS_REPLICATION,
  REDIS_STANDALONE,
} from "../../lib/kinds/redis-instance/redis-operator-api.js";
import { REGISTRY } from "../../lib/kinds/registry.js";
import { CLUSTER_SECRET_STORE, ESO_GROUP, SEALED_SECRET } from "../../lib/kinds/secrets-management/upstream-api.js";
import { createClickHouse, playClickHouseOperator } from "./clickhouse.js";
import { KIND_SAMPLES } from "./kind-samples.js";
import { playLiteLLMIdentities, playLiteLLMOperator, playLiteLLMVirtualKeys } from "./litellm.js";
import { createCommunity, playMongoDBOperator } from "./mongodb.js";
import type { suiteNamespaces } from "./namespace-content.js";
import { playCnpgClusterReady } from "./postgres.js";
import { playRedisReplication } from "./redis.js";
import { createReferenceGrant, createResource } from "./resources.js";
import { commitSealedSecret, playExternalSecretsOperator, playSealedSecretsController } from "./secrets-controllers.js";
import { deleteProvisionedVolumes, provisionVolume } from "./volumes.js";

// Every sample of every registered kind (test/support/kind-samples.ts) placed on the real plane so that
// each converges to Ready, as a platform would be built: the samples are each other's references. The
// managed datastores live in `datastores` under the names the other samples' references use (`shared`,
// `analytics`, `cache`, `docs`, `search`), beside the Gateway `llm`, the Observability and the ChatUI that
// refer within their namespace; the Observability with a secretsRef in `observability` (as `traces`, what
// the Gateway's observabilityRef names), the ChatUI with one in `apps`; the adopt and external samples in
// `modes`, adopting what a user made in `targets`; each SecretsManagement in a namespace of its own (one
// per namespace), the Stack in `stack`, the identities beside the Gateway `llm`. A user's Secrets, the SecretsManagement `platform` that provides
// what a secretsRef names, and ReferenceGrants from every namespace of the world into those others point
// into complete it. No pod of an upstream controller runs here: `playWorldControllers` writes what each
// would write.

/** What the volumes the world provisions are labelled with. */
const SUITE = "sample-world";

/** The roles of the world's namespaces; a SecretsManagement sample has one of its own (`secrets-<index>`). */
const ROLES = ["targets", "datastores", "observability", "apps", "modes", "stack"] as const;

/** The namespaces the samples' references name, each standing for a role here (`data` depends on the mode). */
const REFERENCED: Readonly<Record<string, (mode: string) => string>> = {
  data: (mode) => (mode === "adopt" ? "targets" : "datastores"),
  observability: () => "observability",
  gateways: () => "datastores",
  apps: () => "apps",
};

/** A managed datastore sample's name: the one the other samples' references use. */
const DATASTORE_NAMES: Readonly<Record<string, string>> = {
  PostgresCluster: "shared",
  ClickHouseCluster: "analytics",
  RedisInstance: "cache",
  MongoCluster: "docs",
  MeilisearchInstance: "search",
};

/** A short prefix for the adopt and external samples of a kind, which share the `modes` namespace. */
const MODE_PREFIXES: Readonly<Record<string, string>> = {
  PostgresCluster: "pg",
  ClickHouseCluster: "ch",
  RedisInstance: "redis",
  MongoCluster: "mongo",
  MeilisearchInstance: "meili",
  Gateway: "gateway",
};

/** A sample placed in the world. */
export interface PlacedSample {
  readonly kind: string;
  /** Its position among its kind's samples (KIND_SAMPLES). */
  readonly index: number;
  readonly namespace: string;
  readonly name: string;
  /** The sample, its references pointed at the world's namespaces. */
  readonly spec: Record<string, unknown>;
  /** `Kind namespace/name`: how the decision lines about it begin. */
  readonly label: string;
}

/** The world's namespaces, by role. */
export type WorldNamespaces = Readonly<Record<string, string>>;

type Spec = Record<string, unknown>;

const modeOf = (spec: Spec) => (typeof spec.mode === "string" ? spec.mode : "managed");

/** Where a sample lives, by role, and its name. */
function placement(kind: string, index: number, spec: Spec): { role: string; name: string } {
  const datastore = DATASTORE_NAMES[kind];
  const mode = modeOf(spec);
  const prefix = MODE_PREFIXES[kind];
  if (datastore && mode === "managed") return { role: "datastores", name: datastore };
  if (datastore && prefix) return { role: "modes", name: `${prefix}-${mode}` };
  switch (kind) {
    case "Gateway":
      return (spec.database as Spec).mode === "external"
        ? { role: "modes", name: `${prefix}-external` }
        : { role: "datastores", name: "llm" };
    case "Observability":
      return spec.secretsRef ? { role: "observability", name: "traces" } : { role: "datastores", name: "langfuse" };
    case "ChatUI":
      return spec.secretsRef ? { role: "apps", name: "chat" } : { role: "datastores", name: "chat" };
    case "SecretsManagement":
      return { role: `secrets-${index}`, name: "secrets" };
    case "Stack":
      return { role: "stack", name: "stack" };
    // Beside the Gateway `llm` they name; the User's team is the Team sample, `search`.
    case "Organization":
      return { role: "datastores", name: "research" };
    case "Team":
      return { role: "datastores", name: "search" };
    case "User":
      return { role: "datastores", name: "ada" };
    default:
      throw new Error(
        `${kind} sample ${index} has no place in the sample world: place it in test/support/sample-world.ts (placement)`,
      );
  }
}

/**
 * The spec with every reference's namespace (a `namespace` beside a `name`; a Vault provider's namespace
 * is Vault's own) pointed at the world's namespace of that role.
 */
export function inWorld(spec: Spec, namespaces: WorldNamespaces): Spec {
  const mode = modeOf(spec);
  const walk = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(walk);
    if (value === null || typeof value !== "object") return value;
    const object = Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, walk(inner)]));
    const role = typeof object.namespace === "string" ? REFERENCED[object.namespace]?.(mode) : undefined;
    const namespace = role ? namespaces[role] : undefined;
    return "name" in object && namespace ? { ...object, namespace } : object;
  };
  return walk(spec) as Spec;
}

/** Whether a spec holds a reference naming a namespace (a `namespace` beside a `name`). */
function refersAcross(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(refersAcross);
  if (value === null || typeof value !== "object") return false;
  const object = value as Record<string, unknown>;
  return ("name" in object && typeof object.namespace === "string") || Object.values(object).some(refersAcross);
}

/** The registered kinds' samples. */
export function registeredSamples(): { kind: string; index: number; spec: Spec }[] {
  const samples = KIND_SAMPLES as unknown as Readonly<Record<string, readonly Spec[]>>;
  return REGISTRY.kinds.flatMap((module) => {
    const kind = module.definition.kind;
    const ofKind = samples[kind];
    if (!ofKind || ofKind.length === 0)
      throw new Error(`${kind} has no sample in test/support/kind-samples.ts: a registered kind needs its samples`);
    return ofKind.map((spec, index) => ({ kind, index, spec }));
  });
}

/** Every registered kind's every sample, placed in the world. */
export function placeSamples(namespaces: WorldNamespaces): PlacedSample[] {
  return registeredSamples().map(({ kind, index, spec }) => {
    const { role, name } = placement(kind, index, spec);
    const namespace = namespaces[role];
    if (!namespace) throw new Error(`the sample world has no namespace of role ${role}`);
    return { kind, index, namespace, name, spec: inWorld(spec, namespaces), label: `${kind} ${namespace}/${name}` };
  });
}

/** The roles of the world's namespaces: the fixed ones and one per SecretsManagement sample. */
export function worldRoles(): string[] {
  const secrets = registeredSamples().filter((s) => s.kind === "SecretsManagement");
  return [...ROLES, ...secrets.map((s) => `secrets-${s.index}`)];
}

/** Creates the world's namespaces, one per role. */
export async function createWorldNamespaces(namespaces: ReturnType<typeof suiteNamespaces>): Promise<WorldNamespaces> {
  const created: Record<string, string> = {};
  for (const role of worldRoles()) created[role] = await namespaces.create(role);
  return created;
}

/**
 * What the played providers hold under each remote key: a host for `…-host`, a database URL for `…-url`
 * and `…-uri`, a distinct value otherwise.
 */
export function remoteValue(remoteKey: string): string {
  if (remoteKey.endsWith("-host")) return `${remoteKey.slice(0, -"-host".length)}.example.internal`;
  if (remoteKey.endsWith("-url") || remoteKey.endsWith("-uri"))
    return "postgresql://app:remote-password@db.example.internal:5432/app";
  return `remote-${remoteKey}-7Qx2`;
}

/**
 * The Secrets the SecretsManagement `platform` of a role provides: every Secret its samples' secretsRef
 * reads, with the keys they read (the external datastores' connection Secrets, the Gateway's database
 * URL; the Observability's S3 and project keys; the ChatUI's gateway key).
 */
const PROVIDED: Readonly<Record<string, Readonly<Record<string, readonly string[]>>>> = {
  modes: {
    pg: ["host", "username", "password", "uri"],
    redis: ["host", "password"],
    search: ["host", "password"],
    clickhouse: ["host", "username", "password"],
    mongo: ["host", "username", "password"],
    "gateway-db": ["url"],
  },
  observability: {
    s3: ["access-key-id", "secret-access-key"],
    "langfuse-project-keys": ["public-key", "secret-key"],
  },
  apps: { "chat-gateway-key": ["api_key"] },
};

/** A user's Secrets the samples name outside a secretsRef, by role. */
const USER_SECRETS: Readonly<Record<string, Readonly<Record<string, Readonly<Record<string, string>>>>>> = {
  targets: { pg: { username: "app", password: "user-made-password" } },
  datastores: {
    openai: { "api-key": "sk-user-openai-key" },
    "gateway-db": { url: "postgresql://llm:user-password@db.example.internal:5432/llm" },
    "langfuse-keys": { "public-key": "pk-lf-user", "secret-key": "sk-lf-user" },
    s3: { "access-key-id": "user-access-key", "secret-access-key": "user-secret-key" },
  },
};

/** What a world's grant opens: everything the samples refer to across namespaces. */
const GRANTED = [
  { group: "", kind: "Secret" },
  { group: CNPG_GROUP, kind: "Cluster" },
  { group: REDIS_OPERATOR_GROUP, kind: REDIS_STANDALONE.kind },
  { group: REDIS_OPERATOR_GROUP, kind: REDIS_REPLICATION.kind },
  { group: CLICKHOUSE_GROUP, kind: CLICKHOUSE_CLUSTER.kind },
  { group: MONGODB_COMMUNITY_GROUP, kind: MONGODB_COMMUNITY.kind },
  ...Object.keys(DATASTORE_NAMES).map((kind) => ({ group: API_GROUP, kind })),
  { group: API_GROUP, kind: "Gateway" },
  { group: API_GROUP, kind: "Observability" },
];

/** The roles other namespaces refer into. */
const REFERRED_INTO = ["targets", "datastores", "observability"];

/**
 * Makes what the samples refer to and a user or another team would have made: in `targets`, the CNPG
 * Cluster `shared`, the Redis `cache`, the ClickHouseCluster `analytics` and the MongoDBCommunity
 * `documents` (made as kubectl would, without the product) and the credentials Secret `pg`; the user's
 * Secrets of `datastores`; the SecretsManagement `platform` of each role whose samples have a secretsRef;
 * for the SecretsManagement samples, the ClusterSecretStore one names and the SealedSecrets one provides
 * (committed as a user commits them); and the ReferenceGrants by which `targets`, `datastores` and
 * `observability` let every namespace of the world refer into them. Needs the capabilities' CRDs.
 */
export async function prepareWorld(client: KubeClient, namespaces: WorldNamespaces): Promise<void> {
  const at = (role: string) => {
    const namespace = namespaces[role];
    if (!namespace) throw new Error(`the sample world has no namespace of role ${role}`);
    return namespace;
  };
  const targets = at("targets");
  await client.apply(
    {
      apiVersion: CNPG_API_VERSION,
      kind: "Cluster",
      metadata: { name: "shared", namespace: targets },
      spec: { instances: 1 },
    } as never,
    { fieldManager: "kubectl" },
  );
  await client.apply(
    {
      apiVersion: REDIS_STANDALONE.apiVersion,
      kind: REDIS_STANDALONE.kind,
      metadata: { name: "cache", namespace: targets },
      spec: { kubernetesConfig: { image: "quay.io/opstree/redis:v7.0.15" } },
    } as never,
    { fieldManager: "kubectl" },
  );
  await createClickHouse(client, "KeeperCluster", targets, "analytics", { replicas: 1 });
  await createClickHouse(client, "ClickHouseCluster", targets, "analytics", {
    replicas: 1,
    keeperClusterRef: { name: "analytics" },
  });
  await createCommunity(client, targets, "documents");
  for (const [role, secrets] of Object.entries(USER_SECRETS)) {
    for (const [name, stringData] of Object.entries(secrets))
      await client.core.createNamespacedSecret({ namespace: at(role), body: { metadata: { name }, stringData } });
  }
  for (const [role, secrets] of Object.entries(PROVIDED)) {
    await createResource(client, "SecretsManagement", at(role), "platform", {
      backend: "eso",
      eso: {
        provider: { aws: { service: "SecretsManager", region: "eu-west-1" } },
        secrets: Object.entries(secrets).map(([name, keys]) => ({
          name,
          data: keys.map((key) => ({ key, remoteKey: `${name}-${key}` })),
        })),
      },
    });
  }
  for (const sample of placeSamples(namespaces).filter((s) => s.kind === "SecretsManagement")) {
    const spec = sample.spec as {
      eso?: { clusterSecretStoreRef?: { name: string } };
      sealedSecrets?: { secrets: { name: string }[] };
    };
    const store = spec.eso?.clusterSecretStoreRef?.name;
    if (store) await createClusterSecretStore(client, store);
    for (const { name } of spec.sealedSecrets?.secrets ?? []) await commitSealedSecret(client, sample.namespace, name);
  }
  // The kinds whose samples refer into another namespace: a grant's `from` names only kinds that hold references.
  const kinds = [
    ...new Set(
      registeredSamples()
        .filter((s) => refersAcross(s.spec))
        .map((s) => s.kind),
    ),
  ];
  for (const into of REFERRED_INTO) {
    for (const [role, from] of Object.entries(namespaces)) {
      if (role === into) continue;
      await createReferenceGrant(client, at(into), `from-${role}`, {
        from: kinds.map((kind) => ({ group: API_GROUP, kind, namespace: from })),
        to: GRANTED,
      });
    }
  }
}

/** A ClusterSecretStore a user made, validated as ESO writes it (playExternalSecretsOperator's words). */
async function createClusterSecretStore(client: KubeClient, name: string): Promise<void> {
  const store = { group: ESO_GROUP, version: "v1", plural: CLUSTER_SECRET_STORE.plural };
  if (!(await orUndefined(client.custom.getClusterCustomObject({ ...store, name }))))
    await client.custom.createClusterCustomObject({
      ...store,
      body: {
        apiVersion: CLUSTER_SECRET_STORE.apiVersion,
        kind: CLUSTER_SECRET_STORE.kind,
        metadata: { name },
        spec: { provider: { aws: { service: "SecretsManager", region: "eu-west-1" } } },
      },
    });
  await client.custom.patchClusterCustomObjectStatus({
    ...store,
    name,
    body: [
      {
        op: "add",
        path: "/status",
        value: {
          conditions: [
            {
              type: "Ready",
              status: "True",
              reason: "Valid",
              message: "store validated",
              lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, "Z"),
            },
          ],
          capabilities: "ReadOnly",
        },
      },
    ],
  });
}

/** Removes what the world made outside its namespaces: the ClusterSecretStores and the volumes. */
export async function removeWorldLeftovers(client: KubeClient, namespaces: WorldNamespaces): Promise<void> {
  for (const sample of placeSamples(namespaces).filter((s) => s.kind === "SecretsManagement")) {
    const name = (sample.spec as { eso?: { clusterSecretStoreRef?: { name: string } } }).eso?.clusterSecretStoreRef
      ?.name;
    if (name)
      await orUndefined(
        client.custom.deleteClusterCustomObject({
          group: ESO_GROUP,
          version: "v1",
          plural: CLUSTER_SECRET_STORE.plural,
          name,
        }),
      );
  }
  await deleteProvisionedVolumes(client, SUITE);
}

interface Listed {
  readonly metadata: {
    readonly name: string;
    readonly namespace: string;
    readonly generation?: number;
    readonly annotations?: Record<string, string>;
  };
  readonly spec?: unknown;
  readonly status?: {
    readonly observedGeneration?: number;
    readonly ready?: boolean;
    readonly synced?: boolean;
    readonly conditions?: readonly unknown[];
  };
}

/** The objects of an upstream kind in the world's namespaces (none when its CRD is not served). */
async function listed(
  client: KubeClient,
  namespaces: readonly string[],
  kind: { readonly apiVersion: string; readonly plural: string },
): Promise<Listed[]> {
  const [group = "", version = ""] = kind.apiVersion.split("/");
  const answer = (await orUndefined(client.custom.listClusterCustomObject({ group, version, plural: kind.plural }))) as
    | { items: Listed[] }
    | undefined;
  return (answer?.items ?? []).filter((item) => namespaces.includes(item.metadata.namespace));
}

/**
 * One round of what the upstream controllers would write in the world, for whatever the samples made so
 * far (no pod of theirs runs here), each through its play helper: CNPG's Ready on each Cluster; the
 * ClickHouse operator's Ready on each cluster and keeper for the generation it sees; the redis-operator's
 * StatefulSets and master of each RedisReplication; the MongoDB operator's status and applied spec of each
 * MongoDBCommunity, again after each change of its spec; ESO's stores validated and ExternalSecrets synced
 * (each key `remoteValue(remote key)`); the Sealed Secrets controller's unsealed Secret for each
 * SealedSecret; the LiteLLM operator's ready instances and models and its virtual keys issued; and a storage
 * provisioner's volume for each claim waiting for one. Deployments and StatefulSets are rolled out by the
 * real controllers on kwok's node.
 */
export async function playWorldControllers(client: KubeClient, namespaces: WorldNamespaces): Promise<void> {
  const all = Object.values(namespaces);
  const list = (kind: { readonly apiVersion: string; readonly plural: string }) => listed(client, all, kind);
  const unplayed = (items: readonly Listed[]) =>
    items.filter((item) => item.status?.observedGeneration !== item.metadata.generation);
  const [cnpg, clickhouses, keepers, replications, communities, sealed, instances, models, keys] = await Promise.all([
    list({ apiVersion: CNPG_API_VERSION, plural: CNPG_CLUSTERS }),
    list(CLICKHOUSE_CLUSTER),
    list(KEEPER_CLUSTER),
    list(REDIS_REPLICATION),
    list(MONGODB_COMMUNITY),
    list(SEALED_SECRET),
    list(LITELLM_INSTANCE),
    list(LITELLM_MODEL),
    list(LITELLM_VIRTUAL_KEY),
  ]);
  const clickhouseNames = new Map(
    [...unplayed(clickhouses), ...unplayed(keepers)].map((o) => [`${o.metadata.namespace}/${o.metadata.name}`, o]),
  );
  const liteLLMNamespaces = new Set([
    ...instances.filter((i) => !i.status?.ready).map((i) => i.metadata.namespace),
    ...models.filter((m) => !m.status?.synced).map((m) => m.metadata.namespace),
  ]);
  const plays: Promise<unknown>[] = [
    ...cnpg.filter((c) => !c.status).map((c) => playCnpgClusterReady(client, c.metadata.namespace, c.metadata.name)),
    ...[...clickhouseNames.values()].map((c) => playClickHouseOperator(client, c.metadata.namespace, c.metadata.name)),
    ...replications.map((r) => playRedisReplication(client, r.metadata.namespace, r.metadata.name)),
    ...communities
      .filter((c) => !c.status || c.metadata.annotations?.[LAST_SUCCESSFUL_CONFIGURATION] !== JSON.stringify(c.spec))
      .map((c) => playMongoDBOperator(client, c.metadata.namespace, c.metadata.name)),
    ...sealed
      .filter((s) => !s.status)
      .map((s) =>
        playSealedSecretsController(client, s.metadata.namespace, s.metadata.name, {
          unsealed: true,
          data: { password: remoteValue(s.metadata.name) },
        }),
      ),
    ...instances
      .filter((i) => liteLLMNamespaces.has(i.metadata.namespace))
      .map((i) => playLiteLLMOperator(client, i.metadata.namespace, i.metadata.name)),
    ...[...new Set(keys.filter((k) => !k.status?.synced).map((k) => k.metadata.namespace))].map((namespace) =>
      playLiteLLMVirtualKeys(client, namespace),
    ),
    ...all.map((namespace) => playExternalSecretsOperator(client, namespace, remoteValue)),
    ...all.map((namespace) => playLiteLLMIdentities(client, namespace)),
    provisionWaitingClaims(client, all),
  ];
  await Promise.all(plays);
}

/** A volume for each claim of the world still waiting for one, of its class and size. */
async function provisionWaitingClaims(client: KubeClient, namespaces: readonly string[]): Promise<void> {
  const claims = await client.core.listPersistentVolumeClaimForAllNamespaces();
  for (const claim of claims.items) {
    const namespace = claim.metadata?.namespace ?? "";
    if (!namespaces.includes(namespace) || claim.spec?.volumeName) continue;
    const size = claim.spec?.resources?.requests?.storage ?? "10Gi";
    await provisionVolume(
      client,
      SUITE,
      namespace,
      claim.metadata?.name ?? "",
      String(size),
      claim.spec?.storageClassName ?? undefined,
    );
  }
}

/** The body of a sample as `navique plan` reads it from a file and a program declares it. */
export function declared(sample: Pick<PlacedSample, "kind" | "namespace" | "name" | "spec">) {
  return {
    apiVersion: API_GROUP_VERSION,
    kind: sample.kind,
    metadata: { name: sample.name, namespace: sample.namespace },
    spec: sample.spec,
  };
}
