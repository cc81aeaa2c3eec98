import { join } from "node:path";
import { AuthorizationV1Api } from "@kubernetes/client-node";
import { Testing } from "cdk8s";
import { parseAllDocuments } from "yaml";
import { CHART_MIRROR, NaviqueOperator } from "../../constructs/navique-operator.js";
import { OPERATOR_NAME, SYSTEM_NAMESPACE } from "../../lib/api/group.js";
import type { CapabilityEntry } from "../../lib/catalog/capability.js";
import { CATALOG } from "../../lib/catalog/catalog.js";
import type { HelmCli } from "../../lib/cluster/helm-cli.js";
import type { KubeClient } from "../../lib/cluster/kube-client.js";
import { OPERATOR_IMAGE } from "../../lib/package/operator-image.js";
import {
  CAPABILITY_SUITE_SETUP_MS,
  FIXTURE_CHARTS,
  lockCapabilities,
  testClient,
  testHelm,
} from "../support/capabilities.js";
import { createTestNamespace } from "../support/cluster.js";
import { deploymentAmong, deploymentIn } from "../support/rendered-deployment.js";

// The operator's own chart (generated into charts/ by `npm run generate`), installed by the real helm.
// kwok marks its Pod Ready: nothing runs, but every object is accepted by the apiserver and the
// Deployment rolls out. Its ClusterRole and CRDs are cluster-wide, like those of the other suites that
// install the chart: the suite holds the capability lock.
describe("the operator's Helm chart", () => {
  let unlock: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    unlock = await lockCapabilities();
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
      ]);
      expect(deployment.spec?.template.spec?.serviceAccountName).toBe(OPERATOR_NAME);
    } finally {
      expect(await helm.uninstall("navique-chart-test", SYSTEM_NAMESPACE)).toBe(true);
    }
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
    const fromConstruct = (Testing.synth(synthesized) as { kind: string }[]).find((o) => o.kind === "Deployment");
    expect(fromChart).toEqual(fromConstruct);
    expect(fromChart.spec.template.spec.containers[0]?.volumeMounts).toContainEqual({
      name: CHART_MIRROR,
      mountPath: "/charts",
      readOnly: true,
    });

    // With the chart's defaults: no mirror volume, no flag for the default chart source or namespaces —
    // the construct's Deployment with no props.
    const official = deploymentIn(await helm.template("navique", chart, { namespace: SYSTEM_NAMESPACE }));
    expect(official.spec.template.spec.volumes?.map((v) => v.name)).toEqual(["tmp", "home"]);
    expect(official.spec.template.spec.containers[0]?.args).toEqual(["operator", "--resync", "30"]);
    const defaults = Testing.chart();
    new NaviqueOperator(defaults, "operator", {});
    expect(official).toEqual(deploymentAmong(Testing.synth(defaults)));
  });

  it("refuses a namespace other than navique-system, where the operator's install locks are, saying which to use", async () => {
    const helm = await testHelm();
    const chart = join(process.cwd(), "charts", OPERATOR_NAME);
    await expect(helm.template("navique", chart, { namespace: "elsewhere" })).rejects.toThrow(
      "the operator runs in navique-system, where its install locks are: install the chart with -n navique-system --create-namespace",
    );
  });

  it("refuses a dir: chart source without its volume, and a volume without a dir: source, saying what to set", async () => {
    const helm = await testHelm();
    const chart = join(process.cwd(), "charts", OPERATOR_NAME);
    await expect(
      helm.template("navique", chart, { namespace: SYSTEM_NAMESPACE, values: { chartSource: "dir:/charts" } }),
    ).rejects.toThrow("chartSource dir:PATH is read from a volume: set chartMirror.volume to a VolumeSource");
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

  it("lets its ServiceAccount do to every object the fixture capability charts render what helm and the installer do", async () => {
    const client = testClient();
    const helm = await testHelm();
    const authorization = client.kubeconfig.makeApiClient(AuthorizationV1Api);
    const release = "navique-chart-rbac";
    await helm.install(release, join(process.cwd(), "charts", OPERATOR_NAME), {
      namespace: SYSTEM_NAMESPACE,
      createNamespace: true,
      wait: false,
    });
    try {
      const refused: string[] = [];
      let checked = 0;
      const rendered = await Promise.all(
        [...CATALOG.values()].map(async (entry) => ({ entry, objects: await fixtureObjects(helm, entry) })),
      );
      // A chart may render kinds of another capability's CRDs (the ClickHouse operator's cert-manager Issuer):
      // their plurals are the ones those CRDs declare, whether or not they are installed now.
      const declared = new Map(
        rendered.flatMap(({ objects }) => objects.flatMap((o) => crdPlural(o))).map((p) => [p.key, p.plural]),
      );
      for (const { entry, objects } of rendered) {
        for (const object of objects) {
          const verbs = helmVerbs(object.kind);
          checked += verbs.length;
          refused.push(...(await refusedVerbs(client, authorization, entry, object, verbs, declared)));
        }
      }
      expect(refused).toEqual([]);
      expect(checked).toBeGreaterThan(50);
      // The check can fail: what the operator never does is refused.
      expect(await operatorMay(authorization, { group: "", resource: "pods", verb: "list" })).toBe(false);
    } finally {
      expect(await helm.uninstall(release, SYSTEM_NAMESPACE)).toBe(true);
    }
  });
});

interface RenderedObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: { readonly name: string };
  readonly spec?: unknown;
}

/** A rendered CRD's `<group>/<version> <Kind>` for each version it serves, with its plural. */
function crdPlural(object: RenderedObject): { key: string; plural: string }[] {
  if (object.kind !== "CustomResourceDefinition") return [];
  const spec = object.spec as
    | { group?: string; names?: { kind?: string; plural?: string }; versions?: { name?: string }[] }
    | undefined;
  const plural = spec?.names?.plural ?? "";
  return (spec?.versions ?? []).map((v) => ({ key: `${spec?.group}/${v.name} ${spec?.names?.kind}`, plural }));
}

/** What a fixture capability chart renders with the catalog's values, as the installer renders it. */
async function fixtureObjects(helm: HelmCli, entry: CapabilityEntry): Promise<RenderedObject[]> {
  const rendered = await helm.template(entry.release.name, join(FIXTURE_CHARTS, entry.chart.name), {
    namespace: entry.release.namespace,
    values: entry.values,
  });
  return parseAllDocuments(rendered)
    .map((d) => d.toJS() as RenderedObject | null)
    .filter((o): o is RenderedObject => Boolean(o?.kind));
}

/** The verbs among `verbs` the operator's ServiceAccount may not use on `object`, as `verb Kind name`. */
async function refusedVerbs(
  client: KubeClient,
  authorization: AuthorizationV1Api,
  entry: CapabilityEntry,
  object: RenderedObject,
  verbs: readonly string[],
  declared: ReadonlyMap<string, string>,
): Promise<string[]> {
  const [group = ""] = object.apiVersion.includes("/") ? object.apiVersion.split("/") : [""];
  const resource =
    declared.get(`${object.apiVersion} ${object.kind}`) ?? (await pluralOf(client, object.apiVersion, object.kind));
  const clusterScoped = object.kind.startsWith("Cluster") || object.kind === "CustomResourceDefinition";
  const refused: string[] = [];
  for (const verb of verbs) {
    const attributes = {
      group,
      resource,
      verb,
      name: object.metadata.name,
      ...(clusterScoped ? {} : { namespace: entry.release.namespace }),
    };
    if (!(await operatorMay(authorization, attributes))) refused.push(`${verb} ${object.kind} ${object.metadata.name}`);
  }
  return refused;
}

/** The plural the apiserver serves `kind` of `apiVersion` under, from discovery. */
async function pluralOf(client: KubeClient, apiVersion: string, kind: string): Promise<string> {
  const path = apiVersion.includes("/") ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
  const { resources } = JSON.parse((await client.get(path, "application/json")).body) as {
    resources: { name: string; kind: string }[];
  };
  const found = resources.find((r) => r.kind === kind && !r.name.includes("/"));
  if (!found) throw new Error(`${apiVersion} serves no ${kind}`);
  return found.name;
}

/**
 * What helm and the installer do to an object of a chart: read it, apply it (PATCH, which creates), wait
 * on it (list, watch) and delete it at uninstall — CRDs are kept; a role it grants or binds needs escalate
 * and bind.
 */
function helmVerbs(kind: string): string[] {
  if (kind === "CustomResourceDefinition") return ["get", "create", "patch"];
  const written = ["get", "list", "watch", "create", "patch", "delete"];
  return kind === "ClusterRole" || kind === "Role" ? [...written, "escalate", "bind"] : written;
}

/** Whether the apiserver's authorizer lets the operator's ServiceAccount do this (a SubjectAccessReview). */
async function operatorMay(
  authorization: AuthorizationV1Api,
  resourceAttributes: { group: string; resource: string; verb: string; name?: string; namespace?: string },
): Promise<boolean> {
  const review = await authorization.createSubjectAccessReview({
    body: {
      spec: {
        user: `system:serviceaccount:${SYSTEM_NAMESPACE}:${OPERATOR_NAME}`,
        groups: ["system:serviceaccounts", `system:serviceaccounts:${SYSTEM_NAMESPACE}`, "system:authenticated"],
        resourceAttributes,
      },
    },
  });
  return review.status?.allowed === true;
}
