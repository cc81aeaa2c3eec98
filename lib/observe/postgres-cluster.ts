import type { V1Secret } from "@kubernetes/client-node";
import { POSTGRES_CLUSTER_PLURAL, PostgresCluster } from "../api/postgres-cluster.js";
import { refNamespace } from "../api/refs.js";
import type { CapabilityInstaller } from "../apply/capability-installer.js";
import { type KubeClient, orUndefined } from "../cluster/kube-client.js";
import { CNPG_API_VERSION, CNPG_CLUSTERS, CNPG_GROUP, CNPG_VERSION } from "../plan/cnpg.js";
import {
  CNPG_CAPABILITY,
  type Credentials,
  instanceOf,
  type KubeObject,
  neededCapabilities,
  objectKey,
  type PostgresObservation,
  postgresReferences,
  postgresReferrer,
  resourceKey,
} from "../plan/postgres-cluster.js";
import { grantNamespaces, type ObservedGrant, ungrantedReferences } from "../plan/reference-grants.js";
import { capInstances, observeEntitlements } from "./license.js";
import { observeReferenceGrants } from "./reference-grants.js";
import { listStored, readStored } from "./stored.js";

function decode(secret: V1Secret | undefined): Credentials | undefined {
  if (!secret) return undefined;
  const read = (key: string) => {
    const value = secret.data?.[key];
    return value === undefined ? undefined : Buffer.from(value, "base64").toString("utf8");
  };
  const credentials: Record<string, string> = {};
  for (const key of ["username", "password", "host", "port"]) {
    const value = read(key);
    if (value !== undefined) credentials[key] = value;
  }
  return credentials;
}

/** Every PostgresCluster in the cluster, parsed: reference counts and caps come from here, never from memory. */
export function observePostgresClusters(client: KubeClient): Promise<PostgresCluster[]> {
  return listStored(client, POSTGRES_CLUSTER_PLURAL, PostgresCluster);
}

/** One PostgresCluster as stored, parsed by the schema (which throws on an invalid one); undefined when absent. */
export function readPostgresCluster(
  client: KubeClient,
  namespace: string,
  name: string,
): Promise<PostgresCluster | undefined> {
  return readStored(client, POSTGRES_CLUSTER_PLURAL, PostgresCluster, namespace, name);
}

/**
 * The objects whose current state the plan compares against: what was emitted, plus the managed Cluster.
 * The product never emits a Secret outside the resource's namespace, so none is read there whatever the
 * status claims: another namespace's Secret is read only through a granted reference.
 */
function keysToRead(
  resource: PostgresCluster,
): { apiVersion: string; kind: string; name: string; namespace: string }[] {
  const keys = (resource.status?.emitted ?? []).filter(
    (e) => e.kind !== "Secret" || e.namespace === resource.metadata.namespace,
  );
  if (resource.spec.mode === "managed") {
    keys.push({
      apiVersion: CNPG_API_VERSION,
      kind: "Cluster",
      name: resource.metadata.name,
      namespace: resource.metadata.namespace,
    });
  }
  return keys;
}

/** Reads what planning one PostgresCluster needs, with a bounded number of requests. */
export async function observePostgresCluster(
  client: KubeClient,
  installer: CapabilityInstaller,
  resource: PostgresCluster,
  options: {
    readonly withPrerequisites: (name: string) => string[];
    readonly now: Date;
    readonly trustedKeys?: ReadonlyMap<string, string>;
    /**
     * Grants about to be applied together with the resource (`navique plan -f` of a file that declares
     * them), counted as if they were in the cluster already. The operator never passes any.
     */
    readonly pendingGrants?: readonly ObservedGrant[];
  },
): Promise<PostgresObservation> {
  const { withPrerequisites } = options;
  const needed = neededCapabilities(resource, withPrerequisites);
  const [capabilities, all, entitlements] = await Promise.all([
    needed.length > 0 ? installer.preview(CNPG_CAPABILITY) : Promise.resolve([]),
    observePostgresClusters(client),
    observeEntitlements(client, options),
  ]);
  const consumers = all.map((other) => ({
    key: resourceKey(other),
    needs: neededCapabilities(other, withPrerequisites),
  }));
  const instances = capInstances(all, resource, instanceOf, options.now);
  const objects = new Map<string, KubeObject>();
  await Promise.all(
    keysToRead(resource).map(async (key) => {
      const current = await client.read({
        apiVersion: key.apiVersion,
        kind: key.kind,
        metadata: { name: key.name, namespace: key.namespace },
      });
      if (current) objects.set(objectKey(key), current as unknown as KubeObject);
    }),
  ).catch((error: unknown) => {
    // Before the operator's CRDs exist, its kinds cannot even be discovered: nothing of them exists.
    if (!(error instanceof Error && /Unrecognized API version and kind/.test(error.message))) throw error;
  });

  const { namespace } = resource.metadata;
  const observation: {
    -readonly [K in keyof PostgresObservation]: PostgresObservation[K];
  } = { capabilities, consumers, objects, licence: { entitlements, instances } };
  // Grants first: a reference into another namespace is followed only once a grant there allows it, so
  // that nothing of that namespace (not even whether the object exists) is read for a resource it did not trust.
  const referrer = postgresReferrer(namespace);
  const references = postgresReferences(namespace, resource.spec);
  const foreign = grantNamespaces(referrer, references);
  const pending = (options.pendingGrants ?? []).filter((g) => foreign.includes(g.namespace));
  const grants = foreign.length > 0 ? [...(await observeReferenceGrants(client, foreign)), ...pending] : [];
  if (foreign.length > 0) observation.referenceGrants = grants;
  // All or nothing: the planner refuses the resource if any reference is not granted, so none is followed.
  const permitted = ungrantedReferences(referrer, references, grants).length === 0;
  const adopt = resource.spec.mode === "adopt" && permitted ? resource.spec.adopt : undefined;
  if (adopt) {
    const target = await orUndefined(
      client.custom.getNamespacedCustomObject({
        group: CNPG_GROUP,
        version: CNPG_VERSION,
        plural: CNPG_CLUSTERS,
        namespace: refNamespace(adopt.clusterRef, namespace),
        name: adopt.clusterRef.name,
      }),
    );
    if (target) observation.adoptTarget = target as KubeObject;
    const secret = await orUndefined(
      client.core.readNamespacedSecret({
        name: adopt.credentialsSecretRef.name,
        namespace: refNamespace(adopt.credentialsSecretRef, namespace),
      }),
    );
    const credentials = decode(secret);
    if (credentials) observation.adoptCredentials = credentials;
  }
  const external = resource.spec.mode === "external" ? resource.spec.external : undefined;
  if (external && refNamespace(external.connectionSecretRef, namespace) === namespace) {
    const credentials = decode(
      await orUndefined(client.core.readNamespacedSecret({ name: external.connectionSecretRef.name, namespace })),
    );
    if (credentials) observation.externalCredentials = credentials;
  }
  return observation;
}
