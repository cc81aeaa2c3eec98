import { join } from "node:path";
import { AuthorizationV1Api, PolicyV1Api } from "@kubernetes/client-node";
import { Testing } from "cdk8s";
import { CHART_MIRROR, NaviqueOperator } from "../../constructs/navique-operator.js";
import { API_GROUP, API_VERSION, OPERATOR_NAME, SYSTEM_NAMESPACE } from "../../lib/api/group.js";
import { OPERATOR_IMAGE } from "../../lib/package/operator-image.js";
import { CAPABILITY_SUITE_SETUP_MS, lockCapabilities, testClient, testHelm } from "../support/capabilities.js";
import { createTestNamespace } from "../support/cluster.js";
import { removeConsoleObjectsOutsideReleases } from "../support/console-leftovers.js";
import { deploymentAmong, deploymentIn } from "../support/rendered-deployment.js";

const PLANE = { group: API_GROUP, version: API_VERSION, plural: "managementplanes", name: "navique" };

// The operator's own chart (generated into charts/ by `npm run generate`), installed by the real helm.
// kwok marks its Pod Ready: nothing runs, but every object is accepted by the apiserver and the
// Deployment rolls out. Its ClusterRole and CRDs are cluster-wide, like those of the other suites that
// install the chart: the suite holds the capability lock.
describe("the operator's Helm chart", () => {
  let unlock: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    unlock = await lockCapabilities();
    // The console suite's objects, left by a run killed before its clean-up, would stop helm.
    await removeConsoleObjectsOutsideReleases(testClient());
  }, CAPABILITY_SUITE_SETUP_MS);
  afterAll(async () => {
    await unlock?.();
  });

  it("installs the Deployment with the given image and settings, and uninstalls cleanly", async () => {
    const client = testClient();
    const helm = await testHelm();
    const chart = join(process.cwd(), "charts", OPERATOR_NAME);
    const release = await helm.install("navique-chart-test", chart, {
      namespace: SYSTEM_NAMESPACE,
      createNamespace: true,
      values: {
        image: { repository: "registry.example/navique-ai-core-operator", tag: "test", digest: "" },
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
      // Two replicas, one leading and one standing by (docs/adr/0027-leader-election.md); kwok makes both Ready.
      expect(deployment.spec?.replicas).toBe(2);
      expect(deployment.status?.readyReplicas).toBe(2);
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
        "--metrics-bind-address",
        ":8080",
        "--health-probe-bind-address",
        ":8081",
        "--console-bind-address",
        ":8082",
      ]);
      expect(deployment.spec?.template.spec?.serviceAccountName).toBe(OPERATOR_NAME);
      // The console's settings, deployed by default with the chart, and its Service.
      expect(await client.custom.getClusterCustomObject(PLANE)).toMatchObject({
        spec: { enabled: true, refreshSeconds: 30, recentEventsMinutes: 60 },
      });
      const console = await client.core.readNamespacedService({
        name: `${OPERATOR_NAME}-console`,
        namespace: SYSTEM_NAMESPACE,
      });
      expect(console.spec?.ports?.[0]).toMatchObject({ name: "http", port: 80, targetPort: "console" });
    } finally {
      expect(await helm.uninstall("navique-chart-test", SYSTEM_NAMESPACE)).toBe(true);
    }
    // Uninstalled with the release, as every object the chart made.
    await expect(client.custom.getClusterCustomObject(PLANE)).rejects.toMatchObject({ code: 404 });
  });

  it("pins the release's image by tag and digest, and renders what the construct synthesizes, mirror volume included", async () => {
    const helm = await testHelm();
    const chart = join(process.cwd(), "charts", OPERATOR_NAME);
    const volume = { configMap: { name: "chart-mirror" } };
    const rendered = await helm.template("navique", chart, {
      namespace: SYSTEM_NAMESPACE,
      values: { chartSource: "dir:/charts", chartMirror: { volume }, watchNamespaces: ["team-a"] },
    });
    const fromChart = deploymentIn(rendered);
    expect(fromChart.spec.template.spec.containers[0]?.image).toBe(
      `${OPERATOR_IMAGE.repository}:${OPERATOR_IMAGE.tag}@${OPERATOR_IMAGE.digest}`,
    );
    const synthesized = Testing.chart();
    new NaviqueOperator(synthesized, "operator", {
      chartSource: "dir:/charts",
      chartMirrorVolume: volume,
      watchNamespaces: ["team-a"],
    });
    // The pod is the construct's; the Deployment's metadata carries helm's labels besides.
    expect(fromChart.spec.template.spec).toEqual(deploymentAmong(Testing.synth(synthesized)).spec.template.spec);
    expect(fromChart.spec.template.spec.containers[0]?.volumeMounts).toContainEqual({
      name: CHART_MIRROR,
      mountPath: "/charts",
      readOnly: true,
    });

    // With the chart's defaults: no mirror volume, no flag for the default chart source or namespaces —
    // the construct's Deployment with no props.
    const official = deploymentIn(await helm.template("navique", chart, { namespace: SYSTEM_NAMESPACE }));
    expect(official.spec.template.spec.volumes?.map((v) => v.name)).toEqual(["tmp", "home"]);
    expect(official.spec.template.spec.containers[0]?.args).toEqual([
      "operator",
      "--resync",
      "30",
      "--metrics-bind-address",
      ":8080",
      "--health-probe-bind-address",
      ":8081",
      "--console-bind-address",
      ":8082",
    ]);
    const defaults = Testing.chart();
    new NaviqueOperator(defaults, "operator", {});
    expect(official.spec.template.spec).toEqual(deploymentAmong(Testing.synth(defaults)).spec.template.spec);
  });

  it("installs in another namespace, its ServiceAccount there allowed the Leases of navique-system, which stays after uninstall", async () => {
    const client = testClient();
    const helm = await testHelm();
    const authorization = client.kubeconfig.makeApiClient(AuthorizationV1Api);
    const namespace = "navique-chart-elsewhere";
    const chart = join(process.cwd(), "charts", OPERATOR_NAME);
    // A run killed before its cleanup left its release behind: this one starts from none.
    await helm.uninstall("navique-chart-elsewhere", namespace);
    const release = await helm.install("navique-chart-elsewhere", chart, {
      namespace,
      createNamespace: true,
      values: { image: { repository: "registry.example/navique-ai-core-operator", tag: "test", digest: "" } },
      wait: true,
      timeoutSeconds: 120,
    });
    try {
      expect(release.info.status).toBe("deployed");
      const deployment = await client.apps.readNamespacedDeployment({ name: OPERATOR_NAME, namespace });
      expect(deployment.status?.readyReplicas).toBe(2);
      const budget = await client.kubeconfig
        .makeApiClient(PolicyV1Api)
        .readNamespacedPodDisruptionBudget({ name: OPERATOR_NAME, namespace });
      expect(budget.spec?.minAvailable).toBe(1);
      const service = await client.core.readNamespacedService({ name: `${OPERATOR_NAME}-metrics`, namespace });
      expect(service.spec?.ports?.map((p) => `${p.name} ${p.port}`)).toEqual(["metrics 8080"]);
      const leases = { group: "coordination.k8s.io", resource: "leases", namespace: SYSTEM_NAMESPACE };
      for (const verb of ["get", "create", "update", "delete"]) {
        expect(`${verb} ${await serviceAccountMay(authorization, namespace, { ...leases, verb })}`).toBe(
          `${verb} true`,
        );
      }
      // Only there: a Role of navique-system, not a ClusterRole on Leases.
      expect(await serviceAccountMay(authorization, namespace, { ...leases, namespace, verb: "update" })).toBe(false);
    } finally {
      expect(await helm.uninstall("navique-chart-elsewhere", namespace)).toBe(true);
      await client.core.deleteNamespace({ name: namespace }).catch(() => undefined);
    }
    // The locks' namespace outlives the release: the Pulumi front end and `navique plan` lock there too.
    expect((await client.core.readNamespace({ name: SYSTEM_NAMESPACE })).metadata?.name).toBe(SYSTEM_NAMESPACE);
  });

  it("refuses a dir: chart source without its volume, and a volume without a dir: source, saying what to set", async () => {
    const helm = await testHelm();
    const chart = join(process.cwd(), "charts", OPERATOR_NAME);
    await expect(
      helm.template("navique", chart, { namespace: SYSTEM_NAMESPACE, values: { chartSource: "dir:/charts" } }),
    ).rejects.toThrow(
      "chartMirror.volume: required with chartSource dir:PATH, whose charts are read from a volume: set it to a VolumeSource",
    );
    await expect(
      helm.template("navique", chart, {
        namespace: SYSTEM_NAMESPACE,
        values: { chartMirror: { volume: { configMap: { name: "chart-mirror" } } } },
      }),
    ).rejects.toThrow("chartMirror.volume is read only with a dir: chartSource");
  });

  it("runs under the restricted Pod Security Standard: its pod is admitted where a root pod is refused", async () => {
    const client = testClient();
    const helm = await testHelm();
    const chart = join(process.cwd(), "charts", OPERATOR_NAME);
    const { spec } = deploymentIn(await helm.template("navique", chart, { namespace: SYSTEM_NAMESPACE })).spec.template;
    const { name: namespace, cleanup } = await createTestNamespace("restricted");
    try {
      // The apiserver's own PodSecurity admission, enforcing the restricted profile here.
      await client.core.patchNamespace({
        name: namespace,
        body: [{ op: "add", path: "/metadata/labels/pod-security.kubernetes.io~1enforce", value: "restricted" }],
      });
      // The pod runs as the operator's service account: there in the chart's namespace, here too.
      await client.core.createNamespacedServiceAccount({ namespace, body: { metadata: { name: OPERATOR_NAME } } });
      const pod = (podSpec: unknown) => ({
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name: "operator-probe", namespace },
        spec: podSpec,
      });
      await expect(client.apply(pod(spec), { dryRun: true })).resolves.toMatchObject({ kind: "Pod" });
      // The same pod without its security contexts is refused: the check can fail.
      const { securityContext: _pod, ...loose } = spec as {
        securityContext?: unknown;
        containers: { securityContext?: unknown }[];
      };
      const bare = { ...loose, containers: loose.containers.map(({ securityContext: _c, ...c }) => c) };
      await expect(client.apply(pod(bare), { dryRun: true })).rejects.toMatchObject({
        body: expect.stringContaining("violates PodSecurity"),
      });
    } finally {
      await cleanup();
    }
  });
});

/** Whether the apiserver lets the chart's ServiceAccount in `namespace` do this (a SubjectAccessReview). */
async function serviceAccountMay(
  authorization: AuthorizationV1Api,
  namespace: string,
  resourceAttributes: { group: string; resource: string; verb: string; namespace?: string },
): Promise<boolean> {
  const review = await authorization.createSubjectAccessReview({
    body: {
      spec: {
        user: `system:serviceaccount:${namespace}:${OPERATOR_NAME}`,
        groups: ["system:serviceaccounts", `system:serviceaccounts:${namespace}`, "system:authenticated"],
        resourceAttributes,
      },
    },
  });
  return review.status?.allowed === true;
}
