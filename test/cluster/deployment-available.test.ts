import { AppsV1Api, CoreV1Api, type V1Deployment } from "@kubernetes/client-node";
import { deploymentReady, deploymentRollout } from "../../lib/capabilities/workload-readiness.js";
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
    await namespace?.cleanup();
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

  // WHEN a rolled-out Deployment (2 replicas, maxSurge 2, maxUnavailable 0) gets a new template whose pods
  //      can never be scheduled (a node selector no node matches)
  // THEN the deployment controller surges 2 new pods beside the 2 old ready ones and keeps the old ones:
  //      ready, available and updated counts all reach 2, yet the rollout is not done, and the product's
  //      readiness (what the capability observation uses) says so as kubectl rollout status does.
  //      Every status here is written by the real deployment controller; the test only edits the spec.
  it("is not Ready mid-rollout, while the ready replicas are the old ones", async () => {
    const labels = { app: "surge" };
    const name = "surge";
    await apps.createNamespacedDeployment({
      namespace: namespace.name,
      body: {
        metadata: { name, namespace: namespace.name },
        spec: {
          replicas: 2,
          selector: { matchLabels: labels },
          strategy: { type: "RollingUpdate", rollingUpdate: { maxSurge: 2, maxUnavailable: 0 } },
          template: {
            metadata: { labels },
            spec: { containers: [{ name: "surge", image: "registry.invalid/surge:1.0" }] },
          },
        },
      },
    });
    const first = await eventually("the first rollout to complete", async () => {
      const current = await apps.readNamespacedDeployment({ name, namespace: namespace.name });
      return deploymentReady(current) ? current : undefined;
    });
    expect(first.status?.replicas).toBe(2);

    await apps.patchNamespacedDeployment(
      {
        name,
        namespace: namespace.name,
        body: [
          { op: "replace", path: "/spec/template/spec/containers/0/image", value: "registry.invalid/surge:2.0" },
          { op: "add", path: "/spec/template/spec/nodeSelector", value: { "test.navique.com/no-such-node": "true" } },
        ],
      },
      undefined,
    );

    const midRollout = await eventually("the controller to surge 2 new replicas beside the 2 old ones", async () => {
      const current = await apps.readNamespacedDeployment({ name, namespace: namespace.name });
      const status = current.status;
      const surged =
        (current.metadata?.generation ?? 0) <= (status?.observedGeneration ?? 0) &&
        status?.replicas === 4 &&
        status.updatedReplicas === 2;
      return surged ? current : undefined;
    });
    // The counts a readiness check of ready/available/updated alone would take for a finished rollout.
    expect(midRollout.status?.readyReplicas).toBe(2);
    expect(midRollout.status?.availableReplicas).toBe(2);
    expect(deploymentReady(midRollout)).toBe(false);
    expect(deploymentRollout(midRollout)).toEqual({
      done: false,
      failed: false,
      message: 'Waiting for deployment "surge" rollout to finish: 2 old replicas are pending termination...',
    });
    const pending = await core.listNamespacedPod({ namespace: namespace.name, labelSelector: "app=surge" });
    expect(pending.items.filter((pod) => pod.status?.phase === "Pending")).toHaveLength(2);
  });
});
