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
