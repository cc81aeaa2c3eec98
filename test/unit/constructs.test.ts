import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ApiObject, Chart, Testing } from "cdk8s";
import * as kplus from "cdk8s-plus-28";
import { parseAllDocuments } from "yaml";
import {
  fromName,
  NaviqueLicense,
  NaviqueOperator,
  PostgresCluster,
  RedisInstance,
  Stack,
} from "../../constructs/index.js";
import { buildApp } from "../../examples/cdk8s/app.js";
import { parseWatchNamespaces } from "../../lib/cli/operator-command.js";
import { run } from "../../lib/cluster/process.js";
import { allDefinitions } from "../../lib/kinds/registry.js";
import { PACKAGE_VERSION } from "../../lib/package/manifest.js";
import { OPERATOR_IMAGE } from "../../lib/package/operator-image.js";
import { EXAMPLE_APPLICATIONS, EXAMPLE_DATASTORES, EXAMPLE_SECRETS } from "../support/example-cluster.js";
import { TEST_TRUSTED_KEYS, testLicenceToken } from "../support/licence.js";
import { deploymentAmong } from "../support/rendered-deployment.js";
import { REPOSITORY } from "../support/repository.js";
import { synthProblems } from "../support/synth-problems.js";

describe("the PostgresCluster construct", () => {
  it("synthesizes the custom resource as written, leaving its defaults to the CRD", () => {
    const chart = Testing.chart();
    new PostgresCluster(chart, "main", { namespace: "team-a", spec: { databases: [{ name: "litellm" }] } });
    // `type` and `mode` are the CRD's to default (test/cluster/registry-crds.test.ts: as the schema does).
    expect(Testing.synth(chart)).toEqual([
      {
        apiVersion: "core.navique.com/v1alpha1",
        kind: "PostgresCluster",
        metadata: { name: "main", namespace: "team-a" },
        spec: { databases: [{ name: "litellm" }] },
      },
    ]);
  });

  it("refuses bad props at synth time, naming the construct path, the field and what to write", () => {
    const chart = Testing.chart();
    // Construction records the problems; synth reports them.
    new PostgresCluster(chart, "main", { spec: { mode: "adopt", databases: [{ name: "Bad" }] } });
    expect(synthProblems(chart)).toEqual([
      "[test/main] PostgresCluster spec.databases[0].name: must be a PostgreSQL identifier: lowercase letters, digits and '_', starting with a letter or '_', at most 63 characters (received \"Bad\")",
      "[test/main] PostgresCluster spec.adopt: spec.adopt is required when spec.mode is adopt: set spec.adopt.clusterRef and spec.adopt.credentialsSecretRef",
    ]);
  });

  it("refuses an id that is not a Kubernetes name unless a name is given", () => {
    const chart = Testing.chart();
    new PostgresCluster(chart, "Main_DB", { spec: {} });
    new PostgresCluster(chart, "Main_DB2", { name: "main-db", spec: {} });
    expect(synthProblems(chart)).toEqual([
      expect.stringMatching(
        /^\[test\/Main_DB\] PostgresCluster name: must be a lowercase RFC 1123 name.*\(received "Main_DB"\)$/,
      ),
    ]);
  });

  it("refuses, at synth, a backend type the kind declares but does not implement, with the operator's message", () => {
    const chart = Testing.chart();
    new PostgresCluster(chart, "zalando", { namespace: "team", spec: { type: "zalando" } });
    new PostgresCluster(chart, "cockroach", { namespace: "team", spec: { type: "cockroachdb" } });
    expect(synthProblems(chart)).toEqual([
      "[test/zalando] PostgresCluster spec.type zalando is not implemented yet; use type: cnpg (CloudNativePG)",
      "[test/cockroach] PostgresCluster spec.type cockroachdb is not implemented yet; use type: cnpg (CloudNativePG)",
    ]);
  });
});

describe("the NaviqueOperator construct", () => {
  it("installs the generated CRDs, the system namespace, RBAC and the operator Deployment", () => {
    const chart = Testing.chart();
    new NaviqueOperator(chart, "operator", { chartSource: "oci://registry.example/charts" });
    const objects = Testing.synth(chart) as {
      kind: string;
      metadata: { name: string };
      spec?: { template?: { spec?: { containers?: { args?: string[] }[] } } };
    }[];
    // One CRD per kind of the registry, the licence singleton's first.
    const crds = allDefinitions().map((d) => `CustomResourceDefinition/${d.plural}.core.navique.com`);
    expect(crds.slice(0, 2)).toEqual([
      "CustomResourceDefinition/licenses.core.navique.com",
      "CustomResourceDefinition/postgresclusters.core.navique.com",
    ]);
    expect(objects.map((o) => `${o.kind}/${o.metadata.name}`)).toEqual([
      ...crds,
      "Namespace/navique-system",
      "ServiceAccount/navique-ai-core-operator",
      "ClusterRole/navique-ai-core-operator",
      "ClusterRoleBinding/navique-ai-core-operator",
      "Role/navique-ai-core-operator",
      "RoleBinding/navique-ai-core-operator",
      "Deployment/navique-ai-core-operator",
      "Service/navique-ai-core-operator-metrics",
      "Service/navique-ai-core-operator-console",
      "ManagementPlane/navique",
      "ClusterRole/navique-ai-core-operator-console-viewer",
      "PodDisruptionBudget/navique-ai-core-operator",
    ]);
    const deployment = objects[crds.length + 6];
    expect(deployment?.spec?.template?.spec?.containers?.[0]?.args).toEqual([
      "operator",
      "--resync",
      "30",
      "--chart-source",
      "oci://registry.example/charts",
      "--metrics-bind-address",
      ":8080",
      "--health-probe-bind-address",
      ":8081",
      "--console-bind-address",
      ":8082",
    ]);
  });

  it("probes /healthz and /readyz on the port health and exposes the port metrics by the Service <name>-metrics, as the chart does", () => {
    const chart = Testing.chart();
    new NaviqueOperator(chart, "operator", {});
    const objects = Testing.synth(chart) as {
      kind: string;
      metadata: { name: string };
      spec: Record<string, unknown>;
    }[];
    const [container] = deploymentAmong(objects).spec.template.spec.containers as {
      ports?: unknown;
      livenessProbe?: unknown;
      readinessProbe?: unknown;
    }[];
    expect(container?.ports).toEqual([
      { name: "metrics", containerPort: 8080, protocol: "TCP" },
      { name: "health", containerPort: 8081, protocol: "TCP" },
      { name: "console", containerPort: 8082, protocol: "TCP" },
    ]);
    expect(container?.livenessProbe).toMatchObject({ httpGet: { path: "/healthz", port: "health" } });
    expect(container?.readinessProbe).toMatchObject({ httpGet: { path: "/readyz", port: "health" } });
    const service = objects.find((o) => o.kind === "Service");
    expect(service?.metadata.name).toBe("navique-ai-core-operator-metrics");
    expect(service?.spec.ports).toEqual([{ name: "metrics", port: 8080, targetPort: "metrics", protocol: "TCP" }]);
  });

  it("runs in the namespace given, its Role on the Leases and its binding staying in navique-system", () => {
    const chart = Testing.chart();
    new NaviqueOperator(chart, "operator", { namespace: "platform-ops" });
    const objects = Testing.synth(chart) as {
      kind: string;
      metadata: { name: string; namespace?: string };
      subjects?: unknown[];
    }[];
    const where = objects
      .filter((o) => o.kind !== "CustomResourceDefinition")
      .map((o) => `${o.kind} ${o.metadata.namespace ?? ""}/${o.metadata.name}`);
    expect(where).toEqual([
      "Namespace /navique-system",
      "ServiceAccount platform-ops/navique-ai-core-operator",
      "ClusterRole /navique-ai-core-operator",
      "ClusterRoleBinding /navique-ai-core-operator",
      "Role navique-system/navique-ai-core-operator",
      "RoleBinding navique-system/navique-ai-core-operator",
      "Deployment platform-ops/navique-ai-core-operator",
      "Service platform-ops/navique-ai-core-operator-metrics",
      "Service platform-ops/navique-ai-core-operator-console",
      "ManagementPlane /navique",
      "ClusterRole /navique-ai-core-operator-console-viewer",
      "PodDisruptionBudget platform-ops/navique-ai-core-operator",
    ]);
    const subjects = [{ kind: "ServiceAccount", name: "navique-ai-core-operator", namespace: "platform-ops" }];
    expect(objects.find((o) => o.kind === "RoleBinding")?.subjects).toEqual(subjects);
    expect(objects.find((o) => o.kind === "ClusterRoleBinding")?.subjects).toEqual(subjects);
  });

  it("with one replica renders no PodDisruptionBudget nor anti-affinity; refuses a namespace or a count it cannot run with", () => {
    const chart = Testing.chart();
    new NaviqueOperator(chart, "operator", { replicas: 1 });
    const objects = Testing.synth(chart) as { kind: string }[];
    expect(objects.filter((o) => o.kind === "PodDisruptionBudget")).toEqual([]);
    expect((deploymentAmong(objects).spec.template.spec as { affinity?: unknown }).affinity).toBeUndefined();
    const bad = Testing.chart();
    new NaviqueOperator(bad, "operator", { replicas: 0, namespace: "Ops" });
    expect(synthProblems(bad)).toEqual([
      expect.stringMatching(
        /^\[test\/operator\] NaviqueOperator namespace: must be a lowercase RFC 1123 label.*\(received "Ops"\)$/,
      ),
      expect.stringMatching(/^\[test\/operator\] NaviqueOperator replicas: .*\(received 0\)$/),
    ]);
  });
});

describe("references between constructs", () => {
  /** The kind/namespace/name of every object the app writes, in the order it writes them. */
  const written = (app: ReturnType<typeof Testing.app>) =>
    parseAllDocuments(app.synthYaml()).map((d) => {
      const o = d.toJSON() as { kind: string; metadata: { name: string; namespace?: string } };
      return `${o.kind} ${o.metadata.namespace}/${o.metadata.name}`;
    });

  it("take a construct where a spec names an object, writing its name (and namespace when another) and it first", () => {
    const app = Testing.app();
    const platform = new Chart(app, "platform", { namespace: "apps" });
    const secrets = new Chart(app, "secrets", { namespace: "vault" });
    // cdk8s-plus's Secret, its name generated: the reference follows it.
    const connection = new kplus.Secret(secrets, "connection");
    const sameNamespace = new kplus.Secret(platform, "local");
    const db = new PostgresCluster(platform, "db", {
      spec: { mode: "external", external: { connectionSecretRef: { ref: connection, key: "uri" } } },
      grantedInCluster: true,
    });
    new PostgresCluster(platform, "other", {
      spec: { mode: "external", external: { connectionSecretRef: sameNamespace } },
    });
    const objects = (Testing.synth(platform) as { metadata: { name: string }; spec?: unknown }[]).map((o) => o.spec);
    expect(objects).toContainEqual(
      expect.objectContaining({
        external: { connectionSecretRef: { name: connection.name, namespace: "vault", key: "uri" } },
      }),
    );
    expect(objects).toContainEqual(
      expect.objectContaining({ external: { connectionSecretRef: { name: sameNamespace.name } } }),
    );
    // The secrets chart, declared after the platform's, is written before it: its Secret is depended on;
    // in a chart, what is referenced comes before its referrer.
    const order = written(app);
    expect(order[0]).toBe(`Secret vault/${connection.name}`);
    expect(order.indexOf(`Secret apps/${sameNamespace.name}`)).toBeLessThan(
      order.indexOf("PostgresCluster apps/other"),
    );
    expect(order).toHaveLength(4);
    // The construct is its API object: it depends on the Secret's.
    expect(db.node.dependencies.map((d) => d.node.path)).toEqual([ApiObject.of(connection).node.path]);
  });

  it("without one, keeps the declaration order; a ref that is no construct is refused naming the field", () => {
    const app = Testing.app();
    const platform = new Chart(app, "platform", { namespace: "apps" });
    const secrets = new Chart(app, "secrets", { namespace: "apps" });
    new kplus.Secret(secrets, "connection");
    new PostgresCluster(platform, "db", {
      spec: { mode: "external", external: { connectionSecretRef: fromName("made-by-hand") } },
    });
    expect(written(app).map((line) => line.split(" ")[0])).toEqual(["PostgresCluster", "Secret"]);
    expect(Testing.synth(platform)).toContainEqual(
      expect.objectContaining({
        spec: expect.objectContaining({ external: { connectionSecretRef: { name: "made-by-hand" } } }),
      }),
    );
    new PostgresCluster(platform, "bad", {
      spec: { mode: "external", external: { connectionSecretRef: { ref: "pg-conn" } as never } },
    });
    expect(synthProblems(app)).toEqual([
      '[platform/bad] PostgresCluster spec.external.connectionSecretRef: ref takes a construct of the kind the field references (a Secret); to name one outside the app, write fromName(name, namespace?) or { name } instead of { ref } (received ref: "pg-conn")',
    ]);
  });
});

describe("the NaviqueOperator construct's image and chart mirror", () => {
  const deploymentOf = (props: ConstructorParameters<typeof NaviqueOperator>[2]) => {
    const chart = Testing.chart();
    new NaviqueOperator(chart, "operator", props);
    return deploymentAmong(Testing.synth(chart)).spec.template.spec;
  };

  it("runs the release's image, pinned by tag and digest, as the package's version", () => {
    expect(OPERATOR_IMAGE.tag).toBe(PACKAGE_VERSION);
    expect(OPERATOR_IMAGE.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(OPERATOR_IMAGE.digest).not.toMatch(/^sha256:0+$/);
    expect(deploymentOf({})?.containers[0]?.image).toBe(
      `ghcr.io/navique/navique-ai-core-operator:${PACKAGE_VERSION}@${OPERATOR_IMAGE.digest}`,
    );
    expect(
      deploymentOf({ image: `registry.local:5000/mirror/operator:1.2@sha256:${"a".repeat(64)}` })?.containers[0]?.image,
    ).toBe(`registry.local:5000/mirror/operator:1.2@sha256:${"a".repeat(64)}`);
    expect(() => deploymentOf({ image: "Registry/Operator:latest" })).toThrow(
      "[test/operator] NaviqueOperator image: must be an image reference: REGISTRY/PATH:TAG, optionally pinned with @sha256:<64 hex digits>",
    );
  });

  it("requests what the operator was measured to hold, limits its memory, and takes other resources whole", () => {
    expect(deploymentOf({}).containers[0]?.resources).toEqual({
      requests: { cpu: "100m", memory: "256Mi" },
      limits: { memory: "512Mi" },
    });
    const given = { requests: { cpu: "1", memory: "1Gi" } };
    expect(deploymentOf({ resources: given }).containers[0]?.resources).toEqual(given);
    expect(() => deploymentOf({ resources: { limits: { memory: "lots" } } })).toThrow(
      '[test/operator] NaviqueOperator resources.limits.memory: must be a Kubernetes quantity such as "100m" (CPU) or "256Mi" (memory) (received "lots")',
    );
  });

  it("mounts a dir: chart source's volume read-only at its path, and refuses one without the other", () => {
    const volume = { persistentVolumeClaim: { claimName: "chart-mirror" } };
    const spec = deploymentOf({ chartSource: "dir:/charts", chartMirrorVolume: volume });
    expect(spec?.volumes).toContainEqual({ name: "chart-mirror", ...volume });
    expect(spec?.containers[0]?.volumeMounts).toContainEqual({
      name: "chart-mirror",
      mountPath: "/charts",
      readOnly: true,
    });
    expect(deploymentOf({})?.volumes?.map((v) => v.name)).toEqual(["tmp", "home"]);
    expect(() => deploymentOf({ chartSource: "dir:/charts" })).toThrow(
      "chartMirrorVolume: chartSource dir:/charts is read inside the operator's pod: give the volume holding the packaged charts",
    );
    expect(() => deploymentOf({ chartMirrorVolume: volume })).toThrow(
      "chartMirrorVolume: only a dir: chart source is read from a volume; this one is official",
    );
    expect(() => deploymentOf({ chartSource: "s3://bucket" })).toThrow(
      'chartSource: chart source "s3://bucket" is not understood',
    );
  });
});

describe("the NaviqueOperator construct's namespace scope", () => {
  it("passes --watch-namespaces, and refuses a name that is not a namespace", () => {
    const chart = Testing.chart();
    new NaviqueOperator(chart, "operator", { watchNamespaces: ["team-a", "team-b"] });
    expect(deploymentAmong(Testing.synth(chart)).spec.template.spec.containers[0]?.args).toEqual([
      "operator",
      "--resync",
      "30",
      "--watch-namespaces",
      "team-a,team-b",
      "--metrics-bind-address",
      ":8080",
      "--health-probe-bind-address",
      ":8081",
      "--console-bind-address",
      ":8082",
    ]);
    const bad = Testing.chart();
    new NaviqueOperator(bad, "operator", { watchNamespaces: ["Team_A"] });
    expect(synthProblems(bad)).toEqual([
      expect.stringMatching(
        /^\[test\/operator\] NaviqueOperator watchNamespaces\[0\]: must be a lowercase RFC 1123 label.*\(received "Team_A"\)$/,
      ),
    ]);
  });
});

describe("--watch-namespaces", () => {
  it("reads a comma-separated list; empty means every namespace; a bad name is named", () => {
    expect(parseWatchNamespaces("team-a, team-b")).toEqual(["team-a", "team-b"]);
    expect(parseWatchNamespaces("")).toBeUndefined();
    expect(parseWatchNamespaces(undefined)).toBeUndefined();
    expect(() => parseWatchNamespaces("team-a,Team_B")).toThrow(
      /--watch-namespaces is invalid:\n {2}- \[1\]: must be a lowercase RFC 1123 label.*\(received "Team_B"\)/s,
    );
  });
});

describe("the cdk8s example", () => {
  it("runs with cdk8s-cli from its cdk8s.yaml, writing what the app synthesizes in-process", async () => {
    const [cli, direct] = await Promise.all([
      mkdtemp(join(tmpdir(), "navique-synth-cli-")),
      mkdtemp(join(tmpdir(), "navique-synth-")),
    ]);
    try {
      // --check-upgrade false: cdk8s-cli would otherwise ask the internet for a newer version of itself.
      await run("npx", ["--no-install", "cdk8s", "synth", "--check-upgrade", "false", "--output", cli], {
        cwd: join(REPOSITORY, "examples", "cdk8s"),
      });
      buildApp(direct).synth();
      const [fromCli, fromApp] = await Promise.all(
        [cli, direct].map((dir) => readFile(join(dir, "navique-example.yaml"), "utf8")),
      );
      expect(fromCli).toContain("kind: PostgresCluster");
      expect(fromCli).toBe(fromApp);
    } finally {
      await Promise.all([cli, direct].map((dir) => rm(dir, { recursive: true, force: true })));
    }
  });

  it("synthesizes byte-identical output on every run", async () => {
    const dirs = await Promise.all([
      mkdtemp(join(tmpdir(), "navique-synth-")),
      mkdtemp(join(tmpdir(), "navique-synth-")),
    ]);
    try {
      for (const dir of dirs) buildApp(dir).synth();
      const [first, second] = await Promise.all(dirs.map(async (dir) => (await readdir(dir)).sort()));
      expect(first).toEqual(["navique-example.yaml"]);
      expect(second).toEqual(first);
      const [a, b] = await Promise.all(dirs.map((dir) => readFile(join(dir, "navique-example.yaml"), "utf8")));
      expect(a).toBe(b);
      // Every datastore of the platform, in the namespace of what uses it, its SecretsManagement, the
      // applications, then the grants LibreChat and chat-db reach across namespaces under — each after
      // what it references (cdk8s orders the constructs a reference names first).
      const resources = parseAllDocuments(a ?? "")
        .map((d) => d.toJSON() as { apiVersion: string; kind: string; metadata: { name: string; namespace?: string } })
        .filter((o) => o.apiVersion === "core.navique.com/v1alpha1")
        .map((o) => `${o.kind} ${o.metadata.namespace}/${o.metadata.name}`);
      expect([...resources].sort()).toEqual(
        [
          ...EXAMPLE_DATASTORES,
          EXAMPLE_SECRETS,
          ...EXAMPLE_APPLICATIONS,
          "ReferenceGrant navique-example-platform/navique-example-apps",
          "ReferenceGrant navique-example-data/navique-example-apps",
          // The operator's own: the console's settings, cluster-scoped.
          "ManagementPlane undefined/navique",
        ].sort(),
      );
      const comesBefore = (a: string, b: string) => expect(resources.indexOf(a)).toBeLessThan(resources.indexOf(b));
      comesBefore(
        "PostgresCluster navique-example-platform/platform-db",
        "Observability navique-example-platform/langfuse",
      );
      comesBefore("Observability navique-example-platform/langfuse", "Gateway navique-example-platform/llm");
      comesBefore("Gateway navique-example-platform/llm", "ChatUI navique-example-apps/librechat");
      comesBefore("MongoCluster navique-example-apps/librechat-mongo", "ChatUI navique-example-apps/librechat");
      // No credential is ever inlined in synthesized YAML.
      expect(a).not.toMatch(/^\s*(password|stringData):/m);
    } finally {
      await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
    }
  });
});

describe("synth-time licence checks", () => {
  it("refuses, at synth, the PostgresClusters beyond the Community cap, in declaration order", () => {
    const app = Testing.app();
    const chart = new Chart(app, "platform");
    for (const name of ["a", "b", "c"]) new PostgresCluster(chart, name, { namespace: "team", spec: {} });
    expect(() => app.synth()).toThrow(
      "[platform/c] PostgresCluster team/c is refused: the Community edition allows 2 PostgresCluster instance(s) and 2 come before it (admitted earlier or created first); nothing was created for it.",
    );
  });

  it("judges by the app's licence, and reports a bad one with its reason", () => {
    const app = Testing.app();
    const chart = new Chart(app, "platform");
    const license = new NaviqueLicense(chart, "licence", { token: "nvq1.unknown.e30.AAAA" });
    expect(license.entitlements).toMatchObject({
      edition: "Community",
      reason: expect.stringContaining("unknown-key"),
    });
    for (const name of ["a", "b"]) new PostgresCluster(chart, name, { namespace: "team", spec: {} });
    expect(Testing.synth(chart).map((o: { kind: string }) => o.kind)).toEqual([
      "License",
      "PostgresCluster",
      "PostgresCluster",
    ]);
  });

  it("refuses, at synth, a Stack the licence does not cover, naming the feature and how to get it", () => {
    const app = Testing.app();
    const chart = new Chart(app, "platform");
    new Stack(chart, "team", { namespace: "ai" });
    expect(() => app.synth()).toThrow(
      '[platform/team] Stack ai/team uses feature "stack", which the Community edition does not include; it is skipped. To use it, ask your navique account contact for a licence that includes it, then apply it as the License named `navique`',
    );
  });
});

describe("synth-time licence checks of a Stack under a licence that has `stack`", () => {
  const licensed = (chart: Chart, caps: Record<string, number>) =>
    new NaviqueLicense(chart, "licence", {
      token: testLicenceToken({ features: ["stack"], caps }),
      trustedKeys: TEST_TRUSTED_KEYS,
    });

  it("synthesizes the License and the Stack; the Stack's member counts against the PostgresCluster cap", () => {
    const app = Testing.app();
    const chart = new Chart(app, "platform");
    licensed(chart, { Stack: 1, PostgresCluster: 2 });
    new Stack(chart, "team", { namespace: "ai" });
    new PostgresCluster(chart, "own", { namespace: "ai", spec: {} });
    expect(Testing.synth(chart).map((o: { kind: string }) => o.kind)).toEqual(["License", "Stack", "PostgresCluster"]);

    // A third PostgresCluster: the Stack's member came first, so this one is beyond the cap of 2.
    new PostgresCluster(chart, "extra", { namespace: "ai", spec: {} });
    expect(() => app.synth()).toThrow(
      "[platform/extra] PostgresCluster ai/extra is refused: licence lic-test allows 2 PostgresCluster instance(s) and 2 come before it",
    );
  });

  it("reports a Stack beyond the Stack cap, and a Stack whose member would be beyond the PostgresCluster cap", () => {
    const app = Testing.app();
    const chart = new Chart(app, "platform");
    licensed(chart, { Stack: 1, PostgresCluster: 1 });
    new PostgresCluster(chart, "own", { namespace: "ai", spec: {} });
    new Stack(chart, "first", { namespace: "ai" });
    new Stack(chart, "second", { namespace: "ai" });
    let message = "";
    try {
      app.synth();
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain(
      "[platform/first] Stack ai/first: its member would be refused: PostgresCluster ai/first-postgres is refused: licence lic-test allows 1 PostgresCluster instance(s) and 1 come before it",
    );
    expect(message).toContain(
      "[platform/second] Stack ai/second is refused: licence lic-test allows 1 Stack instance(s) and 1 come before it",
    );
  });
});

describe("the Stack construct", () => {
  it("renders the Stack custom resource as written, leaving the curated defaults to the CRD", () => {
    const chart = Testing.chart();
    const stack = new Stack(chart, "team", {
      namespace: "ai",
      spec: { postgres: { databases: [{ name: "litellm" }] } },
    });
    // The object itself: synthesizing the chart would (rightly) fail without a licence that has `stack`.
    expect(stack.apiObject.toJson()).toEqual({
      apiVersion: "core.navique.com/v1alpha1",
      kind: "Stack",
      metadata: { name: "team", namespace: "ai" },
      spec: { postgres: { databases: [{ name: "litellm" }] } },
    });
  });

  it("refuses bad props with the construct path and the field", () => {
    const chart = Testing.chart();
    new Stack(chart, "team", { spec: { postgres: { managed: { instances: 12 } } } });
    new Stack(chart, "a-very-long-stack-name-that-leaves-no-room");
    expect(synthProblems(chart)).toEqual([
      "[test/team] Stack spec.postgres.managed.instances: must be <= 9 (received 12)",
      expect.stringMatching(
        /^\[test\/a-very-long-stack-name-that-leaves-no-room\] Stack name: a Stack name has at most 41 characters, received 42: /,
      ),
    ]);
  });
});

describe("cluster-scoped objects in a chart with a namespace", () => {
  it("carry no namespace (cdk8s would give them the chart's); namespaced ones keep theirs", () => {
    const app = Testing.app();
    const chart = new Chart(app, "apps", { namespace: "apps" });
    new NaviqueOperator(chart, "operator");
    new NaviqueLicense(chart, "licence", { token: testLicenceToken({}), trustedKeys: TEST_TRUSTED_KEYS });
    new PostgresCluster(chart, "db", { spec: { databases: [{ name: "app" }] } });
    const where = Object.fromEntries(
      Testing.synth(chart).map((o) => [`${o.kind}/${o.metadata.name}`, o.metadata.namespace ?? "(none)"]),
    );
    const clusterScoped = Object.entries(where).filter(([key]) =>
      /^(CustomResourceDefinition|Namespace|ClusterRole|ClusterRoleBinding|License|ManagementPlane)\//.test(key),
    );
    // The CRDs, the system namespace, the operator's ClusterRole and binding, the console viewer's
    // ClusterRole, the ManagementPlane and the License.
    expect(clusterScoped.length).toBe(allDefinitions().length + 6);
    expect(clusterScoped.filter(([, namespace]) => namespace !== "(none)")).toEqual([]);
    expect(where).toMatchObject({
      "ServiceAccount/navique-ai-core-operator": "navique-system",
      "Role/navique-ai-core-operator": "navique-system",
      "RoleBinding/navique-ai-core-operator": "navique-system",
      "Deployment/navique-ai-core-operator": "navique-system",
      "PostgresCluster/db": "apps",
    });
  });
});

describe("validation at synth, in the manner of cdk8s's App", () => {
  it("GIVEN three bad constructs in two charts WHEN the app is synthesized THEN one error names each path and its fields", () => {
    const app = Testing.app();
    const platform = new Chart(app, "platform", { namespace: "apps" });
    const ops = new Chart(app, "ops");
    // Each is constructed without a throw: its problems wait for synth, with every other construct's.
    new PostgresCluster(platform, "orders", { spec: { databases: [{ name: "Orders" }], managed: { instances: 0 } } });
    new PostgresCluster(platform, "fine", { spec: {} });
    new RedisInstance(platform, "cache", { spec: { managed: { sentinel: true } } });
    new NaviqueOperator(ops, "operator", { image: "Registry/Operator:latest", watchNamespaces: ["Team_A"] });
    let message: string | undefined;
    try {
      app.synth();
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toBe(
      [
        "Validation failed with the following errors:",
        `  [platform/orders] PostgresCluster spec.databases[0].name: must be a PostgreSQL identifier: lowercase letters, digits and '_', starting with a letter or '_', at most 63 characters (received "Orders")`,
        "  [platform/orders] PostgresCluster spec.managed.instances: must be >= 1 (received 0)",
        "  [platform/cache] RedisInstance spec.managed.sentinel: spec.managed.sentinel needs spec.managed.topology: replication (Sentinels watch a master and its replicas)",
        '  [ops/operator] NaviqueOperator image: must be an image reference: REGISTRY/PATH:TAG, optionally pinned with @sha256:<64 hex digits> (received "Registry/Operator:latest")',
        `  [ops/operator] NaviqueOperator watchNamespaces[0]: must be a lowercase RFC 1123 label: letters, digits and '-', starting and ending with a letter or digit (received "Team_A")`,
      ].join("\n"),
    );
  });

  it("GIVEN a second NaviqueOperator in the app WHEN synthesized THEN it is refused, naming both paths", () => {
    const app = Testing.app();
    new NaviqueOperator(new Chart(app, "system"), "operator");
    new NaviqueOperator(new Chart(app, "apps"), "operator-again");
    expect(synthProblems(app.charts[0] as Chart)).toEqual([
      "[apps/operator-again] NaviqueOperator: the operator is already installed by the NaviqueOperator at system/operator, and there is one operator per cluster (both would write the same CRDs, namespace, RBAC and Deployment): remove the NaviqueOperator at apps/operator-again",
    ]);
  });
});

describe("a PostgresCluster in a chart whose namespace is no namespace name", () => {
  it("is refused at synth, naming the namespace it would land in", () => {
    const app = Testing.app();
    new PostgresCluster(new Chart(app, "platform", { namespace: "Team_A" }), "db", { spec: {} });
    expect(synthProblems(app.charts[0] as Chart)).toEqual([
      expect.stringMatching(
        /^\[platform\/db\] PostgresCluster metadata\.namespace: must be a lowercase RFC 1123 label.*\(received "Team_A"\)$/,
      ),
    ]);
  });
});
