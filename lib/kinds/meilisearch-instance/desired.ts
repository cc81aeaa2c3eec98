import { CONNECTION_SECRET_KEYS } from "../../api/resource-status.js";
import { MEILISEARCH } from "../../catalog/meilisearch.js";
import { DELETION_POLICY_ANNOTATION } from "../../engine/garbage.js";
import { generateSecretStep, type KeyRule } from "../../engine/generated-secret.js";
import type { Desired } from "../../engine/kind-module.js";
import type { Credentials, KubeObject } from "../../engine/objects.js";
import { ownerReference } from "../../engine/ownership.js";
import type { EngineView } from "../../engine/view.js";
import { observedRelease, rolloutVerdict, workloadReleaseStep } from "../../engine/workload-release.js";
import { connectionUrl } from "../datastore/connection-url.js";
import { externalConnection } from "../datastore/external-connection.js";
import { MASTER_KEY_ENV, MEILISEARCH_PORT, meilisearchValues } from "./chart.js";
import { type MeilisearchInstance, type MeilisearchInstanceStatus, MeilisearchManaged } from "./schema.js";

type MeilisearchDesired = Desired<MeilisearchInstanceStatus>;

/**
 * The master key: 32 alphanumeric characters (Meilisearch requires at least 16 bytes in production), under
 * the connection's key `password` and, the same value, under the key the chart's pods read.
 */
const MASTER_KEY: Readonly<Record<string, KeyRule>> = {
  [CONNECTION_SECRET_KEYS.password]: { length: 32, alphabet: "alphanumeric" },
  [MASTER_KEY_ENV]: { sameAs: CONNECTION_SECRET_KEYS.password },
};

/** The name of a managed MeilisearchInstance's generated master key Secret. */
export function masterKeyName(resource: MeilisearchInstance): string {
  return `${resource.metadata.name}-master-key`;
}

/** The name of a managed MeilisearchInstance's data claim. */
export function dataClaimName(resource: MeilisearchInstance): string {
  return `${resource.metadata.name}-data`;
}

/** The master key Secret kept with a data claim: named after the same resource. */
export function masterKeyOfClaim(claimName: string): string {
  return `${claimName.replace(/-data$/, "")}-master-key`;
}

/** The Service the chart makes, named after the release (fullnameOverride). */
function serviceHost(name: string, namespace: string): string {
  return `${name}.${namespace}.svc`;
}

function desiredManaged(resource: MeilisearchInstance, view: EngineView): MeilisearchDesired {
  const { name, namespace } = resource.metadata;
  const managed = resource.spec.managed ?? MeilisearchManaged.parse({});
  const deleting = managed.deletionPolicy === "Delete";
  const secret: KubeObject = {
    apiVersion: "v1",
    kind: "Secret",
    type: "Opaque",
    // Under Retain no owner reference, as on the claim: the key of kept indexes must stay with them.
    metadata: {
      name: masterKeyName(resource),
      namespace,
      ...(deleting ? { ownerReferences: [ownerReference(resource)] } : {}),
    },
  };
  const claim: KubeObject = {
    apiVersion: "v1",
    kind: "PersistentVolumeClaim",
    metadata: {
      name: dataClaimName(resource),
      namespace,
      annotations: { [DELETION_POLICY_ANNOTATION]: managed.deletionPolicy },
    },
    spec: {
      accessModes: ["ReadWriteOnce"],
      resources: { requests: { storage: managed.storage.size } },
      ...(managed.storage.storageClass ? { storageClassName: managed.storage.storageClass } : {}),
    },
  };
  const values = meilisearchValues({ name, masterKeySecret: secret.metadata.name, claim: claim.metadata.name });
  const release = workloadReleaseStep(view, { name, namespace }, MEILISEARCH, values);
  const host = serviceHost(name, namespace);
  return {
    steps: [
      generateSecretStep(secret, MASTER_KEY, {
        description: `create Secret ${namespace}/${secret.metadata.name} with a generated master key (kept if it exists)`,
        rotation: `Meilisearch reads it when it starts (auth.existingMasterKeySecret of Helm release ${namespace}/${name}): until its pod restarts it accepts the old one, and every API key derived from the old master key stops working after; every consumer must pick up the new one from the Secret`,
      }),
      {
        kind: "apply",
        object: claim,
        description: `apply PersistentVolumeClaim ${namespace}/${claim.metadata.name} (${managed.storage.size}, deletion policy ${managed.deletionPolicy})`,
      },
      release,
    ],
    status: {
      provenance: "owned",
      connection: {
        host,
        port: MEILISEARCH_PORT,
        credentialsSecret: { name: secret.metadata.name, namespace },
        url: connectionUrl("http", host, MEILISEARCH_PORT),
      },
    },
    readyMessage: `Meilisearch reachable at ${connectionUrl("http", host, MEILISEARCH_PORT)}`,
    verdict: rolloutVerdict(observedRelease(view, name, namespace), "MeilisearchReady", "Meilisearch"),
  };
}

function desiredExternal(resource: MeilisearchInstance, view: EngineView): MeilisearchDesired {
  const ref = resource.spec.external?.connectionSecretRef;
  if (!ref) throw new Error("unreachable: mode external without spec.external passed validation");
  const credentials = view.reads?.externalCredentials as Credentials | undefined;
  const connection = externalConnection(ref, resource.metadata.namespace, credentials, {
    keys: ["host", CONNECTION_SECRET_KEYS.password],
    port: MEILISEARCH_PORT,
  });
  if (!("host" in connection)) return { steps: [], status: { provenance: "external" }, verdict: connection.verdict };
  return {
    steps: [],
    status: {
      provenance: "external",
      connection: {
        host: connection.host,
        port: connection.port,
        credentialsSecret: connection.secret,
        url: connectionUrl("http", connection.host, connection.port),
      },
    },
    readyMessage: connection.readyMessage,
    verdict: connection.verdict,
  };
}

/** What a MeilisearchInstance wants in the cluster now, by mode. Pure. */
export function desiredMeilisearchInstance(resource: MeilisearchInstance, view: EngineView): MeilisearchDesired {
  return resource.spec.mode === "managed" ? desiredManaged(resource, view) : desiredExternal(resource, view);
}
