import { join } from "node:path";
import { ApiextensionsV1Api, AppsV1Api, CoreV1Api } from "@kubernetes/client-node";
import { HelmCli } from "../../lib/cluster/helm-cli.js";
import { toolchainPaths } from "../../lib/local-plane/toolchain-paths.js";
import { apiStatus, createTestNamespace, eventually, testKubeConfig } from "../support/cluster.js";

const CHART = join(import.meta.dirname, "..", "fixtures", "charts", "gizmo-operator");
const CRD = "gizmos.fixtures.test.navique.com";
const MARKS = {
  "app.kubernetes.io/managed-by": "navique-ai-core-operator",
  "core.navique.com/provenance": "owned",
};

// The real helm v4 CLI against the local plane, with the fixture chart test/fixtures/charts/gizmo-operator
// (a CRD in crds/ and a controller Deployment).
describe("helm install, release labels and uninstall", () => {
  const kubeconfig = testKubeConfig();
  const core = kubeconfig.makeApiClient(CoreV1Api);
  const apps = kubeconfig.makeApiClient(AppsV1Api);
  const extensions = kubeconfig.makeApiClient(ApiextensionsV1Api);
  let namespace: Awaited<ReturnType<typeof createTestNamespace>>;
  let helm: HelmCli;

  beforeAll(async () => {
    namespace = await createTestNamespace("smoke-helm");
    helm = new HelmCli({
      binary: (await toolchainPaths()).helm,
      kubeconfig: process.env.NAVIQUE_TEST_KUBECONFIG ?? "",
    });
    // The CRD is cluster-scoped and kept by helm: remove one left by an earlier run, so that finding it
    // after the uninstall below proves this run's install created it and the uninstall kept it.
    await extensions.deleteCustomResourceDefinition({ name: CRD }).catch((error: unknown) => {
      if (apiStatus(error) !== 404) throw error;
    });
    await eventually("an earlier run's CRD to be gone", async () =>
      extensions.readCustomResourceDefinition({ name: CRD }).then(
        () => undefined,
        (error: unknown) => (apiStatus(error) === 404 ? true : undefined),
      ),
    );
  });
  afterAll(async () => {
    await namespace?.cleanup();
  });

  it("stores --labels on the release Secret, waits for the Deployment, and keeps the CRD on uninstall", async () => {
    const release = await helm.install("gizmo", CHART, {
      namespace: namespace.name,
      labels: MARKS,
      wait: true,
      timeoutSeconds: 120,
    });
    expect(release.info.status).toBe("deployed");
    expect(release.version).toBe(1);

    // --wait returned: the controller Deployment must already be Ready, without polling here.
    const deployment = await apps.readNamespacedDeployment({ name: "gizmo-gizmo-operator", namespace: namespace.name });
    expect(deployment.status?.readyReplicas).toBe(1);
    expect(deployment.status?.conditions?.find((c) => c.type === "Available")?.status).toBe("True");

    const records = await core.listNamespacedSecret({
      namespace: namespace.name,
      labelSelector: "owner=helm,name=gizmo",
    });
    expect(records.items).toHaveLength(1);
    const record = records.items[0];
    expect(record?.type).toBe("helm.sh/release.v1");
    expect(record?.metadata?.labels).toMatchObject({
      ...MARKS,
      owner: "helm",
      name: "gizmo",
      status: "deployed",
      version: "1",
    });

    const crd = await extensions.readCustomResourceDefinition({ name: CRD });
    expect(crd.spec.group).toBe("fixtures.test.navique.com");

    expect(await helm.uninstall("gizmo", namespace.name)).toBe(true);
    const remaining = await core.listNamespacedSecret({
      namespace: namespace.name,
      labelSelector: "owner=helm,name=gizmo",
    });
    expect(remaining.items).toHaveLength(0);
    await eventually("the Deployment to be deleted by the uninstall", async () =>
      apps.readNamespacedDeployment({ name: "gizmo-gizmo-operator", namespace: namespace.name }).then(
        () => undefined,
        (error: unknown) => (apiStatus(error) === 404 ? true : undefined),
      ),
    );
    const kept = await extensions.readCustomResourceDefinition({ name: CRD });
    expect(kept.metadata?.uid).toBe(crd.metadata?.uid);
    expect(kept.metadata?.deletionTimestamp).toBeUndefined();

    expect(await helm.uninstall("gizmo", namespace.name)).toBe(false);
    expect(await helm.status("gizmo", namespace.name)).toBeUndefined();
  });
});
