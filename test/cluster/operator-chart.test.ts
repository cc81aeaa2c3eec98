import { join } from "node:path";
import { OPERATOR_NAME, SYSTEM_NAMESPACE } from "../../lib/api/group.js";
import { testClient, testHelm } from "../support/capabilities.js";

// The operator's own chart (generated into charts/ by `npm run generate`), installed by the real helm.
// kwok marks its Pod Ready: nothing runs, but every object is accepted by the apiserver and the
// Deployment rolls out.
describe("the operator's Helm chart", () => {
  it("installs the Deployment with the given image and settings, and uninstalls cleanly", async () => {
    const client = testClient();
    const helm = await testHelm();
    const chart = join(process.cwd(), "charts", OPERATOR_NAME);
    const release = await helm.install("navique-chart-test", chart, {
      namespace: SYSTEM_NAMESPACE,
      createNamespace: true,
      values: {
        image: "registry.example/navique-ai-core-operator:test",
        resyncSeconds: 10,
        chartSource: "oci://registry.example/charts",
        watchNamespaces: ["team-a", "team-b"],
      },
      wait: true,
      timeoutSeconds: 120,
    });
    try {
      expect(release.info.status).toBe("deployed");
      const deployment = await client.apps.readNamespacedDeployment({
        name: OPERATOR_NAME,
        namespace: SYSTEM_NAMESPACE,
      });
      expect(deployment.status?.readyReplicas).toBe(1);
      const container = deployment.spec?.template.spec?.containers[0];
      expect(container?.image).toBe("registry.example/navique-ai-core-operator:test");
      expect(container?.args).toEqual([
        "operator",
        "--resync",
        "10",
        "--chart-source",
        "oci://registry.example/charts",
        "--watch-namespaces",
        "team-a,team-b",
      ]);
      expect(deployment.spec?.template.spec?.serviceAccountName).toBe(OPERATOR_NAME);
    } finally {
      expect(await helm.uninstall("navique-chart-test", SYSTEM_NAMESPACE)).toBe(true);
    }
  });
});
