import type { CapabilityEntry } from "../../lib/catalog/capability.js";
import type { HelmCli } from "../../lib/cluster/helm-cli.js";
import { type KubeClient, orUndefined } from "../../lib/cluster/kube-client.js";
import { CNPG_CLUSTERS, CNPG_DATABASES, CNPG_GROUP, CNPG_VERSION } from "../../lib/kinds/postgres-cluster/cnpg.js";
import { playCnpgClusterReady } from "./postgres.js";
import { playRedisOperator } from "./redis.js";

const REDIS = { group: "redis.redis.opstreelabs.in", version: "v1beta2", plural: "redis" };
const CNPG_CLUSTER = { group: CNPG_GROUP, version: CNPG_VERSION, plural: CNPG_CLUSTERS };
const CNPG_DATABASE = { group: CNPG_GROUP, version: CNPG_VERSION, plural: CNPG_DATABASES };

type CustomKind = { readonly group: string; readonly version: string; readonly plural: string };
type Stored = { metadata?: { uid?: string; labels?: Record<string, string> }; spec?: Record<string, unknown> };

/**
 * The resources the drift cases disturb what was emitted for: a managed PostgresCluster `drift` with the
 * database `app1` (a CNPG Cluster, a CNPG Database `drift-app1`, the generated Secret
 * `drift-credentials`) and a managed RedisInstance `cache` (a Redis, the Secret `cache-credentials`).
 */
export const DRIFT_POSTGRES = "drift";
export const DRIFT_REDIS = "cache";

/** One disturbance of something the product made, and how to tell it was put back. */
export interface DriftCase {
  /** What is disturbed: `CNPG Database edited`. */
  readonly name: string;
  /** Makes the disturbance; returns when it was made (performance.now()) and the check that it was corrected. */
  disturb(): Promise<Disturbed>;
}

export interface Disturbed {
  /** performance.now() just before the disturbing request. */
  readonly at: number;
  /** True once what was disturbed is as the product made it again. */
  readonly corrected: () => Promise<boolean>;
  /** For a release: true once its reinstall has started (a new record exists), before it is deployed. */
  readonly started?: () => Promise<boolean>;
}

async function readCustom(client: KubeClient, kind: CustomKind, namespace: string, name: string) {
  return (await orUndefined(client.custom.getNamespacedCustomObject({ ...kind, namespace, name }))) as
    | Stored
    | undefined;
}

/** Deleting the object: corrected once an object of that name exists again, a new one (another uid). */
function deleted(name: string, read: () => Promise<Stored | undefined>, remove: () => Promise<unknown>): DriftCase {
  return {
    name,
    disturb: async () => {
      const before = (await read())?.metadata?.uid;
      if (!before) throw new Error(`${name}: the object is not there to delete`);
      const at = performance.now();
      await remove();
      return {
        at,
        corrected: async () => {
          const uid = (await read())?.metadata?.uid;
          return uid !== undefined && uid !== before;
        },
      };
    },
  };
}

/** Replacing one spec field by hand: corrected once the field holds what the product set again. */
function edited(client: KubeClient, name: string, kind: CustomKind, namespace: string, object: string, path: string) {
  const valueAt = (stored: Stored | undefined) =>
    path
      .split("/")
      .filter(Boolean)
      .reduce<unknown>((value, key) => (value as Record<string, unknown> | undefined)?.[key], stored);
  return {
    name,
    disturb: async () => {
      const before = valueAt(await readCustom(client, kind, namespace, object));
      if (before === undefined) throw new Error(`${name}: ${object} has no ${path} to edit`);
      const tampered = typeof before === "number" ? before + 4 : `${String(before)}-edited-by-hand`;
      const at = performance.now();
      await client.custom.patchNamespacedCustomObject(
        { ...kind, namespace, name: object, body: [{ op: "replace", path, value: tampered }] },
        undefined,
      );
      return { at, corrected: async () => valueAt(await readCustom(client, kind, namespace, object)) === before };
    },
  } satisfies DriftCase;
}

/** The revisions helm keeps of a release (Secrets labelled owner=helm,name=<release>). */
async function releaseRecords(client: KubeClient, namespace: string, release: string) {
  return (await client.core.listNamespacedSecret({ namespace, labelSelector: `owner=helm,name=${release}` })).items;
}

/**
 * `helm uninstall` by hand of a capability release still needed: started once a new record of the
 * release exists (the operator's install is under way: a record that is none of the old ones), corrected
 * once that record is deployed.
 */
export function releaseUninstalled(client: KubeClient, helm: HelmCli, entry: CapabilityEntry): DriftCase {
  const { name, namespace } = entry.release;
  return {
    name: `${entry.name} release uninstalled`,
    disturb: async () => {
      const before = new Set((await releaseRecords(client, namespace, name)).map((r) => r.metadata?.uid));
      if (before.size === 0) throw new Error(`release ${namespace}/${name} is not installed`);
      const fresh = async () =>
        (await releaseRecords(client, namespace, name)).filter((r) => !before.has(r.metadata?.uid));
      // From the moment helm has removed the release (its records go last): what the operator sees, and
      // what a user waits for once `helm uninstall` returns.
      await helm.uninstall(name, namespace);
      return {
        at: performance.now(),
        started: async () => (await fresh()).length > 0,
        corrected: async () => (await fresh()).some((r) => r.metadata?.labels?.status === "deployed"),
      };
    },
  };
}

/** Every object the product emits for DRIFT_POSTGRES and DRIFT_REDIS in `namespace`, disturbed one way each. */
export function emittedObjectCases(client: KubeClient, namespace: string): DriftCase[] {
  const secret = (name: string) => () => orUndefined(client.core.readNamespacedSecret({ name, namespace }));
  const custom = (kind: CustomKind, name: string) => () => readCustom(client, kind, namespace, name);
  const removeCustom = (kind: CustomKind, name: string) => () =>
    client.custom.deleteNamespacedCustomObject({ ...kind, namespace, name });
  const database = `${DRIFT_POSTGRES}-app1`;
  return [
    edited(client, "CNPG Cluster edited", CNPG_CLUSTER, namespace, DRIFT_POSTGRES, "/spec/instances"),
    deleted("CNPG Cluster deleted", custom(CNPG_CLUSTER, DRIFT_POSTGRES), removeCustom(CNPG_CLUSTER, DRIFT_POSTGRES)),
    edited(client, "CNPG Database edited", CNPG_DATABASE, namespace, database, "/spec/owner"),
    deleted("CNPG Database deleted", custom(CNPG_DATABASE, database), removeCustom(CNPG_DATABASE, database)),
    deleted(
      "generated Secret deleted",
      secret(`${DRIFT_POSTGRES}-credentials`) as () => Promise<Stored | undefined>,
      () => client.core.deleteNamespacedSecret({ name: `${DRIFT_POSTGRES}-credentials`, namespace }),
    ),
    edited(client, "Redis edited", REDIS, namespace, DRIFT_REDIS, "/spec/kubernetesConfig/image"),
    deleted("Redis deleted", custom(REDIS, DRIFT_REDIS), removeCustom(REDIS, DRIFT_REDIS)),
  ];
}

/**
 * Plays the controllers that cannot run on the local plane, every `intervalMs`: CloudNativePG (the status
 * it writes on a Cluster whose instances are up, for a Cluster without one) and the redis-operator (the
 * StatefulSet it creates for a Redis). Returns the stop.
 */
export function playControllers(client: KubeClient, namespace: string, intervalMs = 200): () => void {
  const timer = setInterval(() => {
    void (async () => {
      const cluster = await readCustom(client, CNPG_CLUSTER, namespace, DRIFT_POSTGRES);
      if (cluster && !(cluster as { status?: unknown }).status) {
        await playCnpgClusterReady(client, namespace, DRIFT_POSTGRES);
      }
      await playRedisOperator(client, namespace, DRIFT_REDIS);
    })().catch(() => undefined);
  }, intervalMs);
  return () => clearInterval(timer);
}

/** How long the disturbance took to be corrected (ms), polled every `intervalMs`; undefined past `timeoutMs`. */
export async function timeToCorrect(
  disturbed: Disturbed,
  options: { readonly timeoutMs: number; readonly intervalMs: number },
): Promise<number | undefined> {
  while (performance.now() - disturbed.at < options.timeoutMs) {
    if (await disturbed.corrected().catch(() => false)) return performance.now() - disturbed.at;
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs));
  }
  return undefined;
}
