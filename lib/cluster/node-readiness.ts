import type { CoreV1Api, V1Node } from "@kubernetes/client-node";

/** Whether a node's Ready condition is True: the scheduler places pods on such nodes only. */
export function nodeReady(node: V1Node): boolean {
  return node.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True") ?? false;
}

/** How many of the cluster's nodes are Ready, of how many. */
export async function nodeReadiness(core: CoreV1Api): Promise<{ readonly ready: number; readonly total: number }> {
  const nodes = await core.listNode();
  return { ready: nodes.items.filter(nodeReady).length, total: nodes.items.length };
}
