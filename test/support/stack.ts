import { API_GROUP, API_VERSION } from "../../lib/api/group.js";
import { type KubeClient, orUndefined } from "../../lib/cluster/kube-client.js";
import type { ReconcileContext } from "../../lib/engine/context.js";
import { STACK_PLURAL, type Stack, type StackSpecInput } from "../../lib/kinds/stack/schema.js";
import { finalizeResources, readStoredResource } from "./resources.js";

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

/** Finalizes every Stack in the cluster, its members first (test/support/resources.ts finalizeResources). */
export function finalizeStacks(context: ReconcileContext): Promise<void> {
  return finalizeResources(context, "Stack");
}

/** One Stack as stored, parsed by its schema; undefined when absent. */
export async function readStack(client: KubeClient, namespace: string, name: string): Promise<Stack | undefined> {
  return (await readStoredResource(client, "Stack", namespace, name)) as Stack | undefined;
}
