import * as z from "zod";
import { API_GROUP } from "../../lib/api/group.js";
import { type KubeClient, orUndefined } from "../../lib/cluster/kube-client.js";
import { type Dependency, wiringOf } from "../../lib/engine/dependencies.js";
import type { EngineResource, KindModule } from "../../lib/engine/kind-module.js";
import type { EngineView } from "../../lib/engine/view.js";
import {
  LAST_SUCCESSFUL_CONFIGURATION,
  MONGODB_COMMUNITY,
  MONGODB_COMMUNITY_GROUP,
  MONGODB_COMMUNITY_VERSION,
} from "../../lib/kinds/mongo-cluster/mongodb-community-api.js";

const COMMUNITY = {
  group: MONGODB_COMMUNITY_GROUP,
  version: MONGODB_COMMUNITY_VERSION,
  plural: MONGODB_COMMUNITY.plural,
};

/** A MongoDBCommunity as stored, or undefined. */
export async function readCommunity(
  client: KubeClient,
  namespace: string,
  name: string,
): Promise<
  | {
      metadata: { labels?: Record<string, string>; annotations?: Record<string, string>; uid: string };
      spec: Record<string, unknown> & { members?: number; users?: { name: string; db: string }[] };
      status?: Record<string, unknown>;
    }
  | undefined
> {
  return (await orUndefined(client.custom.getNamespacedCustomObject({ ...COMMUNITY, namespace, name }))) as never;
}

/**
 * No MongoDB operator pod runs on the local plane (its Deployment is installed from the fixture chart and
 * kwok reports it available): the test plays its controller, writing what it writes once a replica set is
 * up (replica_set_controller.go at MCK 1.9.1): the status — phase Running, the members, the seed-list URI
 * — and the annotation of the spec it applied. With `phase` Pending, as it writes while the pods start.
 */
export async function playMongoDBOperator(
  client: KubeClient,
  namespace: string,
  name: string,
  phase: "Running" | "Pending" = "Running",
): Promise<void> {
  const community = await readCommunity(client, namespace, name);
  if (!community) return;
  const members = community.spec.members ?? 0;
  const hosts = Array.from(
    { length: members },
    (_, i) => `${name}-${i}.${name}-svc.${namespace}.svc.cluster.local:27017`,
  );
  await client.custom.patchNamespacedCustomObjectStatus({
    ...COMMUNITY,
    namespace,
    name,
    body: [
      {
        op: "add",
        path: "/status",
        value: {
          phase,
          mongoUri: `mongodb://${hosts.join(",")}/?replicaSet=${name}`,
          currentMongoDBMembers: phase === "Running" ? members : 0,
          currentStatefulSetReplicas: phase === "Running" ? members : 0,
          version: String(community.spec.version ?? ""),
        },
      },
    ],
  });
  if (phase !== "Running") return;
  await client.custom.patchNamespacedCustomObject({
    ...COMMUNITY,
    namespace,
    name,
    body: [
      {
        op: "add",
        path: "/metadata/annotations",
        value: { ...community.metadata.annotations, [LAST_SUCCESSFUL_CONFIGURATION]: JSON.stringify(community.spec) },
      },
    ],
  });
}

/** A MongoDBCommunity a user made, as kubectl would, for the adopt scenarios. */
export async function createCommunity(
  client: KubeClient,
  namespace: string,
  name: string,
  spec: Record<string, unknown> = {},
): Promise<void> {
  await client.custom.createNamespacedCustomObject({
    ...COMMUNITY,
    namespace,
    body: {
      apiVersion: MONGODB_COMMUNITY.apiVersion,
      kind: MONGODB_COMMUNITY.kind,
      metadata: { name },
      spec: {
        type: "ReplicaSet",
        members: 1,
        version: "8.3.4",
        security: { authentication: { modes: ["SCRAM"] } },
        users: [
          {
            name: "app",
            db: "admin",
            passwordSecretRef: { name: `${name}-app-password` },
            roles: [{ name: "readWriteAnyDatabase", db: "admin" }],
            scramCredentialsSecretName: `${name}-app`,
          },
        ],
        ...spec,
      },
    },
  });
}

/**
 * A consumer kind written for the tests of MongoCluster claims (no kind of the product claims on one yet:
 * LibreChat's ChatUI will): `spec.mongoRef` names a MongoCluster whose connection it needs, auto-wired
 * through a claim under a licence with `auto-wiring`, otherwise through `spec.mongoUriSecretRef`. Its
 * desired state is a ConfigMap `<name>-mongo` saying what it was given — the database, the user and the
 * host, never the password —, or nothing while its claim is not made. Named ChatUI, a kind the licence
 * caps that this release does not serve: it is planned and observed, never stored; the engine reads the
 * claimants through the context's `resources` (their watch cache, in the operator).
 */
interface ConsumerSpec {
  readonly mongoRef: { readonly name: string; readonly namespace?: string };
  readonly mongoUriSecretRef?: { readonly name: string; readonly key: string };
}
const specOf = (resource: EngineResource) => resource.spec as ConsumerSpec;

function mongoDependency(resource: EngineResource): Dependency {
  const { mongoRef, mongoUriSecretRef } = specOf(resource);
  return {
    field: "spec.mongoRef",
    group: API_GROUP,
    kind: "MongoCluster",
    name: mongoRef.name,
    namespace: mongoRef.namespace ?? resource.metadata.namespace,
    needs: "connection",
    manual: { field: "spec.mongoUriSecretRef", provided: mongoUriSecretRef !== undefined },
    claim: true,
  };
}

export const MONGO_CONSUMER = {
  definition: { kind: "ChatUI", plural: "chatuis" },
  schema: z.any(),
  name: z.string(),
  licence: {},
  phase: "WiringReady",
  needs: () => [],
  emits: [{ apiVersion: "v1", kind: "ConfigMap", plural: "configmaps" }],
  observes: () => [],
  references: () => [],
  referencesKinds: ["MongoCluster"],
  dependsOn: (resource: EngineResource): Dependency[] => [mongoDependency(resource)],
  desired: (resource: EngineResource, view: EngineView) => {
    const dependency = mongoDependency(resource);
    if (wiringOf(dependency, view.licence.entitlements).mode === "manual")
      return { steps: [], verdict: { ok: false, reason: "Manual", message: "wired by hand" } };
    const claimed = view.claimed?.[dependency.field];
    const target = view.dependencies?.[dependency.field] as { status?: { connection?: { host: string } } };
    if (!claimed?.claim.database || !claimed.credentials?.password)
      return { steps: [], verdict: { ok: false, reason: "ClaimPending", message: "waiting for its claim" } };
    return {
      steps: [
        {
          kind: "apply" as const,
          object: {
            apiVersion: "v1",
            kind: "ConfigMap",
            metadata: { name: `${resource.metadata.name}-mongo`, namespace: resource.metadata.namespace },
            data: {
              database: claimed.claim.database,
              user: claimed.credentials.username ?? "",
              host: target?.status?.connection?.host ?? "",
            },
          },
          description: "apply ConfigMap",
        },
      ],
      verdict: { ok: true, reason: "Wired", message: "wired" },
    };
  },
  outputs: { names: {}, project: () => ({}) },
} as unknown as KindModule;
