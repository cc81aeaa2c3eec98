import type { KubeClient } from "../lib/cluster/kube-client.js";

/** Deletes a namespace left by an earlier run (or this one) and waits until it is gone. */
export async function deleteNamespaceAndWait(client: KubeClient, name: string): Promise<void> {
  await client.core.deleteNamespace({ name }).catch(() => undefined);
  while (
    await client.core.readNamespace({ name }).then(
      () => true,
      () => false,
    )
  )
    await new Promise((r) => setTimeout(r, 500));
}
