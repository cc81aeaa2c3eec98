import type { Desired, ObservedRead, Verdict } from "../../engine/kind-module.js";
import { type KubeObject, keyOf } from "../../engine/objects.js";
import { ownerReference } from "../../engine/ownership.js";
import type { DesiredStep } from "../../engine/steps.js";
import type { EngineView } from "../../engine/view.js";
import type { Instance } from "../../licence/enforce.js";
import {
  type AwsProvider,
  type AzureKeyVaultProvider,
  type Eso,
  type EsoProvider,
  type EsoSecret,
  type GcpProvider,
  type ProvidedSecret,
  SECRETS_MANAGEMENT_KIND,
  type SecretsManagement,
  type SecretsManagementStatus,
  type VaultProvider,
} from "./schema.js";
import {
  CLUSTER_SECRET_STORE,
  conditionReadiness,
  ESO_GROUP,
  ESO_READY,
  EXTERNAL_SECRET,
  SEALED_SECRET,
  SEALED_SECRET_SYNCED,
  SECRET_STORE,
  SECRET_SYNCED,
  syncedCurrentGeneration,
  type UpstreamReadiness,
} from "./upstream-api.js";

type SecretsDesired = Desired<SecretsManagementStatus>;

const ESO_CONTROLLER = "the External Secrets Operator";
const SEALED_SECRETS_CONTROLLER = "the Sealed Secrets controller";

/** The view's read ids: the referenced ClusterSecretStore, and each named Secret and its SealedSecret. */
export const CLUSTER_STORE_READ = "clusterSecretStore";
export const secretReadId = (name: string) => `secret/${name}`;
export const sealedSecretReadId = (name: string) => `sealedSecret/${name}`;

/** What the desired state reads besides what it emits: the user's store, or the Secrets their SealedSecrets make. */
export function secretsReads(resource: SecretsManagement): ObservedRead[] {
  const { namespace } = resource.metadata;
  const { spec } = resource;
  if (spec.backend === "eso") {
    const ref = spec.eso?.clusterSecretStoreRef;
    // Cluster-scoped: the namespace only keeps the read in the resource's own (the client ignores it).
    return ref
      ? [
          {
            id: CLUSTER_STORE_READ,
            field: "spec.eso.clusterSecretStoreRef",
            ...CLUSTER_SECRET_STORE,
            namespace,
            name: ref.name,
            as: "object",
          },
        ]
      : [];
  }
  return (spec.sealedSecrets?.secrets ?? []).flatMap(({ name }, index): ObservedRead[] => [
    // Its existence only is judged: its data is never looked at, nor written anywhere.
    {
      id: secretReadId(name),
      field: `spec.sealedSecrets.secrets[${index}].name`,
      apiVersion: "v1",
      kind: "Secret",
      namespace,
      name,
      as: "object",
    },
    {
      id: sealedSecretReadId(name),
      field: `spec.sealedSecrets.secrets[${index}].name`,
      ...SEALED_SECRET,
      namespace,
      name,
      as: "object",
    },
  ]);
}

/** The SecretStore's spec.provider, in ESO's words, from the one provider the spec names. */
function storeProvider(provider: EsoProvider): Record<string, unknown> {
  if (provider.azureKeyVault) return { azurekv: azureKeyVault(provider.azureKeyVault) };
  if (provider.vault) return { vault: vault(provider.vault) };
  if (provider.aws) return { aws: aws(provider.aws) };
  if (provider.gcp) return { gcpsm: gcp(provider.gcp) };
  throw new Error("unreachable: spec.eso.provider without a provider passed validation");
}

function azureKeyVault(p: AzureKeyVaultProvider): Record<string, unknown> {
  return {
    vaultUrl: p.vaultUrl,
    authType: p.authType,
    ...(p.tenantId ? { tenantId: p.tenantId } : {}),
    ...(p.serviceAccountRef ? { serviceAccountRef: { name: p.serviceAccountRef.name } } : {}),
  };
}

function vault(p: VaultProvider): Record<string, unknown> {
  return {
    server: p.server,
    path: p.path,
    version: p.version,
    ...(p.namespace ? { namespace: p.namespace } : {}),
    auth: {
      kubernetes: {
        mountPath: p.mountPath,
        role: p.role,
        ...(p.serviceAccountRef ? { serviceAccountRef: { name: p.serviceAccountRef.name } } : {}),
      },
    },
  };
}

function aws(p: AwsProvider): Record<string, unknown> {
  return {
    service: p.service,
    region: p.region,
    ...(p.role ? { role: p.role } : {}),
    ...(p.serviceAccountRef ? { auth: { jwt: { serviceAccountRef: { name: p.serviceAccountRef.name } } } } : {}),
  };
}

function gcp(p: GcpProvider): Record<string, unknown> {
  const identity = p.workloadIdentity;
  return {
    projectID: p.projectID,
    ...(identity
      ? {
          auth: {
            workloadIdentity: {
              serviceAccountRef: { name: identity.serviceAccountRef.name },
              ...(identity.clusterLocation ? { clusterLocation: identity.clusterLocation } : {}),
              ...(identity.clusterName ? { clusterName: identity.clusterName } : {}),
              ...(identity.clusterProjectID ? { clusterProjectID: identity.clusterProjectID } : {}),
            },
          },
        }
      : {}),
  };
}

/** The name of the provider a spec names, for descriptions. */
function providerLabel(provider: EsoProvider): string {
  if (provider.azureKeyVault) return `Azure Key Vault ${provider.azureKeyVault.vaultUrl}`;
  if (provider.vault) return `Vault ${provider.vault.server}`;
  if (provider.aws) return `AWS ${provider.aws.service} in ${provider.aws.region}`;
  if (provider.gcp) return `GCP Secret Manager of project ${provider.gcp.projectID}`;
  return "its provider";
}

/** The ExternalSecret of one Secret: named after it, its target it (ESO owns the Secret it creates). */
export function externalSecret(
  resource: SecretsManagement,
  eso: Eso,
  store: { readonly kind: string; readonly name: string },
  secret: EsoSecret,
): KubeObject {
  return {
    apiVersion: EXTERNAL_SECRET.apiVersion,
    kind: EXTERNAL_SECRET.kind,
    metadata: {
      name: secret.name,
      namespace: resource.metadata.namespace,
      ownerReferences: [ownerReference(resource)],
    },
    spec: {
      refreshInterval: eso.refreshInterval,
      secretStoreRef: { kind: store.kind, name: store.name },
      target: { name: secret.name, creationPolicy: "Owner" },
      data: secret.data.map((d) => ({
        secretKey: d.key,
        remoteRef: { key: d.remoteKey, ...(d.property ? { property: d.property } : {}) },
      })),
    },
  };
}

/** The SecretStore a provider block stands for: named after the resource, in its namespace. */
export function secretStore(resource: SecretsManagement, provider: EsoProvider): KubeObject {
  return {
    apiVersion: SECRET_STORE.apiVersion,
    kind: SECRET_STORE.kind,
    metadata: {
      name: resource.metadata.name,
      namespace: resource.metadata.namespace,
      ownerReferences: [ownerReference(resource)],
    },
    spec: { provider: storeProvider(provider) },
  };
}

/** The verdict once every wait is named: ready when none is left. */
function verdictOf(waits: readonly string[], ready: string): Verdict {
  return waits.length === 0
    ? { ok: true, reason: "SecretsSynced", message: ready }
    : { ok: false, reason: "WaitingForSecrets", message: `waiting for ${waits.join("; ")}` };
}

/** The names of Secrets, as messages list them. */
function names(secrets: readonly { readonly name: string }[]): string {
  return secrets.length === 0 ? "no Secret" : secrets.map((s) => s.name).join(", ");
}

function desiredEso(resource: SecretsManagement, view: EngineView): SecretsDesired {
  const { namespace } = resource.metadata;
  const eso = resource.spec.eso;
  if (!eso) throw new Error("unreachable: backend eso without spec.eso passed validation");
  const steps: DesiredStep[] = [];
  const waits: string[] = [];
  let store: { kind: string; name: string };
  let storeReadiness: UpstreamReadiness;
  if (eso.provider) {
    const object = secretStore(resource, eso.provider);
    store = { kind: SECRET_STORE.kind, name: object.metadata.name };
    steps.push({
      kind: "apply",
      object,
      description: `apply SecretStore ${namespace}/${store.name} (${providerLabel(eso.provider)})`,
    });
    storeReadiness = conditionReadiness(view.objects.get(keyOf(object)), ESO_READY, ESO_CONTROLLER);
  } else {
    const name = eso.clusterSecretStoreRef?.name ?? "";
    store = { kind: CLUSTER_SECRET_STORE.kind, name };
    const found = view.reads?.[CLUSTER_STORE_READ] as KubeObject | undefined;
    storeReadiness = found
      ? conditionReadiness(found, ESO_READY, ESO_CONTROLLER)
      : {
          ready: false,
          detail: "it does not exist (spec.eso.clusterSecretStoreRef): create it, or name one that exists",
        };
  }
  if (!storeReadiness.ready)
    waits.push(
      `${store.kind} ${store.kind === CLUSTER_SECRET_STORE.kind ? "" : `${namespace}/`}${store.name}: ${storeReadiness.detail}`,
    );
  const provided: ProvidedSecret[] = eso.secrets.map((secret) => {
    const object = externalSecret(resource, eso, store, secret);
    steps.push({
      kind: "apply",
      object,
      description: `apply ExternalSecret ${namespace}/${secret.name} (Secret ${secret.name}: ${secret.data.map((d) => d.key).join(", ")} from ${store.kind} ${store.name})`,
    });
    const live = view.objects.get(keyOf(object));
    const condition = conditionReadiness(live, ESO_READY, ESO_CONTROLLER, SECRET_SYNCED);
    const readiness = condition.ready && live ? syncedCurrentGeneration(live) : condition;
    if (!readiness.ready) waits.push(`ExternalSecret ${namespace}/${secret.name}: ${readiness.detail}`);
    return { name: secret.name, ready: readiness.ready };
  });
  return {
    steps,
    status: {
      provenance: eso.provider ? "owned" : "adopted",
      store,
      secrets: provided,
    },
    verdict: verdictOf(
      waits,
      `${store.kind} ${store.name} is Ready; ${provided.length} Secret(s) synced: ${names(provided)}`,
    ),
    readyMessage: `provides ${names(provided)} in ${namespace} through ${store.kind} ${store.name}`,
  };
}

/**
 * The ExternalSecret controlling a Secret (ESO's `creationPolicy: Owner`), if one does: a Secret that goes
 * with it — Kubernetes deletes it once the ExternalSecret is gone, as after a change of backend from eso —
 * and that the Sealed Secrets controller would not write over (it writes only a Secret its SealedSecret
 * controls).
 */
function externalSecretOwning(secret: KubeObject): string | undefined {
  const owners = (secret.metadata.ownerReferences ?? []) as readonly {
    readonly apiVersion?: string;
    readonly kind?: string;
    readonly name?: string;
    readonly controller?: boolean;
  }[];
  return owners.find(
    (o) => o.controller === true && o.kind === EXTERNAL_SECRET.kind && o.apiVersion?.startsWith(`${ESO_GROUP}/`),
  )?.name;
}

function desiredSealedSecrets(resource: SecretsManagement, view: EngineView): SecretsDesired {
  const { namespace } = resource.metadata;
  const waits: string[] = [];
  const provided = (resource.spec.sealedSecrets?.secrets ?? []).map(({ name }): ProvidedSecret => {
    const sealed = view.reads?.[sealedSecretReadId(name)] as KubeObject | undefined;
    const unsealed = sealed ? conditionReadiness(sealed, SEALED_SECRET_SYNCED, SEALED_SECRETS_CONTROLLER) : undefined;
    if (unsealed && !unsealed.ready) {
      waits.push(`SealedSecret ${namespace}/${name} to be unsealed: ${unsealed.detail}`);
      return { name, ready: false };
    }
    const secret = view.reads?.[secretReadId(name)] as KubeObject | undefined;
    if (secret === undefined) {
      waits.push(
        `Secret ${namespace}/${name}: ${sealed ? "its SealedSecret is unsealed but the Secret is not there yet" : "no Secret, nor SealedSecret, of that name yet: commit the SealedSecret that produces it"}`,
      );
      return { name, ready: false };
    }
    const external = externalSecretOwning(secret);
    if (external !== undefined) {
      waits.push(
        `Secret ${namespace}/${name}: the External Secrets Operator wrote it for ExternalSecret ${external}, and it goes with it (creationPolicy Owner); once it is gone, commit the SealedSecret that produces it`,
      );
      return { name, ready: false };
    }
    return { name, ready: true };
  });
  return {
    steps: [],
    status: { provenance: "adopted", secrets: provided },
    verdict: verdictOf(waits, `${provided.length} Secret(s) there: ${names(provided)}`),
    readyMessage: `provides ${names(provided)} in ${namespace}, from your SealedSecrets`,
  };
}

/** The SecretsManagement that comes first in a namespace: created first, then by name. */
function firstIn(namespace: string, instances: readonly Instance[]): Instance | undefined {
  return instances
    .filter((i) => i.namespace === namespace)
    .sort((a, b) => a.creationTimestamp.localeCompare(b.creationTimestamp) || a.name.localeCompare(b.name))[0];
}

/** What a SecretsManagement wants in the cluster now, by backend; a second one in a namespace is refused. Pure. */
export function desiredSecretsManagement(resource: SecretsManagement, view: EngineView): SecretsDesired {
  const { name, namespace } = resource.metadata;
  const first = firstIn(namespace, view.licence.instances);
  if (first && first.name !== name) {
    return {
      steps: [],
      verdict: {
        ok: false,
        reason: "OnePerNamespace",
        message: `${SECRETS_MANAGEMENT_KIND} ${namespace}/${name} is refused: ${SECRETS_MANAGEMENT_KIND} ${namespace}/${first.name} came first, and a namespace has one ${SECRETS_MANAGEMENT_KIND}, which its workloads' secretsRef name. Move its secrets into ${first.name} and delete this one, or put it in another namespace`,
        stalled: true,
      },
    };
  }
  return resource.spec.backend === "eso" ? desiredEso(resource, view) : desiredSealedSecrets(resource, view);
}
