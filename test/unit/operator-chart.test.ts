import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { Testing } from "cdk8s";
import { parse, parseAllDocuments } from "yaml";
import { NaviqueOperator } from "../../constructs/navique-operator.js";
import { operatorChartFiles } from "../../constructs/operator-chart.js";
import { operatorChartValues, operatorChartValuesSchema } from "../../constructs/operator-chart-values.js";
import { OPERATOR_NAME, SYSTEM_NAMESPACE } from "../../lib/api/group.js";
import { imageReference } from "../../lib/api/image-reference.js";
import { HelmCli } from "../../lib/cluster/helm-cli.js";
import { run } from "../../lib/cluster/process.js";
import { crdFiles } from "../../lib/kinds/crd-files.js";
import { toolchainPaths } from "../../lib/local-plane/toolchain-paths.js";
import { OPERATOR_IMAGE } from "../../lib/package/operator-image.js";
import { readmeBlocks } from "../support/readme-projects.js";
import { deploymentAmong } from "../support/rendered-deployment.js";

// The chart committed in charts/, rendered by the toolchain's real helm (`helm template`, `helm lint`,
// `helm install --dry-run=client` for NOTES.txt): no cluster is needed, so `lookup` finds nothing, as in
// a GitOps tool's rendering.
const CHART = join(process.cwd(), "charts", OPERATOR_NAME);
const RELEASE = OPERATOR_NAME;

interface Rendered {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: {
    readonly name: string;
    readonly namespace?: string;
    readonly labels?: Record<string, string>;
    readonly annotations?: Record<string, string>;
  };
  readonly spec?: Record<string, unknown>;
  readonly rules?: unknown;
  readonly subjects?: { kind: string; name: string; namespace: string }[];
}

interface RenderedPod {
  readonly affinity?: unknown;
  readonly containers: {
    readonly image: string;
    readonly args: string[];
    readonly ports?: { name: string; containerPort: number }[];
    readonly livenessProbe?: unknown;
    readonly readinessProbe?: unknown;
  }[];
  readonly [key: string]: unknown;
}

let helm: HelmCli;
beforeAll(async () => {
  helm = new HelmCli({ binary: (await toolchainPaths()).helm, kubeconfig: "" });
});

/** The objects `helm template` renders with these values in `namespace`. */
async function render(values?: Record<string, unknown>, namespace = SYSTEM_NAMESPACE): Promise<Rendered[]> {
  const text = await helm.template(RELEASE, CHART, { namespace, ...(values ? { values } : {}) });
  return parseAllDocuments(text)
    .map((d) => d.toJS() as Rendered | null)
    .filter((o): o is Rendered => Boolean(o?.kind));
}

function one(objects: readonly Rendered[], kind: string): Rendered {
  const found = objects.filter((o) => o.kind === kind);
  if (found.length !== 1) throw new Error(`expected one ${kind}, rendered ${found.length}`);
  return found[0] as Rendered;
}

/** The one object of `kind` named `name`. */
function named(objects: readonly Rendered[], kind: string, name: string): Rendered {
  return one(
    objects.filter((o) => o.metadata.name === name),
    kind,
  );
}

function podOf(objects: readonly Rendered[]): RenderedPod {
  return (one(objects, "Deployment").spec as { template: { spec: RenderedPod } }).template.spec;
}

/** `kind namespace/name` of every object, sorted. */
function placed(objects: readonly Rendered[]): string[] {
  return objects.map((o) => `${o.kind} ${o.metadata.namespace ?? ""}/${o.metadata.name}`).sort();
}

function filesUnder(directory: string): string[] {
  return readdirSync(directory, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(directory, join(entry.parentPath, entry.name)))
    .sort();
}

describe("the operator chart's files", () => {
  it("are the ones committed in charts/, every file and no other (regenerate with npm run generate)", () => {
    const { version } = JSON.parse(readFileSync(join(process.cwd(), "package.json"), "utf8")) as { version: string };
    const files = operatorChartFiles(version);
    expect([...files.keys()].sort()).toEqual(
      [
        "Chart.yaml",
        "values.yaml",
        "values.schema.json",
        "templates/_helpers.tpl",
        "templates/NOTES.txt",
        "templates/deployment.yaml",
        "templates/metrics-service.yaml",
        "templates/poddisruptionbudget.yaml",
        "templates/rbac.yaml",
        "templates/serviceaccount.yaml",
        "templates/servicemonitor.yaml",
        "templates/console-ingress.yaml",
        "templates/console-service.yaml",
        "templates/console-viewer-role.yaml",
        "templates/managementplane.yaml",
        "templates/system-namespace.yaml",
        ...[...crdFiles().keys()].map((name) => `crds/${name}`),
      ].sort(),
    );
    expect(filesUnder(CHART)).toEqual([...files.keys()].sort());
    for (const [name, text] of files) expect(readFileSync(join(CHART, name), "utf8")).toBe(text);
  });

  it("hold in values.yaml every default of the values schema, each value under a comment", () => {
    const text = readFileSync(join(CHART, "values.yaml"), "utf8");
    expect(parse(text)).toEqual(operatorChartValues.parse({}));
    // Every value of the schema is described: values.yaml's comments and helm's messages come from it.
    const undescribed: string[] = [];
    const walk = (node: { description?: string; properties?: Record<string, unknown> }, path: string) => {
      for (const [key, child] of Object.entries(node.properties ?? {})) {
        const property = child as { description?: string; properties?: Record<string, unknown> };
        if (!property.description) undescribed.push(`${path}${key}`);
        walk(property, `${path}${key}.`);
      }
    };
    walk(operatorChartValuesSchema(), "");
    expect(undescribed).toEqual([]);
    expect(text).toContain("# Operator pods: one leads and reconciles");
    expect(text).toMatch(/# The operator's image, pinned by tag and digest.*\nimage:\n/s);
  });

  it("pass helm lint, with the default values and with every optional part on", async () => {
    const lint = async (...args: string[]) => (await run(helm.binary, ["lint", "--strict", CHART, ...args])).stdout;
    expect(await lint()).toContain("1 chart(s) linted, 0 chart(s) failed");
    expect(
      await lint(
        "--namespace",
        "platform-ops",
        "--set",
        "replicaCount=3,metrics.serviceMonitor.enabled=true,serviceAccount.annotations.team=platform",
      ),
    ).toContain("0 chart(s) failed");
  });
});

describe("the operator chart's values schema", () => {
  it("refuses a misspelt key, naming it, at the top and nested", async () => {
    await expect(render({ resyncSecond: 5 })).rejects.toThrow(
      "at '': additional properties 'resyncSecond' not allowed",
    );
    await expect(render({ metrics: { serviceMonitor: { enable: true } } })).rejects.toThrow(
      "at '/metrics/serviceMonitor': additional properties 'enable' not allowed",
    );
  });

  it("refuses a value of the wrong type or out of bounds, naming the value and what it wants", async () => {
    await expect(render({ resyncSeconds: "5s" })).rejects.toThrow("at '/resyncSeconds': got string, want integer");
    await expect(render({ replicaCount: 0 })).rejects.toThrow("at '/replicaCount': minimum: got 0, want 1");
    await expect(render({ image: { digest: "sha256:abc" } })).rejects.toThrow(
      "at '/image/digest': 'sha256:abc' does not match pattern",
    );
    await expect(render({ watchNamespaces: ["Team_A"] })).rejects.toThrow("at '/watchNamespaces/0': 'Team_A'");
  });

  it("accepts what a parent chart passes its subcharts (global)", async () => {
    await expect(render({ global: { imageRegistry: "registry.example" } })).resolves.toHaveLength(11);
  });
});

describe("the operator chart with its defaults", () => {
  it("renders two replicas, a PodDisruptionBudget of one, the metrics Service, and no ServiceMonitor", async () => {
    const objects = await render();
    expect(placed(objects)).toEqual(
      [
        `ClusterRole /${OPERATOR_NAME}`,
        `ClusterRole /${OPERATOR_NAME}-console-viewer`,
        `ClusterRoleBinding /${OPERATOR_NAME}`,
        `Deployment navique-system/${OPERATOR_NAME}`,
        "ManagementPlane /navique",
        `PodDisruptionBudget navique-system/${OPERATOR_NAME}`,
        `Role navique-system/${OPERATOR_NAME}`,
        `RoleBinding navique-system/${OPERATOR_NAME}`,
        `Service navique-system/${OPERATOR_NAME}-console`,
        `Service navique-system/${OPERATOR_NAME}-metrics`,
        `ServiceAccount navique-system/${OPERATOR_NAME}`,
      ].sort(),
    );
    const deployment = one(objects, "Deployment");
    expect(deployment.spec?.replicas).toBe(2);
    expect(one(objects, "PodDisruptionBudget").spec).toEqual({
      minAvailable: 1,
      selector: {
        matchLabels: deployment.spec?.selector && (deployment.spec.selector as { matchLabels: unknown }).matchLabels,
      },
    });
    expect(named(objects, "Service", `${OPERATOR_NAME}-metrics`).spec).toEqual({
      type: "ClusterIP",
      selector: { "app.kubernetes.io/name": OPERATOR_NAME, "app.kubernetes.io/component": "operator" },
      ports: [{ name: "metrics", port: 8080, targetPort: "metrics", protocol: "TCP" }],
    });
  });

  it("labels every object with the standard labels, and selects pods by labels no release changes", async () => {
    const objects = await render();
    for (const object of objects) {
      expect(object.metadata.labels).toEqual({
        "helm.sh/chart": `${OPERATOR_NAME}-${OPERATOR_IMAGE.tag}`,
        "app.kubernetes.io/name": OPERATOR_NAME,
        "app.kubernetes.io/instance": RELEASE,
        "app.kubernetes.io/version": OPERATOR_IMAGE.tag,
        "app.kubernetes.io/managed-by": "Helm",
        "app.kubernetes.io/component": "operator",
        "app.kubernetes.io/part-of": "navique-ai-core",
      });
    }
    // The selector holds neither the chart's version nor the release name: an upgrade, or a cluster
    // moved from the NaviqueOperator construct, keeps the Deployment.
    const selector = { "app.kubernetes.io/name": OPERATOR_NAME, "app.kubernetes.io/component": "operator" };
    expect(one(objects, "Deployment").spec?.selector).toEqual({ matchLabels: selector });
    const other = await render({ fullnameOverride: "platform-operator" });
    expect(one(other, "Deployment").metadata.name).toBe("platform-operator");
    expect(other.filter((o) => o.kind === "Service" || o.kind === "ClusterRole").map((o) => o.metadata.name)).toEqual(
      expect.arrayContaining([
        "platform-operator-metrics",
        "platform-operator-console",
        "platform-operator",
        "platform-operator-console-viewer",
      ]),
    );
    expect(one(other, "Deployment").spec?.selector).toEqual({ matchLabels: selector });
  });

  it("probes /healthz and /readyz on the port health, serves metrics on the port metrics, passing both addresses", async () => {
    const [container] = podOf(await render()).containers;
    expect(container?.ports).toEqual([
      { name: "metrics", containerPort: 8080, protocol: "TCP" },
      { name: "health", containerPort: 8081, protocol: "TCP" },
      { name: "console", containerPort: 8082, protocol: "TCP" },
    ]);
    expect(container?.livenessProbe).toMatchObject({ httpGet: { path: "/healthz", port: "health" } });
    expect(container?.readinessProbe).toMatchObject({ httpGet: { path: "/readyz", port: "health" } });
    expect(container?.args).toEqual([
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
  });

  it("runs the pod the NaviqueOperator construct synthesizes: probes, ports, image, security, anti-affinity", async () => {
    const synthesized = Testing.chart();
    new NaviqueOperator(synthesized, "operator", {});
    expect(podOf(await render())).toEqual(deploymentAmong(Testing.synth(synthesized)).spec.template.spec);

    const volume = { configMap: { name: "chart-mirror" } };
    const mirrored = Testing.chart();
    new NaviqueOperator(mirrored, "operator", {
      chartSource: "dir:/charts",
      chartMirrorVolume: volume,
      watchNamespaces: ["team-a"],
      replicas: 1,
    });
    const values = {
      chartSource: "dir:/charts",
      chartMirror: { volume },
      watchNamespaces: ["team-a"],
      replicaCount: 1,
    };
    expect(podOf(await render(values))).toEqual(deploymentAmong(Testing.synth(mirrored)).spec.template.spec);
  });
});

describe("the operator chart's replicas", () => {
  it("one replica: no PodDisruptionBudget (it would forbid every drain), no anti-affinity", async () => {
    const objects = await render({ replicaCount: 1 });
    expect(objects.filter((o) => o.kind === "PodDisruptionBudget")).toEqual([]);
    expect(podOf(objects).affinity).toBeUndefined();
    expect(one(objects, "Deployment").spec?.replicas).toBe(1);
  });

  it("three replicas: the PodDisruptionBudget, and pods preferring distinct nodes", async () => {
    const objects = await render({ replicaCount: 3 });
    expect(one(objects, "PodDisruptionBudget").spec).toMatchObject({ minAvailable: 1 });
    expect(podOf(objects).affinity).toEqual({
      podAntiAffinity: {
        preferredDuringSchedulingIgnoredDuringExecution: [
          {
            weight: 100,
            podAffinityTerm: {
              topologyKey: "kubernetes.io/hostname",
              labelSelector: {
                matchLabels: { "app.kubernetes.io/name": OPERATOR_NAME, "app.kubernetes.io/component": "operator" },
              },
            },
          },
        ],
      },
    });
  });

  it("takes the user's affinity and scheduling in place of the default, and refuses a budget that blocks drains", async () => {
    const affinity = { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [] } } };
    const tolerations = [{ key: "dedicated", operator: "Equal", value: "platform", effect: "NoSchedule" }];
    const spread = [
      {
        maxSkew: 1,
        topologyKey: "topology.kubernetes.io/zone",
        whenUnsatisfiable: "ScheduleAnyway",
        labelSelector: { matchLabels: { "app.kubernetes.io/name": OPERATOR_NAME } },
      },
    ];
    const pod = podOf(
      await render({
        affinity,
        tolerations,
        topologySpreadConstraints: spread,
        nodeSelector: { "kubernetes.io/os": "linux" },
        priorityClassName: "system-cluster-critical",
        imagePullSecrets: [{ name: "regcred" }],
      }),
    );
    expect(pod).toMatchObject({
      affinity,
      tolerations,
      topologySpreadConstraints: spread,
      nodeSelector: { "kubernetes.io/os": "linux" },
      priorityClassName: "system-cluster-critical",
      imagePullSecrets: [{ name: "regcred" }],
    });
    await expect(render({ podDisruptionBudget: { minAvailable: 2 } })).rejects.toThrow(
      "podDisruptionBudget.minAvailable 2 leaves no pod to evict with replicaCount 2",
    );
    const disabled = await render({ podDisruptionBudget: { enabled: false } });
    expect(disabled.filter((o) => o.kind === "PodDisruptionBudget")).toEqual([]);
  });
});

describe("the operator chart's namespaces", () => {
  it("runs in the release namespace, and keeps the Role on its Leases in navique-system, bound to its ServiceAccount there", async () => {
    const objects = await render(undefined, "platform-ops");
    expect(placed(objects)).toEqual(
      [
        `ClusterRole /${OPERATOR_NAME}`,
        `ClusterRole /${OPERATOR_NAME}-console-viewer`,
        `ClusterRoleBinding /${OPERATOR_NAME}`,
        `Deployment platform-ops/${OPERATOR_NAME}`,
        "ManagementPlane /navique",
        "Namespace /navique-system",
        `PodDisruptionBudget platform-ops/${OPERATOR_NAME}`,
        `Role navique-system/${OPERATOR_NAME}`,
        `RoleBinding navique-system/${OPERATOR_NAME}`,
        `Service platform-ops/${OPERATOR_NAME}-console`,
        `Service platform-ops/${OPERATOR_NAME}-metrics`,
        `ServiceAccount platform-ops/${OPERATOR_NAME}`,
      ].sort(),
    );
    const subject = { kind: "ServiceAccount", name: OPERATOR_NAME, namespace: "platform-ops" };
    expect(one(objects, "RoleBinding").subjects).toEqual([subject]);
    expect(one(objects, "ClusterRoleBinding").subjects).toEqual([subject]);
    // The namespace of the locks outlives the release: the Pulumi front end and `navique plan` lock there too.
    expect(one(objects, "Namespace").metadata.annotations).toEqual({ "helm.sh/resource-policy": "keep" });
  });

  it("leaves navique-system to helm's --create-namespace when installed there, and to the user when told", async () => {
    expect((await render()).filter((o) => o.kind === "Namespace")).toEqual([]);
    const told = await render({ systemNamespace: { create: false } }, "platform-ops");
    expect(told.filter((o) => o.kind === "Namespace")).toEqual([]);
    expect(one(told, "Role").metadata.namespace).toBe(SYSTEM_NAMESPACE);
  });

  it("puts the operator in namespaceOverride, and binds an existing ServiceAccount when told not to create one", async () => {
    const objects = await render(
      { namespaceOverride: "operators", serviceAccount: { create: false, name: "platform-operator" } },
      "platform-ops",
    );
    expect(one(objects, "Deployment").metadata.namespace).toBe("operators");
    expect(objects.filter((o) => o.kind === "ServiceAccount")).toEqual([]);
    expect(podOf(objects).serviceAccountName).toBe("platform-operator");
    expect(one(objects, "RoleBinding").subjects).toEqual([
      { kind: "ServiceAccount", name: "platform-operator", namespace: "operators" },
    ]);
    await expect(render({ serviceAccount: { create: false } })).rejects.toThrow(
      "serviceAccount.name: required with serviceAccount.create false",
    );
  });
});

describe("the operator chart's metrics", () => {
  it("renders the ServiceMonitor only when asked, with its interval and labels", async () => {
    expect((await render()).filter((o) => o.kind === "ServiceMonitor")).toEqual([]);
    const objects = await render({
      metrics: { serviceMonitor: { enabled: true, interval: "1m", labels: { release: "prometheus" } } },
    });
    const monitor = one(objects, "ServiceMonitor");
    expect(monitor.apiVersion).toBe("monitoring.coreos.com/v1");
    expect(monitor.metadata).toMatchObject({
      name: OPERATOR_NAME,
      namespace: SYSTEM_NAMESPACE,
      labels: { release: "prometheus", "app.kubernetes.io/name": OPERATOR_NAME },
    });
    expect(monitor.spec).toEqual({
      selector: { matchLabels: named(objects, "Service", `${OPERATOR_NAME}-metrics`).spec?.selector },
      endpoints: [{ port: "metrics", path: "/metrics", interval: "1m" }],
    });
    await expect(render({ metrics: { serviceMonitor: { enabled: true, interval: "soon" } } })).rejects.toThrow(
      "at '/metrics/serviceMonitor/interval': 'soon' does not match pattern",
    );
  });

  it("takes the README's operator-values.yaml as written: three replicas on control-plane nodes, a ServiceMonitor", async () => {
    const file = (await readmeBlocks("Installing the operator with helm")).find(
      (block) => block.title === "operator-values.yaml",
    );
    expect(file?.lang).toBe("yaml");
    const objects = await render(parse(file?.text ?? "") as Record<string, unknown>);
    expect(one(objects, "Deployment").spec?.replicas).toBe(3);
    expect(podOf(objects)).toMatchObject({
      nodeSelector: { "node-role.kubernetes.io/control-plane": "" },
      tolerations: [{ key: "node-role.kubernetes.io/control-plane", effect: "NoSchedule" }],
    });
    expect(one(objects, "ServiceMonitor").metadata.labels).toMatchObject({ release: "prometheus" });
    expect(one(objects, "PodDisruptionBudget").spec).toMatchObject({ minAvailable: 1 });
  });

  it("turns metrics off: --metrics-bind-address 0, no metrics port, no Service; a ServiceMonitor then refused", async () => {
    const objects = await render({ metrics: { enabled: false } });
    expect(objects.filter((o) => o.kind === "Service").map((o) => o.metadata.name)).toEqual([
      `${OPERATOR_NAME}-console`,
    ]);
    const [container] = podOf(objects).containers;
    expect(container?.args).toContain("--metrics-bind-address");
    expect(container?.args[container.args.indexOf("--metrics-bind-address") + 1]).toBe("0");
    expect(container?.ports?.map((p) => p.name)).toEqual(["health", "console"]);
    await expect(render({ metrics: { enabled: false, serviceMonitor: { enabled: true } } })).rejects.toThrow(
      "metrics.serviceMonitor.enabled needs metrics.enabled",
    );
  });
});

describe("the operator chart's console", () => {
  it("serves the console behind a ClusterIP Service, with the ManagementPlane navique and the viewer's ClusterRole", async () => {
    const objects = await render();
    expect(named(objects, "Service", `${OPERATOR_NAME}-console`).spec).toEqual({
      type: "ClusterIP",
      selector: { "app.kubernetes.io/name": OPERATOR_NAME, "app.kubernetes.io/component": "operator" },
      ports: [{ name: "http", port: 80, targetPort: "console", protocol: "TCP" }],
    });
    expect(one(objects, "ManagementPlane")).toMatchObject({
      apiVersion: "core.navique.com/v1alpha1",
      metadata: { name: "navique" },
      spec: { enabled: true, refreshSeconds: 30, recentEventsMinutes: 60 },
    });
    expect(named(objects, "ClusterRole", `${OPERATOR_NAME}-console-viewer`).rules).toEqual([
      { apiGroups: ["core.navique.com"], resources: ["managementplanes"], resourceNames: ["navique"], verbs: ["get"] },
    ]);
    expect(objects.filter((o) => o.kind === "Ingress")).toEqual([]);
  });

  it("renders the Ingress when asked, over TLS when given its Secret; refuses it without the console", async () => {
    const objects = await render({
      console: {
        service: { port: 8443 },
        ingress: { enabled: true, className: "nginx", host: "console.platform.example", tlsSecretName: "console-tls" },
      },
    });
    expect(one(objects, "Ingress").spec).toEqual({
      ingressClassName: "nginx",
      tls: [{ hosts: ["console.platform.example"], secretName: "console-tls" }],
      rules: [
        {
          host: "console.platform.example",
          http: {
            paths: [
              {
                path: "/",
                pathType: "Prefix",
                backend: { service: { name: `${OPERATOR_NAME}-console`, port: { name: "http" } } },
              },
            ],
          },
        },
      ],
    });
    expect(named(objects, "Service", `${OPERATOR_NAME}-console`).spec?.ports).toEqual([
      { name: "http", port: 8443, targetPort: "console", protocol: "TCP" },
    ]);
    await expect(render({ console: { enabled: false, ingress: { enabled: true } } })).rejects.toThrow(
      "console.ingress.enabled needs console.enabled",
    );
    await expect(render({ console: { ingress: { host: "Not A Host" } } })).rejects.toThrow(
      "at '/console/ingress/host'",
    );
  });

  it("turns the console off: --console-bind-address 0, no console port, Service nor viewer role; the ManagementPlane kept", async () => {
    const objects = await render({ console: { enabled: false }, managementPlane: { spec: { refreshSeconds: 0 } } });
    const [container] = podOf(objects).containers;
    expect(container?.args[container.args.indexOf("--console-bind-address") + 1]).toBe("0");
    expect(container?.ports?.map((p) => p.name)).toEqual(["metrics", "health"]);
    expect(objects.filter((o) => o.metadata.name.includes("console"))).toEqual([]);
    expect(one(objects, "ManagementPlane").spec).toEqual({ enabled: true, refreshSeconds: 0, recentEventsMinutes: 60 });
    await expect(render({ managementPlane: { spec: { refreshSeconds: -1 } } })).rejects.toThrow(
      "at '/managementPlane/spec/refreshSeconds'",
    );
    const none = await render({ managementPlane: { create: false } });
    expect(none.filter((o) => o.kind === "ManagementPlane")).toEqual([]);
  });
});

describe("the operator chart's image", () => {
  it("pins the release's image by tag and digest; a user's build replaces repository and tag and empties the digest", async () => {
    const pinned = podOf(await render()).containers[0]?.image ?? "";
    expect(pinned).toBe(`${OPERATOR_IMAGE.repository}:${OPERATOR_IMAGE.tag}@${OPERATOR_IMAGE.digest}`);
    expect(imageReference.safeParse(pinned).success).toBe(true);
    const own = await render({ image: { repository: "registry.example/platform/operator", tag: "dev-1", digest: "" } });
    expect(podOf(own).containers[0]?.image).toBe("registry.example/platform/operator:dev-1");
    const byDigest = await render({ image: { tag: "", digest: `sha256:${"b".repeat(64)}` } });
    expect(podOf(byDigest).containers[0]?.image).toBe(`${OPERATOR_IMAGE.repository}@sha256:${"b".repeat(64)}`);
    await expect(render({ image: { tag: "", digest: "" } })).rejects.toThrow(
      "image.tag and image.digest are both empty",
    );
  });
});

describe("the operator chart's NOTES.txt", () => {
  /** What `helm install` prints after installing, without a cluster (`--dry-run=client`). */
  async function notes(...args: string[]): Promise<string> {
    const { stdout } = await run(helm.binary, ["install", RELEASE, CHART, "--dry-run=client", ...args]);
    return stdout.slice(stdout.indexOf("NOTES:"));
  }

  it("says what was installed, how to check it, where the metrics are and what to do next", async () => {
    const text = await notes("--namespace", "platform-ops");
    expect(text).toContain(`in the namespace platform-ops: the Deployment ${OPERATOR_NAME}, 2 pods`);
    expect(text).toContain(`kubectl -n platform-ops rollout status deployment/${OPERATOR_NAME}`);
    expect(text).toContain(`kubectl -n platform-ops port-forward service/${OPERATOR_NAME}-metrics 8080:8080`);
    expect(text).toContain("in the namespace navique-system, created by this release and kept when it is uninstalled");
    expect(text).toContain("kind: PostgresCluster");
    expect(text).not.toContain("image.digest still pins");
  });

  it("warns when the tag or repository is the user's but the digest still the release's", async () => {
    const text = await notes("--namespace", SYSTEM_NAMESPACE, "--set", "image.tag=dev-1");
    expect(text).toContain(
      "Note: image.digest still pins the release's image while image.repository or image.tag is yours",
    );
  });
});
