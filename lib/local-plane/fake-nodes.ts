import { setTimeout as sleep } from "node:timers/promises";
import { ApiException, CoreV1Api, KubeConfig, type V1Node } from "@kubernetes/client-node";
import { PlaneStartError } from "./plane-errors.js";
import { formatDuration, type Reporter } from "./progress.js";

/** The annotation kwok is told to manage; a Node without it is left alone. */
export const KWOK_NODE_ANNOTATION = "kwok.x-k8s.io/node";

const NODE_READY_TIMEOUT_MS = 120_000;

export function fakeNodeName(index: number): string {
  return `kwok-node-${index}`;
}

/** A Node that kwok will initialise and keep Ready. Generous capacity: it never runs anything. */
export function fakeNode(name: string): V1Node {
  const capacity = { cpu: "32", memory: "128Gi", pods: "250", "ephemeral-storage": "500Gi" };
  return {
    apiVersion: "v1",
    kind: "Node",
    metadata: {
      name,
      annotations: { [KWOK_NODE_ANNOTATION]: "fake", "node.alpha.kubernetes.io/ttl": "0" },
      labels: {
        "kubernetes.io/hostname": name,
        "kubernetes.io/os": "linux",
        "kubernetes.io/arch": "amd64",
        "kubernetes.io/role": "agent",
        type: "kwok",
      },
    },
    status: { capacity, allocatable: capacity },
  };
}

function isReady(node: V1Node): boolean {
  return node.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True") ?? false;
}

/**
 * Creates the fake Nodes that do not exist yet and waits until kwok reports every one Ready. While
 * waiting it checks that the plane's processes are still alive, so that a crashed component fails the
 * start at once with its log instead of after the timeout.
 */
export async function ensureFakeNodesReady(
  kubeconfigPath: string,
  count: number,
  options: {
    readonly report: Reporter;
    readonly stillRunning: () => Promise<string | undefined>;
    readonly logTail: (component: string) => Promise<string>;
  },
): Promise<void> {
  const kubeconfig = new KubeConfig();
  kubeconfig.loadFromFile(kubeconfigPath);
  const core = kubeconfig.makeApiClient(CoreV1Api);
  const names = Array.from({ length: count }, (_, i) => fakeNodeName(i));
  for (const name of names) {
    try {
      await core.createNode({ body: fakeNode(name) });
    } catch (error) {
      if (!(error instanceof ApiException && error.code === 409)) throw error;
    }
  }
  const started = Date.now();
  let lastReport = started;
  for (;;) {
    const dead = await options.stillRunning();
    if (dead)
      throw new PlaneStartError(dead, "exited while the fake nodes were coming up", await options.logTail(dead));
    const nodes = await Promise.all(names.map((name) => core.readNode({ name })));
    if (nodes.every(isReady)) return;
    if (Date.now() - started > NODE_READY_TIMEOUT_MS) {
      throw new PlaneStartError(
        "kwok",
        `did not make ${names.join(", ")} Ready in ${formatDuration(NODE_READY_TIMEOUT_MS)}`,
        await options.logTail("kwok"),
      );
    }
    if (Date.now() - lastReport > 10_000) {
      lastReport = Date.now();
      options.report(
        `[plane] waiting for kwok to report ${names.join(", ")} Ready (${formatDuration(Date.now() - started)})`,
      );
    }
    await sleep(250);
  }
}
