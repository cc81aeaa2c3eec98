import { AppsV1Api, CoreV1Api, type V1Deployment } from "@kubernetes/client-node";
import { fakeNodeName } from "../../lib/local-plane/fake-nodes.js";
import { createTestNamespace, eventually, testKubeConfig } from "../support/cluster.js";

// GIVEN the local plane (kube-apiserver, kube-controller-manager, kube-scheduler, kwok)
// WHEN a Deployment is created
// THEN kcm makes a ReplicaSet and Pods, the scheduler binds them to the kwok node, kwok marks them
//      Ready, and the Deployment reports Available — no step is played by the test.
describe("a Deployment on the local control plane", () => {
  const kubeconfig = testKubeConfig();
  const apps = kubeconfig.makeApiClient(AppsV1Api);
  const core = kubeconfig.makeApiClient(CoreV1Api);
  let namespace: Awaited<ReturnType<typeof createTestNamespace>>;

  beforeAll(async () => {
    namespace = await createTestNamespace("smoke-deploy");
  });
  afterAll(async () => {
    await namespace.cleanup();
  });

  it("becomes Available with every replica scheduled on a fake node", async () => {
    const labels = { app: "echo" };
    const deployment: V1Deployment = {
      metadata: { name: "echo", namespace: namespace.name },
      spec: {
        replicas: 2,
        selector: { matchLabels: labels },
        template: {
          metadata: { labels },
          spec: { containers: [{ name: "echo", image: "registry.invalid/echo:1.0" }] },
        },
      },
    };
    await apps.createNamespacedDeployment({ namespace: namespace.name, body: deployment });

    const available = await eventually("the Deployment to report Available with 2 ready replicas", async () => {
      const current = await apps.readNamespacedDeployment({ name: "echo", namespace: namespace.name });
      const condition = current.status?.conditions?.find((c) => c.type === "Available");
      return condition?.status === "True" && current.status?.readyReplicas === 2 ? current : undefined;
    });
    expect(available.status?.availableReplicas).toBe(2);

    const replicaSets = await apps.listNamespacedReplicaSet({ namespace: namespace.name, labelSelector: "app=echo" });
    expect(replicaSets.items).toHaveLength(1);
    expect(replicaSets.items[0]?.metadata?.ownerReferences?.[0]?.name).toBe("echo");

    const pods = await core.listNamespacedPod({ namespace: namespace.name, labelSelector: "app=echo" });
    expect(pods.items).toHaveLength(2);
    for (const pod of pods.items) {
      expect(pod.spec?.nodeName).toBe(fakeNodeName(0));
      expect(pod.status?.phase).toBe("Running");
      expect(pod.status?.conditions?.find((c) => c.type === "Ready")?.status).toBe("True");
    }
  });
});
