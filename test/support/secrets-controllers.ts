import { type KubeClient, orUndefined } from "../../lib/cluster/kube-client.js";

const ESO = { group: "external-secrets.io", version: "v1" };
const SEALED = { group: "bitnami.com", version: "v1alpha1" };

interface Stored {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace: string; uid: string; generation?: number };
  spec: Record<string, unknown>;
  status?: { conditions?: { type: string; status: string }[]; syncedResourceVersion?: string };
}

function condition(type: string, status: "True" | "False", reason: string, message: string) {
  return { type, status, reason, message, lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, "Z") };
}

async function list(client: KubeClient, group: { group: string; version: string }, plural: string, namespace: string) {
  const answer = (await client.custom.listNamespacedCustomObject({ ...group, plural, namespace })) as {
    items: Stored[];
  };
  return answer.items;
}

async function writeStatus(
  client: KubeClient,
  group: { group: string; version: string },
  plural: string,
  object: Stored,
  status: object,
) {
  await client.custom.patchNamespacedCustomObjectStatus({
    ...group,
    plural,
    namespace: object.metadata.namespace,
    name: object.metadata.name,
    body: [{ op: "add", path: "/status", value: status }],
  });
}

/** The Secret an upstream controller writes for `owner`, owned by it, unless it is there. */
async function materialise(client: KubeClient, owner: Stored, name: string, data: Record<string, string>, labels = {}) {
  const { namespace } = owner.metadata;
  if (await orUndefined(client.core.readNamespacedSecret({ name, namespace }))) return;
  await client.core.createNamespacedSecret({
    namespace,
    body: {
      metadata: {
        name,
        labels,
        ownerReferences: [
          {
            apiVersion: owner.apiVersion,
            kind: owner.kind,
            name: owner.metadata.name,
            uid: owner.metadata.uid,
            controller: true,
          },
        ],
      },
      stringData: data,
    },
  });
}

/**
 * No External Secrets Operator pod runs on the local plane (its Deployments are installed from the fixture
 * chart and kwok reports them available), nor could it reach a provider: the test plays its controllers,
 * writing what they write once a provider answers (pkg/controllers at v2.9.0) — on each SecretStore of the
 * namespace, Ready True with reason Valid ("store validated"); for each ExternalSecret, its target Secret
 * created with every key set to `remoteValue(remote key)`, owned by the ExternalSecret (creationPolicy Owner) and
 * labelled reconcile.external-secrets.io/managed, then Ready True with reason SecretSynced ("secret synced") and
 * the generation synced in syncedResourceVersion (`<generation>-<hash>`; the hash is not reproduced); again
 * after each change of its spec.
 */
export async function playExternalSecretsOperator(
  client: KubeClient,
  namespace: string,
  remoteValue: (remoteKey: string) => string,
): Promise<void> {
  for (const store of await list(client, ESO, "secretstores", namespace)) {
    if (store.status?.conditions?.some((c) => c.type === "Ready")) continue;
    await writeStatus(client, ESO, "secretstores", store, {
      conditions: [condition("Ready", "True", "Valid", "store validated")],
      capabilities: "ReadOnly",
    });
  }
  for (const external of await list(client, ESO, "externalsecrets", namespace)) {
    // Synced already for its current spec: ESO records the generation it synced (`<generation>-<hash>`).
    const generation = external.metadata.generation ?? 1;
    if (external.status?.syncedResourceVersion?.startsWith(`${generation}-`)) continue;
    const spec = external.spec as {
      target: { name: string };
      data: { secretKey: string; remoteRef: { key: string } }[];
    };
    const data = Object.fromEntries(spec.data.map((d) => [d.secretKey, remoteValue(d.remoteRef.key)]));
    await materialise(client, external, spec.target.name, data, { "reconcile.external-secrets.io/managed": "true" });
    await writeStatus(client, ESO, "externalsecrets", external, {
      conditions: [condition("Ready", "True", "SecretSynced", "secret synced")],
      refreshTime: new Date().toISOString().replace(/\.\d+Z$/, "Z"),
      syncedResourceVersion: `${generation}-0`,
    });
  }
}

/** A SealedSecret as a user commits it: ciphertext only the controller's key opens (here, opaque bytes). */
export async function commitSealedSecret(client: KubeClient, namespace: string, name: string): Promise<void> {
  await client.custom.createNamespacedCustomObject({
    ...SEALED,
    plural: "sealedsecrets",
    namespace,
    body: {
      apiVersion: `${SEALED.group}/${SEALED.version}`,
      kind: "SealedSecret",
      metadata: { name },
      spec: { encryptedData: { password: "AgBy3i4OJSWK+PiTySYZZA9rO43cGDEq" }, template: { metadata: { name } } },
    },
  });
}

/**
 * No Sealed Secrets controller pod runs on the local plane: the test plays it (pkg/controller/controller.go
 * at v0.36.6, with --update-status, the chart's default). `unsealed` false: the controller could not
 * decrypt, Synced False with its error as the message and no Secret; true: the Secret of the SealedSecret's
 * name created with `data`, owned by it, then Synced True with an empty message.
 */
export async function playSealedSecretsController(
  client: KubeClient,
  namespace: string,
  name: string,
  outcome: { readonly unsealed: false } | { readonly unsealed: true; readonly data: Record<string, string> },
): Promise<void> {
  const sealed = (await orUndefined(
    client.custom.getNamespacedCustomObject({ ...SEALED, plural: "sealedsecrets", namespace, name }),
  )) as Stored | undefined;
  if (!sealed) return;
  if (outcome.unsealed) await materialise(client, sealed, name, outcome.data);
  const synced = outcome.unsealed
    ? condition("Synced", "True", "", "")
    : condition("Synced", "False", "", "no key could decrypt secret (password)");
  await writeStatus(client, SEALED, "sealedsecrets", sealed, {
    conditions: [{ ...synced, lastUpdateTime: synced.lastTransitionTime }],
    observedGeneration: sealed.metadata.generation ?? 1,
  });
}
