import { API_GROUP, API_VERSION } from "../../lib/api/group.js";
import { STACK_PLURAL, type StackSpecInput } from "../../lib/api/stack.js";
import { type KubeClient, orUndefined } from "../../lib/cluster/kube-client.js";
import { observeStacks, readStack } from "../../lib/observe/stack.js";
import type { ReconcileContext } from "../../lib/reconcile/postgres-cluster.js";
import { reconcileStackDeletion } from "../../lib/reconcile/stack.js";
import { eventually } from "./cluster.js";

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

/**
 * Deletes every Stack in the cluster and runs its finalization with the real reconcile (its members
 * deleted and finalized first), so that namespaces can go and no leftover counts against a Stack cap: a
 * test that failed midway may have left one behind with no operator running.
 */
export async function finalizeStacks(context: ReconcileContext): Promise<void> {
  for (const stack of await observeStacks(context.client)) {
    const { namespace, name } = stack.metadata;
    await deleteStack(context.client, namespace, name);
    await eventually(`Stack ${namespace}/${name} to be finalized`, async () => {
      const current = await readStack(context.client, namespace, name);
      if (!current) return true;
      await reconcileStackDeletion(context, current);
      return undefined;
    });
  }
}
