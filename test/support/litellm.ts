import { randomBytes } from "node:crypto";
import { type KubeClient, orUndefined } from "../../lib/cluster/kube-client.js";

const LITELLM = { group: "litellm.palena.ai", version: "v1alpha1" };

const condition = (type: string, reason: string, message: string) => ({
  type,
  status: "True",
  reason,
  message,
  lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, "Z"),
});

/**
 * No LiteLLM operator pod runs on the local plane (its Deployment is installed from the fixture chart and
 * kwok reports it available), nor could a proxy reach a provider: the test plays the operator, writing the
 * status it writes once the proxy's Deployment has a ready replica (LiteLLMInstance: `ready`, `endpoint`,
 * Ready True with reason AllResourcesReady) and once a model is registered with the proxy (LiteLLMModel:
 * `synced`, Synced True with reason Synced) — its controllers' words (docs/gateway.md).
 */
export async function playLiteLLMOperator(client: KubeClient, namespace: string, instance: string): Promise<void> {
  const found = await orUndefined(
    client.custom.getNamespacedCustomObject({ ...LITELLM, plural: "litellminstances", namespace, name: instance }),
  );
  if (!found) return;
  await client.custom.patchNamespacedCustomObjectStatus({
    ...LITELLM,
    plural: "litellminstances",
    namespace,
    name: instance,
    body: [
      {
        op: "add",
        path: "/status",
        value: {
          ready: true,
          replicas: 1,
          readyReplicas: 1,
          endpoint: `http://${instance}.${namespace}.svc:4000`,
          conditions: [condition("Ready", "AllResourcesReady", "All managed resources are ready")],
        },
      },
    ],
  });
  const models = (await client.custom.listNamespacedCustomObject({
    ...LITELLM,
    plural: "litellmmodels",
    namespace,
  })) as {
    items: { metadata: { name: string }; spec: { instanceRef: { name: string } } }[];
  };
  for (const model of models.items.filter((m) => m.spec.instanceRef.name === instance)) {
    await client.custom.patchNamespacedCustomObjectStatus({
      ...LITELLM,
      plural: "litellmmodels",
      namespace,
      name: model.metadata.name,
      body: [
        {
          op: "add",
          path: "/status",
          value: { synced: true, conditions: [condition("Synced", "Synced", "Model synced to LiteLLM")] },
        },
      ],
    });
  }
}

/** A LiteLLM object as stored, for the tests to read what the product wrote. */
export async function readLiteLLM(
  client: KubeClient,
  plural: "litellminstances" | "litellmmodels",
  namespace: string,
  name: string,
): Promise<{ metadata: { labels?: Record<string, string> }; spec: Record<string, unknown> } | undefined> {
  return (await orUndefined(client.custom.getNamespacedCustomObject({ ...LITELLM, plural, namespace, name }))) as never;
}

/**
 * Plays the LiteLLM operator's virtual-key controller (internal/controller/litellmvirtualkey_controller.go,
 * chart 0.23.0) for the LiteLLMVirtualKeys of `namespace` it has not issued yet: the key it would get from
 * the proxy's `POST /key/generate` (`sk-` and random characters here), written into the Secret
 * `spec.keySecretName` (default `<name>-key`) under `api_key`, owned by the key's resource, and the status
 * it writes (`synced`, `keySecretRef`, Synced True). Returns the keys issued, by the resource's name.
 */
export async function playLiteLLMVirtualKeys(client: KubeClient, namespace: string): Promise<Record<string, string>> {
  const keys = (await client.custom.listNamespacedCustomObject({
    ...LITELLM,
    plural: "litellmvirtualkeys",
    namespace,
  })) as {
    items: {
      metadata: { name: string; uid: string; deletionTimestamp?: string };
      spec: { keySecretName?: string };
      status?: { synced?: boolean };
    }[];
  };
  const issued: Record<string, string> = {};
  for (const key of keys.items.filter((k) => !k.status?.synced && !k.metadata.deletionTimestamp)) {
    const secret = key.spec.keySecretName ?? `${key.metadata.name}-key`;
    const value = `sk-${randomBytes(16).toString("hex")}`;
    await client.core.createNamespacedSecret({
      namespace,
      body: {
        metadata: {
          name: secret,
          labels: { "litellm.palena.ai/resource-type": "virtual-key" },
          ownerReferences: [
            {
              apiVersion: `${LITELLM.group}/${LITELLM.version}`,
              kind: "LiteLLMVirtualKey",
              name: key.metadata.name,
              uid: key.metadata.uid,
              controller: true,
              blockOwnerDeletion: true,
            },
          ],
        },
        type: "Opaque",
        stringData: { api_key: value },
      },
    });
    await client.custom.patchNamespacedCustomObjectStatus({
      ...LITELLM,
      plural: "litellmvirtualkeys",
      namespace,
      name: key.metadata.name,
      body: [
        {
          op: "add",
          path: "/status",
          value: {
            synced: true,
            isActive: true,
            keySecretRef: { name: secret, key: "api_key" },
            conditions: [condition("Synced", "Synced", "Virtual key synced to LiteLLM")],
          },
        },
      ],
    });
    issued[key.metadata.name] = value;
  }
  return issued;
}

/** The id field the LiteLLM operator writes on each identity it syncs, by plural. */
const IDENTITY_IDS = {
  litellmorganizations: "litellmOrganizationId",
  litellmteams: "litellmTeamId",
  litellmusers: "litellmUserId",
} as const;

/**
 * Plays the LiteLLM operator's organisation, team and user controllers (internal/controller, their
 * status as api/v1alpha1/litellm{organization,team,user}_types.go declares it) for the identities of
 * `namespace` not synced yet: `synced`, the id LiteLLM would have returned (random here), a spend of 0
 * and Synced True. Returns the ids given, by `<plural>/<name>`.
 */
export async function playLiteLLMIdentities(client: KubeClient, namespace: string): Promise<Record<string, string>> {
  const given: Record<string, string> = {};
  for (const [plural, idField] of Object.entries(IDENTITY_IDS)) {
    const { items } = (await client.custom.listNamespacedCustomObject({ ...LITELLM, plural, namespace })) as {
      items: { metadata: { name: string; deletionTimestamp?: string }; status?: { synced?: boolean } }[];
    };
    for (const item of items.filter((i) => !i.status?.synced && !i.metadata.deletionTimestamp)) {
      const id = randomBytes(8).toString("hex");
      await client.custom.patchNamespacedCustomObjectStatus({
        ...LITELLM,
        plural,
        namespace,
        name: item.metadata.name,
        body: [
          {
            op: "add",
            path: "/status",
            value: {
              synced: true,
              [idField]: id,
              currentSpend: 0,
              conditions: [condition("Synced", "Synced", "Synced to LiteLLM")],
            },
          },
        ],
      });
      given[`${plural}/${item.metadata.name}`] = id;
    }
  }
  return given;
}

/** A LiteLLM identity as stored (its spec as the product wrote it); undefined when absent. */
export async function readLiteLLMIdentity(
  client: KubeClient,
  plural: keyof typeof IDENTITY_IDS,
  namespace: string,
  name: string,
): Promise<{ spec: Record<string, unknown>; metadata: { labels?: Record<string, string> } } | undefined> {
  return (await orUndefined(client.custom.getNamespacedCustomObject({ ...LITELLM, plural, namespace, name }))) as never;
}
