import { refNamespace } from "../../api/refs.js";
import { CONNECTION_SECRET_KEYS } from "../../api/resource-status.js";
import { DELETION_POLICY_ANNOTATION } from "../../engine/garbage.js";
import { generateSecretStep, type KeyRule } from "../../engine/generated-secret.js";
import type { Desired } from "../../engine/kind-module.js";
import { type Credentials, type KubeObject, keyOf } from "../../engine/objects.js";
import { ownerReference } from "../../engine/ownership.js";
import type { DesiredStep } from "../../engine/steps.js";
import type { EngineView } from "../../engine/view.js";
import { adoptedCredentialsCopy } from "../datastore/adopted-credentials.js";
import { connectionUrl } from "../datastore/connection-url.js";
import { externalConnection } from "../datastore/external-connection.js";
import {
  CLICKHOUSE_CLUSTER,
  CLICKHOUSE_DEFAULT_USER,
  CLICKHOUSE_HTTP_PORT,
  CLICKHOUSE_NATIVE_PORT,
  clickhouseHeadlessService,
  clickhousePodLabels,
  KEEPER_CLUSTER,
  operatorReadiness,
  serviceHost,
} from "./clickhouse-operator-api.js";
import { type ClickHouseCluster, type ClickHouseClusterStatus, ClickHouseManaged } from "./schema.js";

type ClickHouseDesired = Desired<ClickHouseClusterStatus>;

/** The keys of every credentials Secret the product writes for a ClickHouse: the connection's. */
export const USERNAME_KEY = CONNECTION_SECRET_KEYS.username;
export const PASSWORD_KEY = CONNECTION_SECRET_KEYS.password;
/** The password of a managed cluster's `default` user: 24 random bytes, as base64url, generated once into its Secret. */
const PASSWORD: KeyRule = { length: 32, alphabet: "base64url" };

/** The name of a managed ClickHouseCluster's generated credentials Secret. */
export function credentialsName(resource: ClickHouseCluster): string {
  return `${resource.metadata.name}-credentials`;
}

function notReady(
  provenance: ClickHouseClusterStatus["provenance"],
  reason: string,
  message: string,
  stalled = false,
): ClickHouseDesired {
  return {
    steps: [],
    ...(provenance ? { status: { provenance } } : {}),
    verdict: { ok: false, reason, message, ...(stalled ? { stalled } : {}) },
  };
}

function wired(
  provenance: NonNullable<ClickHouseClusterStatus["provenance"]>,
  host: string,
  ports: { readonly http: number; readonly native: number },
  secret: { name: string; namespace: string },
): Pick<ClickHouseDesired, "status" | "readyMessage"> {
  return {
    status: {
      provenance,
      connection: {
        host,
        port: ports.http,
        credentialsSecret: secret,
        url: connectionUrl("http", host, ports.http),
      },
      nativePort: ports.native,
    },
    readyMessage: `ClickHouse reachable at ${host}:${ports.http} (HTTP) and ${host}:${ports.native} (native)`,
  };
}

/** `repository[:tag][@sha256:…]` as the operator's ContainerImage: a digest (`hash`) wins over a tag. */
export function containerImage(reference: string): { repository: string; tag?: string; hash?: string } {
  const [named = reference, digest] = reference.split("@");
  const slash = named.lastIndexOf("/");
  const colon = named.lastIndexOf(":");
  const repository = colon > slash ? named.slice(0, colon) : named;
  const tag = colon > slash ? named.slice(colon + 1) : undefined;
  if (digest) return { repository, hash: digest };
  return tag ? { repository, tag } : { repository };
}

/** A volume claim's spec, as the operator takes it (`dataVolumeClaimSpec`). */
function claimSpec(volume: { readonly size: string; readonly storageClass?: string | undefined }) {
  return {
    accessModes: ["ReadWriteOnce"],
    resources: { requests: { storage: volume.size } },
    ...(volume.storageClass ? { storageClassName: volume.storageClass } : {}),
  };
}

/** The KeeperCluster and the ClickHouseCluster a managed resource is, both named after it. */
function upstream(
  resource: ClickHouseCluster,
  managed: ClickHouseManaged,
): { keeper: KubeObject; cluster: KubeObject } {
  const { name, namespace } = resource.metadata;
  const annotations = { [DELETION_POLICY_ANNOTATION]: managed.deletionPolicy };
  const keeper: KubeObject = {
    apiVersion: KEEPER_CLUSTER.apiVersion,
    kind: KEEPER_CLUSTER.kind,
    metadata: { name, namespace },
    spec: {
      replicas: managed.keeper.replicas,
      containerTemplate: { image: containerImage(managed.keeper.image) },
      // Without a claim the operator keeps Keeper's log and snapshots in the container's filesystem.
      dataVolumeClaimSpec: claimSpec(managed.keeper.storage),
    },
  };
  const cluster: KubeObject = {
    apiVersion: CLICKHOUSE_CLUSTER.apiVersion,
    kind: CLICKHOUSE_CLUSTER.kind,
    metadata: { name, namespace, annotations },
    spec: {
      replicas: managed.replicas,
      shards: managed.shards,
      keeperClusterRef: { name },
      containerTemplate: { image: containerImage(managed.image) },
      dataVolumeClaimSpec: claimSpec(managed.storage),
      // By reference: the operator passes it to the server as an environment variable from this Secret.
      // Without it the `default` user has no password and every grant.
      settings: {
        defaultUserPassword: {
          passwordType: "password",
          secret: { name: credentialsName(resource), key: PASSWORD_KEY },
        },
      },
    },
  };
  return { keeper, cluster };
}

/**
 * The client Service the operator does not make: it makes only `<name>-clickhouse-headless`, which lists
 * every pod, ready or not (publishNotReadyAddresses). This one balances over the ready servers of every shard.
 */
function clientService(resource: ClickHouseCluster): KubeObject {
  const { name, namespace } = resource.metadata;
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name, namespace },
    spec: {
      type: "ClusterIP",
      selector: clickhousePodLabels(name),
      ports: [
        { name: "http", port: CLICKHOUSE_HTTP_PORT, targetPort: CLICKHOUSE_HTTP_PORT, protocol: "TCP" },
        { name: "tcp", port: CLICKHOUSE_NATIVE_PORT, targetPort: CLICKHOUSE_NATIVE_PORT, protocol: "TCP" },
      ],
    },
  };
}

function desiredManaged(resource: ClickHouseCluster, view: EngineView): ClickHouseDesired {
  const { name, namespace } = resource.metadata;
  // Omitted: the schema's defaults, as if written out.
  const managed = resource.spec.managed ?? ClickHouseManaged.parse({});
  const secret: KubeObject = {
    apiVersion: "v1",
    kind: "Secret",
    type: "Opaque",
    metadata: {
      name: credentialsName(resource),
      namespace,
      // Under Retain no owner reference, as on the ClickHouseCluster: the password of kept data stays with it.
      ...(managed.deletionPolicy === "Delete" ? { ownerReferences: [ownerReference(resource)] } : {}),
    },
  };
  const { keeper, cluster } = upstream(resource, managed);
  const service = clientService(resource);
  const servers = managed.shards * managed.replicas;
  // The ClickHouseCluster last: what is kept with it under Retain is released before it, so that a pass
  // that stops midway still finds it and keeps the rest at the next pass.
  const steps: DesiredStep[] = [
    generateSecretStep(
      secret,
      { [USERNAME_KEY]: { fixed: CLICKHOUSE_DEFAULT_USER }, [PASSWORD_KEY]: PASSWORD },
      {
        description: `create Secret ${namespace}/${secret.metadata.name} with a generated password (kept if it exists)`,
        rotation: `the ClickHouse servers read it from that Secret when they start (spec.settings.defaultUserPassword of ClickHouseCluster ${namespace}/${name}): until they restart they accept the old one, every consumer must pick up the new one from the Secret`,
      },
    ),
    {
      kind: "apply",
      object: keeper,
      description: `apply KeeperCluster ${namespace}/${name} (${managed.keeper.replicas} pod(s), ${managed.keeper.storage.size} each)`,
    },
    {
      kind: "apply",
      object: service,
      description: `apply Service ${namespace}/${name} (ClusterIP, ports ${CLICKHOUSE_HTTP_PORT} and ${CLICKHOUSE_NATIVE_PORT}, to the ${servers} server(s))`,
    },
    {
      kind: "apply",
      object: cluster,
      description: `apply ClickHouseCluster ${namespace}/${name} (${managed.shards} shard(s) × ${managed.replicas} replica(s), ${managed.storage.size} each)`,
    },
  ];
  const judged = [keeper, cluster].map((object) => ({
    what: `${object.kind} ${namespace}/${name}`,
    ...operatorReadiness(view.objects.get(keyOf(object))),
  }));
  const waiting = judged.find((r) => !r.ready);
  return {
    steps,
    ...wired(
      "owned",
      serviceHost(name, namespace),
      { http: CLICKHOUSE_HTTP_PORT, native: CLICKHOUSE_NATIVE_PORT },
      {
        name: secret.metadata.name,
        namespace,
      },
    ),
    verdict: waiting
      ? { ok: false, reason: "Provisioning", message: `waiting for ${waiting.what}: ${waiting.reason}` }
      : { ok: true, reason: "ClickHouseReady", message: judged.map((r) => `${r.what}: ${r.reason}`).join("; ") },
  };
}

function desiredAdopted(resource: ClickHouseCluster, view: EngineView): ClickHouseDesired {
  const { namespace } = resource.metadata;
  const adopt = resource.spec.adopt;
  if (!adopt) throw new Error("unreachable: mode adopt without spec.adopt passed validation");
  const targetNamespace = refNamespace(adopt.clusterRef, namespace);
  const target = `ClickHouseCluster ${targetNamespace}/${adopt.clusterRef.name}`;
  const secretRef = `${refNamespace(adopt.credentialsSecretRef, namespace)}/${adopt.credentialsSecretRef.name}`;
  const found = view.reads?.adoptTarget as KubeObject | undefined;
  if (!found) {
    return notReady(
      "adopted",
      "AdoptTargetMissing",
      `${target} (spec.adopt.clusterRef) does not exist: create it or correct the reference`,
    );
  }
  const key = adopt.credentialsSecretRef.key ?? PASSWORD_KEY;
  const password = (view.reads?.adoptCredentials as Credentials | undefined)?.[key];
  if (!password) {
    return notReady(
      "adopted",
      "CredentialsMissing",
      `Secret ${secretRef} (spec.adopt.credentialsSecretRef) is missing or lacks key ${key}: point the reference at the Secret that holds the password of user ${adopt.username}`,
    );
  }
  const copy = adoptedCredentialsCopy(resource, {
    from: secretRef,
    what: "password",
    stringData: { [USERNAME_KEY]: adopt.username, [PASSWORD_KEY]: password },
  });
  // The operator makes no client Service and the product never touches an adopted cluster's namespace:
  // consumers go through its headless Service, whose DNS name lists the servers.
  const host = serviceHost(clickhouseHeadlessService(adopt.clusterRef.name), targetNamespace);
  const readiness = operatorReadiness(found);
  return {
    steps: [copy.step],
    ...wired("adopted", host, { http: CLICKHOUSE_HTTP_PORT, native: CLICKHOUSE_NATIVE_PORT }, copy.secret),
    verdict: readiness.ready
      ? { ok: true, reason: "AdoptedClickHouseReady", message: `adopted ${target} is wired: ${readiness.reason}` }
      : {
          ok: false,
          reason: "AdoptedClickHouseNotReady",
          message: `waiting for the adopted ${target}: ${readiness.reason}`,
        },
  };
}

function desiredExternal(resource: ClickHouseCluster, view: EngineView): ClickHouseDesired {
  const ref = resource.spec.external?.connectionSecretRef;
  if (!ref) throw new Error("unreachable: mode external without spec.external passed validation");
  const credentials = view.reads?.externalCredentials as Credentials | undefined;
  const connection = externalConnection(ref, resource.metadata.namespace, credentials, {
    keys: [USERNAME_KEY, PASSWORD_KEY],
    port: CLICKHOUSE_HTTP_PORT,
  });
  if (!("host" in connection)) return { steps: [], status: { provenance: "external" }, verdict: connection.verdict };
  const native = Number.parseInt(credentials?.nativePort ?? String(CLICKHOUSE_NATIVE_PORT), 10);
  if (!Number.isInteger(native) || native < 1 || native > 65535) {
    return notReady(
      "external",
      "ConnectionSecretInvalid",
      `Secret ${resource.metadata.namespace}/${ref.name} holds nativePort "${credentials?.nativePort}", which is no port: write a number from 1 to 65535, or remove the key (default ${CLICKHOUSE_NATIVE_PORT})`,
      true,
    );
  }
  return {
    steps: [],
    ...wired("external", connection.host, { http: connection.port, native }, connection.secret),
    readyMessage: connection.readyMessage,
    verdict: connection.verdict,
  };
}

/** What a ClickHouseCluster wants in the cluster now, by mode. Pure. */
export function desiredClickHouseCluster(resource: ClickHouseCluster, view: EngineView): ClickHouseDesired {
  if (resource.spec.mode === "managed") return desiredManaged(resource, view);
  if (resource.spec.mode === "adopt") return desiredAdopted(resource, view);
  return desiredExternal(resource, view);
}
