import { createHash } from "node:crypto";
import type { Condition } from "../../api/conditions.js";
import type { EmittedKind } from "../../engine/kind-module.js";

// The ClickHouse Inc. operator's API (github.com/ClickHouse/clickhouse-operator) as the product uses it.
// Every fact was read at commit 24da2d81a832c524ff7898dc8d04baa1ff63f49a, the source of release v0.0.7 (chart
// clickhouse-operator-helm 0.0.7): api/v1alpha1/*.go, internal/controller/**/*.go and
// dist/chart/templates/crd/*.yaml. docs/clickhouse.md says where each one comes from.

export const CLICKHOUSE_GROUP = "clickhouse.com";
/** The only version the CRDs serve, and their storage version. */
export const CLICKHOUSE_VERSION = "v1alpha1";
export const CLICKHOUSE_API_VERSION = `${CLICKHOUSE_GROUP}/${CLICKHOUSE_VERSION}`;

/** A ClickHouse server cluster: `spec.shards` × `spec.replicas` pods, coordinated by a KeeperCluster. */
export const CLICKHOUSE_CLUSTER = {
  apiVersion: CLICKHOUSE_API_VERSION,
  kind: "ClickHouseCluster",
  plural: "clickhouseclusters",
} as const satisfies EmittedKind;

/** A ClickHouse Keeper ensemble; `spec.keeperClusterRef` of a ClickHouseCluster names one of its namespace. */
export const KEEPER_CLUSTER = {
  apiVersion: CLICKHOUSE_API_VERSION,
  kind: "KeeperCluster",
  plural: "keeperclusters",
} as const satisfies EmittedKind;

/** The HTTP interface's port (`PortHTTP`), served unless TLS is required. */
export const CLICKHOUSE_HTTP_PORT = 8123;
/** The native protocol's port (`PortNative`), served unless TLS is required. */
export const CLICKHOUSE_NATIVE_PORT = 9000;

/** The user every ClickHouseCluster has, whose password `spec.settings.defaultUserPassword` selects. */
export const CLICKHOUSE_DEFAULT_USER = "default";

/**
 * The Keeper ensemble sizes the CRD accepts (`spec.replicas` enum 0, 1, 3, …, 15): an odd number, for a
 * quorum; 0 stops it.
 */
export const KEEPER_REPLICA_COUNTS = [1, 3, 5, 7, 9, 11, 13, 15] as const;

/**
 * The images the product runs by default: the operator's own defaults are `:latest` (api/v1alpha1/defaults.go);
 * 25.8 is the LTS release among those the operator's CI tests v0.0.7 against (.github/workflows/ci.yaml,
 * job supported-clickhouse-compatibility: 26.5, 26.4, 26.3, 25.8).
 */
export const DEFAULT_CLICKHOUSE_IMAGE = "docker.io/clickhouse/clickhouse-server:25.8";
export const DEFAULT_KEEPER_IMAGE = "docker.io/clickhouse/clickhouse-keeper:25.8";

/** The longest name `resourceName` derives, and the hex digits of the hash that stand for what it cuts. */
const MAX_RESOURCE_NAME = 63;
const NAME_HASH_LENGTH = 4;

/**
 * `resourceName` (api/v1alpha1/common.go): `<base>-<suffix>`; when that passes 63 characters, the base cut
 * and followed by the first 4 hex digits of its sha256, `<cut base>-<hash>-<suffix>`; dots replaced by
 * dashes last. Never cut for a managed cluster's names (MAX_CLICKHOUSE_CLUSTER_NAME), but an adopted
 * cluster's name may be long.
 */
function resourceName(base: string, suffix: string): string {
  let full = base;
  if (suffix && base.length + suffix.length + 1 <= MAX_RESOURCE_NAME) full = `${base}-${suffix}`;
  else if (suffix) {
    const hash = createHash("sha256").update(base).digest("hex").slice(0, NAME_HASH_LENGTH);
    full = `${base.slice(0, MAX_RESOURCE_NAME - suffix.length - NAME_HASH_LENGTH - 2)}-${hash}-${suffix}`;
  }
  return full.replaceAll(".", "-");
}

/**
 * `SpecificName()` of a ClickHouseCluster, `<name>-clickhouse` as it is (dots kept): its pods' `app` label,
 * and the base `resourceName` derives the names of what is made for it from.
 */
export function clickhouseSpecificName(name: string): string {
  return `${name}-clickhouse`;
}

/** The only Service the operator makes for a ClickHouseCluster: headless, `publishNotReadyAddresses: true`. */
export function clickhouseHeadlessService(name: string): string {
  return resourceName(clickhouseSpecificName(name), "headless");
}

/** The StatefulSet of one replica of one shard (one pod, `<sts>-0`). */
export function clickhouseStatefulSet(name: string, shard: number, replica: number): string {
  return resourceName(clickhouseSpecificName(name), `${shard}-${replica}`);
}

/** The labels the operator puts on every ClickHouse server pod of a cluster (`app`, `clickhouse.com/role`). */
export function clickhousePodLabels(name: string): Record<string, string> {
  return { app: clickhouseSpecificName(name), "clickhouse.com/role": "clickhouse-server" };
}

/** A host in the cluster's DNS, as the product writes every in-cluster host (`<service>.<namespace>.svc`). */
export function serviceHost(service: string, namespace: string): string {
  return `${service}.${namespace}.svc`;
}

/** What the operator writes in a ClickHouseCluster's or KeeperCluster's status (the fields the product reads). */
export interface ClickHouseOperatorStatus {
  /** metav1.Condition, each with `observedGeneration` = the generation the operator acted on. */
  readonly conditions?: readonly Condition[];
  readonly readyReplicas?: number;
  readonly observedGeneration?: number;
}

/** Whether an upstream object serves, and in words why not. */
export interface ClickHouseReadiness {
  readonly ready: boolean;
  readonly reason: string;
}

/**
 * An object of the operator serves when its `Ready` condition is True for its latest generation: the
 * operator writes every condition with `observedGeneration` (internal/controller/statusmanager.go
 * SetConditions), so a Ready written for an earlier spec is not taken for the current one. ClickHouseCluster:
 * True with reason `AllShardsReady` ("All shards are ready"), else False `SomeShardsNotReady`, or Unknown
 * `PingImpossible` when the operator cannot reach its servers; KeeperCluster: True with `StandaloneReady` or
 * `ClusterReady`, else False with `NoLeader`, `InconsistentState` or `NotEnoughFollowers`
 * (api/v1alpha1/conditions.go).
 */
export function operatorReadiness(
  object: { readonly metadata: object; readonly status?: unknown } | undefined,
): ClickHouseReadiness {
  if (!object) return { ready: false, reason: "it does not exist yet" };
  const status = object.status as ClickHouseOperatorStatus | undefined;
  const ready = status?.conditions?.find((c) => c.type === "Ready");
  if (!ready) return { ready: false, reason: "the operator has written no Ready condition yet" };
  const { generation } = object.metadata as { readonly generation?: number };
  if (generation !== undefined && ready.observedGeneration !== undefined && ready.observedGeneration < generation)
    return { ready: false, reason: "the operator has not acted on its latest spec yet" };
  const said = `${ready.reason}${ready.message ? `: ${ready.message}` : ""}`;
  return ready.status === "True"
    ? { ready: true, reason: `Ready (${said})` }
    : { ready: false, reason: `Ready ${ready.status} (${said})` };
}
