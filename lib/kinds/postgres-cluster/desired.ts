import { refNamespace } from "../../api/refs.js";
import { DELETION_POLICY_ANNOTATION } from "../../engine/garbage.js";
import { generateSecretStep } from "../../engine/generated-secret.js";
import type { Desired } from "../../engine/kind-module.js";
import { notImplemented } from "../../engine/not-implemented.js";
import { type Credentials, type KubeObject, keyOf } from "../../engine/objects.js";
import { ownerReference } from "../../engine/ownership.js";
import type { DesiredStep } from "../../engine/steps.js";
import type { EngineView } from "../../engine/view.js";
import { adoptedCredentialsCopy } from "../datastore/adopted-credentials.js";
import { connectionUrl } from "../datastore/connection-url.js";
import { externalConnection } from "../datastore/external-connection.js";
import type { DeletionPolicy } from "../datastore/mode.js";
import { claimsMade, ROLE_PASSWORD } from "./claims.js";
import {
  CNPG_API_VERSION,
  CNPG_APP_OWNER,
  CNPG_RELOAD_LABEL,
  type CnpgClusterStatus,
  cnpgClusterReady,
  databaseObjectName,
  POSTGRES_PORT,
  readWriteHost,
} from "./cnpg.js";
import { POSTGRES_TYPES, type PostgresCluster, type PostgresClusterStatus } from "./schema.js";

type PostgresDesired = Desired<PostgresClusterStatus>;

/** A datastore that cannot be wired yet: nothing to apply, and the reason said. */
function notReady(provenance: PostgresClusterStatus["provenance"], reason: string, message: string): PostgresDesired {
  return { steps: [], ...(provenance ? { status: { provenance } } : {}), verdict: { ok: false, reason, message } };
}

/**
 * Where consumers connect: `status.connection`, the shape every datastore publishes, and the deprecated
 * top-level fields of the first releases beside it, as long as readers of them remain.
 */
function connection(
  host: string,
  port: number,
  secret: { name: string; namespace: string },
  provenance: NonNullable<PostgresClusterStatus["provenance"]>,
): Partial<PostgresClusterStatus> {
  return {
    provenance,
    connection: { host, port, credentialsSecret: secret, url: connectionUrl("postgresql", host, port) },
    host,
    port,
    credentialsSecret: secret,
  };
}

function readyMessage(host: string, port: number): string {
  return `PostgreSQL reachable at ${host}:${port}`;
}

function cnpgDatabase(cluster: string, namespace: string, name: string, owner: string): KubeObject {
  return {
    apiVersion: CNPG_API_VERSION,
    kind: "Database",
    metadata: { name: databaseObjectName(cluster, name), namespace },
    spec: { name, owner, cluster: { name: cluster } },
  };
}

function desiredManaged(resource: PostgresCluster, view: EngineView): PostgresDesired {
  const { name, namespace } = resource.metadata;
  const managed = resource.spec.managed ?? {
    instances: 1,
    storage: { size: "10Gi" },
    deletionPolicy: "Retain" as DeletionPolicy,
  };
  const credentialsName = `${name}-credentials`;
  const owners = [...new Set(resource.spec.databases.map((d) => d.owner ?? CNPG_APP_OWNER))]
    .filter((o) => o !== CNPG_APP_OWNER)
    .sort();
  const secretMetadata = {
    // CNPG's own label: a re-created Secret (a new password) is applied to its role at once.
    labels: { [CNPG_RELOAD_LABEL]: "true" },
    // Under Retain no owner reference, as on the Cluster: the garbage collector would delete the password
    // of data that is kept — at once under a foreground deletion, before the finalizer could release it.
    ...(managed.deletionPolicy === "Delete" ? { ownerReferences: [ownerReference(resource)] } : {}),
  };
  const credentials: KubeObject = {
    apiVersion: "v1",
    kind: "Secret",
    type: "kubernetes.io/basic-auth",
    metadata: { name: credentialsName, namespace, ...secretMetadata },
  };
  // The roles of spec.databases' owners: listed in the Cluster, which the product owns.
  const roles = owners.map((owner) => ({ role: owner, secret: `${name}-${owner.replace(/_/g, "-")}-credentials` }));
  // Each claim of a consumer (lib/engine/claims.ts): a role and a database of its own, as CNPG objects beside
  // the Cluster that follow its deletion policy once the claim goes (./claims.ts).
  const claims = claimsMade(
    {
      name,
      namespace,
      cluster: name,
      clusterNamespace: namespace,
      deletionPolicy: managed.deletionPolicy,
      secretMetadata,
    },
    view.claims ?? [],
    view.objects,
  );
  const roleSecrets = roles.map<KubeObject>(({ secret }) => ({
    ...credentials,
    metadata: { ...credentials.metadata, name: secret },
  }));
  const cluster: KubeObject = {
    apiVersion: CNPG_API_VERSION,
    kind: "Cluster",
    metadata: { name, namespace, annotations: { [DELETION_POLICY_ANNOTATION]: managed.deletionPolicy } },
    spec: {
      instances: managed.instances,
      storage: {
        size: managed.storage.size,
        ...(managed.storage.storageClass ? { storageClass: managed.storage.storageClass } : {}),
      },
      bootstrap: { initdb: { database: CNPG_APP_OWNER, owner: CNPG_APP_OWNER, secret: { name: credentialsName } } },
      ...(roles.length > 0
        ? {
            managed: {
              roles: roles.map(({ role, secret }) => ({
                name: role,
                ensure: "present",
                login: true,
                passwordSecret: { name: secret },
              })),
            },
          }
        : {}),
    },
  };
  const databases = resource.spec.databases.map((d) =>
    cnpgDatabase(name, namespace, d.name, d.owner ?? CNPG_APP_OWNER),
  );
  const passwordSecrets = [
    { secret: credentials, role: CNPG_APP_OWNER, field: "spec.bootstrap.initdb.secret" },
    ...roleSecrets.map((secret, i) => ({
      secret,
      role: roles[i]?.role ?? "",
      field: "spec.managed.roles[].passwordSecret",
    })),
  ];
  const steps: DesiredStep[] = [
    ...passwordSecrets.map(({ secret, role, field }) =>
      generateSecretStep(
        secret,
        { username: { fixed: role }, password: ROLE_PASSWORD },
        {
          description: `create Secret ${namespace}/${secret.metadata.name} with a generated password for role ${role} (kept if it exists)`,
          rotation: `CNPG sets it in the database for role ${role} from that Secret (${field} of CNPG Cluster ${namespace}/${name}): the old password stops working, every consumer must pick up the new one from the Secret`,
        },
      ),
    ),
    {
      kind: "apply",
      object: cluster,
      description: `apply CNPG Cluster ${namespace}/${name} (${managed.instances} instance(s), ${managed.storage.size})`,
    },
    ...databases.map<DesiredStep>((d) => ({
      kind: "apply",
      object: d,
      description: `apply CNPG Database ${namespace}/${d.metadata.name}`,
    })),
    ...claims.steps,
  ];
  const current = view.objects.get(keyOf(cluster));
  const ready = cnpgClusterReady(current?.status as CnpgClusterStatus | undefined);
  const phase = (current?.status as CnpgClusterStatus | undefined)?.phase;
  const host = readWriteHost(name, namespace);
  return {
    steps,
    status: {
      ...connection(host, POSTGRES_PORT, { name: credentialsName, namespace }, "owned"),
      claims: [...claims.published],
    },
    readyMessage: readyMessage(host, POSTGRES_PORT),
    verdict: ready
      ? { ok: true, reason: "ClusterReady", message: `CNPG Cluster ${namespace}/${name} is Ready` }
      : {
          ok: false,
          reason: "Provisioning",
          message: `waiting for CNPG Cluster ${namespace}/${name} to be Ready${phase ? ` (phase: ${phase})` : ""}`,
        },
  };
}

function desiredAdopted(resource: PostgresCluster, view: EngineView): PostgresDesired {
  const { namespace } = resource.metadata;
  const adopt = resource.spec.adopt;
  if (!adopt) throw new Error("unreachable: mode adopt without spec.adopt passed validation");
  const targetNamespace = refNamespace(adopt.clusterRef, namespace);
  const target = `${targetNamespace}/${adopt.clusterRef.name}`;
  const secretRef = `${refNamespace(adopt.credentialsSecretRef, namespace)}/${adopt.credentialsSecretRef.name}`;
  // Its consumers' claims, when opted in: made beside the adopted Cluster, never in it (./claims.ts). Made
  // whatever this pass finds of the Cluster or the credentials: a claim withdrawn for a moment's miss would
  // have its role and database dropped under the reclaim policy delete.
  const claims = adopt.claims
    ? claimsMade(
        {
          name: resource.metadata.name,
          namespace,
          cluster: adopt.clusterRef.name,
          clusterNamespace: targetNamespace,
          deletionPolicy: adopt.claims.deletionPolicy,
          secretMetadata: { labels: { [CNPG_RELOAD_LABEL]: "true" } },
        },
        view.claims ?? [],
        view.objects,
      )
    : undefined;
  const claimed = claims ? { claims: [...claims.published] } : {};
  const missing = (reason: string, message: string): PostgresDesired => ({
    ...notReady("adopted", reason, message),
    steps: claims?.steps ?? [],
    status: { provenance: "adopted", ...claimed },
  });
  const adoptTarget = view.reads?.adoptTarget as KubeObject | undefined;
  if (!adoptTarget) {
    return missing(
      "AdoptTargetMissing",
      `CNPG Cluster ${target} (spec.adopt.clusterRef) does not exist: create it or correct the reference`,
    );
  }
  const credentials = view.reads?.adoptCredentials as Credentials | undefined;
  if (!credentials?.username || !credentials.password) {
    return missing(
      "CredentialsMissing",
      `Secret ${secretRef} (spec.adopt.credentialsSecretRef) is missing or lacks keys username and password: point the reference at the Secret that holds them`,
    );
  }
  const copy = adoptedCredentialsCopy(resource, {
    from: secretRef,
    what: "credentials",
    stringData: { username: credentials.username, password: credentials.password },
    type: "kubernetes.io/basic-auth",
  });
  // CNPG resolves Database.spec.cluster in the Database's own namespace: they live beside the adopted cluster.
  const databases = resource.spec.databases.map((d) =>
    cnpgDatabase(adopt.clusterRef.name, targetNamespace, d.name, d.owner ?? credentials.username ?? CNPG_APP_OWNER),
  );
  const ready = cnpgClusterReady(adoptTarget.status as CnpgClusterStatus | undefined);
  const host = readWriteHost(adopt.clusterRef.name, targetNamespace);
  return {
    steps: [
      copy.step,
      ...databases.map<DesiredStep>((d) => ({
        kind: "apply",
        object: d,
        description: `apply CNPG Database ${targetNamespace}/${d.metadata.name} beside the adopted cluster`,
      })),
      ...(claims?.steps ?? []),
    ],
    status: { ...connection(host, POSTGRES_PORT, copy.secret, "adopted"), ...claimed },
    readyMessage: readyMessage(host, POSTGRES_PORT),
    verdict: ready
      ? { ok: true, reason: "AdoptedClusterReady", message: `adopted CNPG Cluster ${target} is Ready` }
      : {
          ok: false,
          reason: "AdoptedClusterNotReady",
          message: `waiting for the adopted CNPG Cluster ${target} to be Ready`,
        },
  };
}

function desiredExternal(resource: PostgresCluster, view: EngineView): PostgresDesired {
  const ref = resource.spec.external?.connectionSecretRef;
  if (!ref) throw new Error("unreachable: mode external without spec.external passed validation");
  const credentials = view.reads?.externalCredentials as Credentials | undefined;
  const wired = externalConnection(ref, resource.metadata.namespace, credentials, {
    keys: ["host", "username", "password"],
    port: POSTGRES_PORT,
  });
  if (!("host" in wired)) return { steps: [], status: { provenance: "external" }, verdict: wired.verdict };
  return {
    steps: [],
    status: connection(wired.host, wired.port, wired.secret, "external"),
    readyMessage: wired.readyMessage,
    verdict: wired.verdict,
  };
}

/** What a PostgresCluster wants in the cluster now, by mode. Pure. */
export function desiredPostgresCluster(resource: PostgresCluster, view: EngineView): PostgresDesired {
  const refused = notImplemented(POSTGRES_TYPES, resource.spec);
  if (refused) return { steps: [], verdict: refused };
  if (resource.spec.mode === "managed") return desiredManaged(resource, view);
  if (resource.spec.mode === "adopt") return desiredAdopted(resource, view);
  return desiredExternal(resource, view);
}
