import { API_GROUP, API_VERSION } from "../../lib/api/group.js";
import { STACK_PLURAL, type StackSpecInput } from "../../lib/api/stack.js";
import { type KubeClient, orUndefined } from "../../lib/cluster/kube-client.js";

const crd = { group: API_GROUP, version: API_VERSION, plural: STACK_PLURAL };

export async function createStack(client: KubeClient, namespace: string, name: string, spec: StackSpecInput = {}) {
  await client.custom.createNamespacedCustomObject({
    ...crd,
    namespace,
    body: { apiVersion: `${API_GROUP}/${API_VERSION}`, kind: "Stack", metadata: { name }, spec },
  });
}

export async function deleteStack(client: KubeClient, namespace: string, name: string) {
  await orUndefined(client.custom.deleteNamespacedCustomObject({ ...crd, namespace, name }));
}
