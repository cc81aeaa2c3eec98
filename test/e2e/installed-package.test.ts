import { spawn } from "node:child_process";
import { copyFile, mkdir, mkdtemp, readFile, rename, rm, writeFile } from "node:fs/promises";
import { isBuiltin } from "node:module";
import { homedir, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import ts from "typescript";
import { parse, parseAllDocuments } from "yaml";
import { operatorChartFiles } from "../../constructs/operator-chart.js";
import { OPERATOR_NAME, SYSTEM_NAMESPACE } from "../../lib/api/group.js";
import type { KubeClient } from "../../lib/cluster/kube-client.js";
import { run, runUnchecked } from "../../lib/cluster/process.js";
import { allCustomResourceDefinitions } from "../../lib/kinds/registry.js";
import { cacheRoot } from "../../lib/local-plane/paths.js";
import { pulumiEnvironment } from "../../lib/local-plane/pulumi-environment.js";
import { TOOLCHAIN } from "../../lib/local-plane/toolchain.js";
import { toolchainPaths } from "../../lib/local-plane/toolchain-paths.js";
import { PACKAGE_VERSION } from "../../lib/package/manifest.js";
import { operatorClusterRules, policyRules } from "../../lib/package/operator-rbac.js";
import { createReconcileContext, type ReconcileContext } from "../../lib/reconcile/context.js";
import {
  CAPABILITY_SUITE_SETUP_MS,
  FIXTURE_SOURCE,
  lockCapabilities,
  testClient,
  testHelm,
} from "../support/capabilities.js";
import { eventually } from "../support/cluster.js";
import { suiteNamespaces } from "../support/namespace-content.js";
import { readPostgresCluster } from "../support/postgres.js";
import { readmeBlocks } from "../support/readme-projects.js";
import { REPOSITORY } from "../support/repository.js";
import {
  installScratchProject,
  type PackedPackage,
  packPackageReport,
  writeJavaScriptProgram,
} from "../support/scratch-project.js";
import { outputContains } from "../support/two-operators.js";
import { USER_DEPENDENCIES, USER_PROJECT_FILES } from "../support/user-project.js";

/**
 * The package's size, packed and unpacked: what was measured when the tarball was trimmed to what users
 * run (docs/performance.md, "The package"), plus about 15%. A tarball past a bound has grown by more than
 * a module or two: a map, a builder or a copy of a dependency coming back.
 */
const PACKED_BYTES_BOUND = 2_100_000;
const UNPACKED_BYTES_BOUND = 10_350_000;

/** Every string a JSON document holds, keys and values. */
function strings(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.flatMap(strings);
  if (value && typeof value === "object") return Object.entries(value).flatMap(([k, v]) => [k, ...strings(v)]);
  return [];
}

// The package as a platform engineer gets it: packed as npm publishes it, installed into a project of
// its own outside the repository (from npm's cache, no registry), and used through the real CLIs — the
// package's bin, cdk8s-cli's synth, and Pulumi's plain Node.js language host on compiled JavaScript
// (no tsx, no import of the package's insides).
describe("the package installed in a project of its own", () => {
  let client: KubeClient;
  let work = "";
  let project = "";
  let tarball = "";
  let packed: PackedPackage | undefined;
  let namespace = "";
  let context: ReconcileContext | undefined;
  const namespaces = suiteNamespaces();
  let unlock: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), "navique-user-"));
    project = join(work, "project");
    await mkdir(join(work, "pkg"));
    await mkdir(project);
    packed = await packPackageReport(join(work, "pkg"));
    tarball = packed.tarball;
    // @pulumi/kubernetes beside what the README's project installs: for the program that passes a Provider.
    await installScratchProject(project, tarball, [...USER_DEPENDENCIES, "@pulumi/kubernetes"]);
    for (const [file, content] of Object.entries(USER_PROJECT_FILES)) await writeFile(join(project, file), content);
    await run("npx", ["--no-install", "tsc"], { cwd: project });
    // The PostgresCluster counts against the cluster-wide caps other suites' resources fill.
    unlock = await lockCapabilities();
    client = testClient();
    context = createReconcileContext({ client, helm: await testHelm(), source: FIXTURE_SOURCE });
    namespace = await namespaces.create("user-project");
  }, CAPABILITY_SUITE_SETUP_MS);

  afterAll(async () => {
    // A run that failed midway may leave the PostgresCluster, with its finalizer: finalized first.
    if (context) await namespaces.discard(context);
    await unlock?.();
    if (work) await rm(work, { recursive: true, force: true });
  });

  it("ships compiled JavaScript with declarations and the bundled bin, nothing of tests or sources", async () => {
    const files = (await run("tar", ["-tzf", tarball])).stdout.split("\n").filter(Boolean);
    expect(files).toEqual(
      expect.arrayContaining([
        "package/package.json",
        "package/dist/navique.js",
        "package/dist/lib/index.js",
        "package/dist/lib/index.d.ts",
        "package/dist/providers/pulumi/index.d.ts",
        "package/dist/providers/pulumi/runtime.js",
        "package/dist/constructs/index.d.ts",
      ]),
    );
    expect(files.filter((f) => /(^|\/)(test|fixtures|bench|examples)\//.test(f))).toEqual([]);
    expect(files.filter((f) => f.endsWith(".ts") && !f.endsWith(".d.ts"))).toEqual([]);
  });

  it("holds only what users run: no source map, no builder, no module a bundle replaces, within its size bounds", async () => {
    const files = (packed?.files ?? []).map((f) => f.path);
    expect(files).toContain("dist/navique.js");
    // No map: one with its sources would ship the sources twice over, one without is no use to a user
    // (docs/adr/0019-installable-package.md).
    expect(files.filter((f) => f.endsWith(".map"))).toEqual([]);
    // The builders are the repository's: the local toolchain (Kubernetes, etcd, kwok and helm from Go), the
    // operator's image, the generators of the chart and the docs, the build's own last step.
    expect(
      files.filter((f) =>
        /^dist\/(lib\/local-plane\/|providers\/operator\/|lib\/docs\/generate-|constructs\/generate-|lib\/package\/prune-dist)/.test(
          f,
        ),
      ),
    ).toEqual([]);
    // tsc's modules of the CLI and of the Pulumi front end: the bundles replace them.
    expect(files.filter((f) => f.startsWith("dist/lib/cli/"))).toEqual([]);
    expect(
      files
        .filter(
          (f) =>
            f.startsWith("dist/providers/pulumi/") &&
            f.endsWith(".js") &&
            !f.startsWith("dist/providers/pulumi/chunks/"),
        )
        .sort(),
    ).toEqual([
      "dist/providers/pulumi/entry.js",
      "dist/providers/pulumi/index.js",
      "dist/providers/pulumi/runtime-entry.js",
      "dist/providers/pulumi/runtime.js",
    ]);
    // Nor inside the bundled CLI: none of the toolchain's Go modules is named there.
    const installed = join(project, "node_modules", "@navique", "ai-core");
    const bin = await readFile(join(installed, "dist", "navique.js"), "utf8");
    const goModules = TOOLCHAIN.flatMap((recipe) => recipe.require.map(([module]) => module));
    expect(goModules.filter((module) => bin.includes(module))).toEqual([]);
    // The packages the shipped modules import are those npm installs beside the package, no more: what a
    // bundle carries inside it (p-map, prom-client in the CLI) is a devDependency.
    const imported = new Set<string>();
    for (const file of files.filter((f) => f.endsWith(".js"))) {
      for (const { fileName } of ts.preProcessFile(await readFile(join(installed, file), "utf8"), true, true)
        .importedFiles) {
        if (fileName.startsWith(".") || isBuiltin(fileName)) continue;
        imported.add(
          fileName
            .split("/")
            .slice(0, fileName.startsWith("@") ? 2 : 1)
            .join("/"),
        );
      }
    }
    const manifest = JSON.parse(await readFile(join(installed, "package.json"), "utf8")) as Record<
      "dependencies" | "peerDependencies",
      Record<string, string>
    >;
    expect([...imported].sort()).toEqual(
      Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies }).sort(),
    );
    expect(packed?.size).toBeLessThan(PACKED_BYTES_BOUND);
    expect(packed?.unpackedSize).toBeLessThan(UNPACKED_BYTES_BOUND);
  });

  it("navique up with no cluster configured says how to point it at one, in one line: the installed CLI builds no local control plane", async () => {
    const home = join(work, "home-without-cluster");
    await mkdir(home);
    // No kubeconfig anywhere, not in a pod, and neither helm nor go on PATH: nothing is built or started.
    const env = { HOME: home, PATH: dirname(process.execPath), LANG: "C.UTF-8" };
    const bin = join(project, "node_modules", ".bin", "navique");
    const up = await runUnchecked(process.execPath, [bin, "up"], { cwd: project, env });
    expect({ code: up.code, stdout: up.stdout, stderr: up.stderr.trim().split("\n") }).toEqual({
      code: 1,
      stdout: "",
      stderr: [
        `navique: no cluster configured: no --kubeconfig, no $KUBECONFIG, no ${join(home, ".kube", "config")}, and not inside a pod. Point navique at a cluster with --kubeconfig PATH or KUBECONFIG=PATH (for one on this machine: kind create cluster); the built-in local control plane comes with the source repository (npm start there), not with the installed package`,
      ],
    });
    // A kubeconfig that is not there: the installed CLI offers the ambient kubeconfig, not a plane it lacks.
    const missing = join(home, "nowhere.kubeconfig");
    const status = await runUnchecked(process.execPath, [bin, "status", "--kubeconfig", missing], {
      cwd: project,
      env,
    });
    expect({ code: status.code, stderr: status.stderr.trim() }).toEqual({
      code: 1,
      stderr: `navique: --kubeconfig ${missing}: no such file. Give the path of an existing kubeconfig, or omit the flag to use $KUBECONFIG or ~/.kube/config.`,
    });
  });

  it("the Pulumi entry points load as bundles: no module of zod, yaml or the Kubernetes client from node_modules, nothing of the core's actions", async () => {
    // What every run of a user's program and every dynamic-provider process loads (ADR 0018): the files
    // Node loads for it, recorded by a module hook in a fresh process of the project.
    const loaded = async (specifier: string) => {
      const script = [
        `import { registerHooks } from "node:module";`,
        `const urls = [];`,
        `registerHooks({ load(url, context, next) { urls.push(url); return next(url, context); } });`,
        `await import(${JSON.stringify(specifier)});`,
        `console.log(JSON.stringify(urls));`,
      ].join("\n");
      const { stdout } = await run("node", ["--input-type=module", "-e", script], { cwd: project });
      const urls = JSON.parse(stdout) as string[];
      const ours = "/node_modules/@navique/ai-core/";
      return {
        ours: urls.filter((u) => u.includes(ours)).map((u) => u.slice(u.indexOf(ours) + ours.length)),
        bundled: urls.filter((u) => /\/node_modules\/(zod|yaml|@kubernetes\/client-node)\//.test(u)),
      };
    };
    // What the entry module loads before its bundle: the Node.js check (lib/package/require-node.ts).
    const check = [
      "dist/lib/package/require-node.js",
      "dist/lib/package/node-requirement.js",
      "dist/lib/package/manifest.js",
      "dist/package.json",
    ];
    for (const [specifier, entry, bundle] of [
      ["@navique/ai-core/pulumi", "dist/providers/pulumi/entry.js", "dist/providers/pulumi/index.js"],
      ["@navique/ai-core/pulumi/runtime", "dist/providers/pulumi/runtime-entry.js", "dist/providers/pulumi/runtime.js"],
    ] as const) {
      const { ours, bundled } = await loaded(specifier);
      expect(bundled).toEqual([]);
      expect(ours.slice(0, 2)).toEqual([entry, check[0]]);
      expect(ours).toContain(bundle);
      // The entry, the check and the bundle with its shared chunks only: the preview's machinery and the
      // core's actions (with the Kubernetes client) are chunks loaded when a preview or a change needs them.
      const rest = ours.filter((f) => f !== entry && f !== bundle && !check.includes(f));
      expect(rest.filter((f) => !f.startsWith("dist/providers/pulumi/chunks/chunk-"))).toEqual([]);
      // A score of chunks, not the ~260 modules of the sources: zod's and the kinds' hold nearly all the
      // bytes; the small ones are modules that the runtime, a preview or a change also load on their own.
      expect(rest.length).toBeLessThan(20);
    }
  });

  it("npx navique answers from the installed bin", async () => {
    const version = (await run("npx", ["--no-install", "navique", "--version"], { cwd: project })).stdout;
    const { version: packed } = JSON.parse(await readFile(join(REPOSITORY, "package.json"), "utf8")) as {
      version: string;
    };
    expect(version.trim()).toBe(`@navique/ai-core ${packed}`);
    const help = (await run("npx", ["--no-install", "navique", "--help"], { cwd: project })).stdout;
    expect(help).toContain("usage: navique <command>");
    expect(help).toContain("operator  run the operator against the cluster");
  });

  it("cdk8s synth, through cdk8s-cli and cdk8s.yaml, writes the PostgresCluster custom resource", async () => {
    // --check-upgrade false: the CLI would otherwise ask the internet for a newer version of itself.
    await run("npx", ["--no-install", "cdk8s", "synth", "--check-upgrade", "false"], { cwd: project });
    const documents = parseAllDocuments(await readFile(join(project, "dist", "platform.k8s.yaml"), "utf8")).map((d) =>
      d.toJS(),
    );
    expect(documents).toEqual([
      {
        apiVersion: "core.navique.com/v1alpha1",
        kind: "PostgresCluster",
        metadata: { name: "app-db", namespace: "apps" },
        spec: { databases: [{ name: "app" }] },
      },
    ]);
  });

  it("pulumi preview of a program with bad args fails with one message naming each field, nothing else", async () => {
    const bad = await writeJavaScriptProgram(join(work, "bad-program"), {
      name: "bad-program",
      nodeModules: join(project, "node_modules"),
      source: [
        'const { PostgresCluster } = require("@navique/ai-core/pulumi");',
        'new PostgresCluster("orders-db", { namespace: "Team_A", spec: { mode: "managed", managed: { instances: 0, storag: "1Gi" } } });',
        "",
      ].join("\n"),
    });
    const environment = await pulumiEnvironment({ stateDir: join(work, "bad-state"), passphrase: "bad-program" });
    const env = { ...environment.env, KUBECONFIG: process.env.NAVIQUE_TEST_KUBECONFIG ?? "" };
    await run("pulumi", ["stack", "init", "dev", "--non-interactive"], { cwd: bad, env });
    const failed = await run("pulumi", ["preview", "--non-interactive"], { cwd: bad, env }).then(
      () => undefined,
      (error: unknown) => error as Error,
    );
    expect(failed).toBeDefined();
    const output = failed?.message ?? "";
    expect(output).toContain("PostgresCluster orders-db is invalid:");
    expect(output).toContain("- namespace: must be a lowercase RFC 1123 label");
    expect(output).toContain("- spec.managed.instances: must be >= 1 (received 0)");
    expect(output).toContain('- spec.managed.storag: unknown field; remove it (did you mean "storage"?)');
    // Reported on the component (Pulumi shows its first line in the progress too), once, with no stack
    // trace and no dump of the args.
    expect(output).toContain("navique:index:PostgresCluster (orders-db):\n    error: ");
    expect(output.split("- spec.managed.instances").length).toBe(2);
    expect(output).not.toMatch(/\n\s+at .*\.js:\d+/);
    expect(output).not.toContain("{");
  });

  it("a @pulumi/kubernetes Provider passed as provider: the cluster of its kubeconfig content and chosen context, kept secret, with no ambient kubeconfig", async () => {
    const secretName = "provider-db-connection";
    await client.core.createNamespacedSecret({
      namespace,
      body: {
        metadata: { name: secretName },
        stringData: { host: "provider.example.internal", username: "app", password: "pw-p" },
      },
    });
    // The plane's kubeconfig with a second context made current, whose server nothing listens on: only
    // the Provider's `context` leads to the cluster.
    const real = parse(await readFile(process.env.NAVIQUE_TEST_KUBECONFIG ?? "", "utf8")) as {
      "current-context": string;
      clusters: { name: string; cluster: Record<string, string> }[];
      users: { name: string; user: { token: string } }[];
      contexts: { name: string; context: Record<string, string> }[];
    };
    const token = real.users[0]?.user.token ?? "";
    expect(token.length).toBeGreaterThan(10);
    const twoContexts = {
      ...real,
      clusters: [...real.clusters, { name: "nowhere", cluster: { server: "https://127.0.0.1:9" } }],
      contexts: [...real.contexts, { name: "nowhere", context: { cluster: "nowhere", user: real.users[0]?.name } }],
      "current-context": "nowhere",
    };
    const program = await writeJavaScriptProgram(join(work, "provider-program"), {
      name: "provider-program",
      nodeModules: join(project, "node_modules"),
      source: `const pulumi = require("@pulumi/pulumi");
const k8s = require("@pulumi/kubernetes");
const { PostgresCluster } = require("@navique/ai-core/pulumi");

const config = new pulumi.Config();
const provider = new k8s.Provider("cluster", {
  kubeconfig: config.requireSecret("kubeconfig"),
  context: config.require("context"),
});
const db = new PostgresCluster(
  "provider-db",
  { namespace: config.require("namespace"), spec: { mode: "external", external: { connectionSecretRef: { name: "${secretName}" } } } },
  { provider },
);
exports.host = db.host;

// A Provider whose kubeconfig is known only once another resource exists: a dynamic resource that hands
// its (secret) input on as an output it computes.
const holder = new pulumi.dynamic.Resource(
  { async create(inputs) { return { id: "kubeconfig", outs: { source: inputs.source, content: inputs.source } }; } },
  "kubeconfig-holder",
  { source: config.requireSecret("kubeconfig"), content: undefined },
  { additionalSecretOutputs: ["content"] },
);
const late = new k8s.Provider("late", { kubeconfig: holder.content, context: config.require("context") });
const lateDb = new PostgresCluster(
  "late-db",
  { namespace: config.require("namespace"), spec: { mode: "external", external: { connectionSecretRef: { name: "${secretName}" } } } },
  { provider: late },
);
exports.lateHost = lateDb.host;
`,
    });
    const environment = await pulumiEnvironment({ stateDir: join(work, "provider-state"), passphrase: "provider" });
    // No kubeconfig in the environment at all: $KUBECONFIG names a file that does not exist.
    const env = { ...environment.env, KUBECONFIG: join(work, "no-such-kubeconfig") };
    const pulumi = (args: string[]) => run("pulumi", [...args, "--non-interactive"], { cwd: program, env });
    await pulumi(["stack", "init", "dev"]);
    await pulumi(["config", "set", "namespace", namespace]);
    await pulumi(["config", "set", "context", real["current-context"]]);
    await pulumi(["config", "set", "--secret", "kubeconfig", JSON.stringify(twoContexts)]);

    // Before the Provider exists as after: the engine's decisions come from the Provider's cluster.
    const preview = (await pulumi(["preview"])).stdout;
    expect(preview).toContain(
      `PostgresCluster ${namespace}/provider-db: create it, nothing else: Secret ${namespace}/${secretName} holds host, username and password: consumers are sent to provider.example.internal:5432 (no port key: 5432), which the product does not contact`,
    );
    // The other Provider's kubeconfig is not known before `up`: neither are the decisions from it.
    expect(preview).toContain(
      "PostgresCluster late-db: decisions shown by `pulumi up`: its args use outputs of resources not created yet",
    );
    // The plugin is the one in Pulumi's plugin cache, at the version the SDK asks for: no warning of either.
    expect(preview).not.toContain("warning: resource plugin kubernetes is expected to have version");
    expect(preview).not.toContain("warning: using pulumi-resource-kubernetes");
    await pulumi(["up", "--yes", "--skip-preview"]);
    expect((await readPostgresCluster(client, namespace, "provider-db"))?.status?.host).toBe(
      "provider.example.internal",
    );
    expect(JSON.parse((await pulumi(["stack", "output", "--json"])).stdout)).toEqual({
      host: "provider.example.internal",
      lateHost: "provider.example.internal",
    });
    expect((await readPostgresCluster(client, namespace, "late-db"))?.status?.host).toBe("provider.example.internal");
    const again = (await pulumi(["preview", "--expect-no-changes"])).stdout;
    // Both in place: no decision line (decisions only where something would change).
    expect(again).not.toContain(`PostgresCluster ${namespace}/`);
    const state = (await pulumi(["stack", "export"])).stdout;
    expect(state).not.toContain(token);
    expect(preview + again).not.toContain(token);

    await pulumi(["destroy", "--yes", "--skip-preview"]);
    expect(await readPostgresCluster(client, namespace, "provider-db")).toBeUndefined();
    expect(await readPostgresCluster(client, namespace, "late-db")).toBeUndefined();
  });

  it("pulumi up stops at once on what waiting cannot change, as its preview warned; on anything else it waits, saying for what", async () => {
    const environment = await pulumiEnvironment({ stateDir: join(work, "stalled-state"), passphrase: "user-project" });
    const env = { ...environment.env, KUBECONFIG: process.env.NAVIQUE_TEST_KUBECONFIG ?? "" };
    const program = await writeJavaScriptProgram(join(work, "stalled-program"), {
      name: "stalled-program",
      nodeModules: join(project, "node_modules"),
      source: `const pulumi = require("@pulumi/pulumi");
const { PostgresCluster } = require("@navique/ai-core/pulumi");

const config = new pulumi.Config();
new PostgresCluster("db", {
  namespace: config.require("namespace"),
  spec: { mode: "external", external: { connectionSecretRef: { name: config.require("secret") } } },
});
`,
    });
    const pulumi = (args: string[]) => run("pulumi", [...args, "--non-interactive"], { cwd: program, env });
    const failing = async (args: string[]) => {
      const result = await runUnchecked("pulumi", [...args, "--non-interactive"], { cwd: program, env });
      expect(result.code).not.toBe(0);
      return `${result.stdout}\n${result.stderr}`;
    };
    await pulumi(["stack", "init", "dev"]);
    await pulumi(["config", "set", "namespace", namespace]);

    // A connection Secret without `username`: only someone adding it helps. The preview warns with the
    // line `up` fails with, at once — not after the component's 600 s.
    await pulumi(["config", "set", "secret", "lacking-connection"]);
    await client.core.createNamespacedSecret({
      namespace,
      body: { metadata: { name: "lacking-connection" }, stringData: { host: "db.example.internal", password: "pw" } },
    });
    const stalled = `PostgresCluster ${namespace}/db: Secret ${namespace}/lacking-connection lacks keys username: add them (host, port, username, password)`;
    expect((await pulumi(["preview"])).stdout).toContain(`warning: ${stalled}`);
    const failed = await failing(["up", "--yes", "--skip-preview"]);
    expect(failed).toContain(stalled);
    expect(failed).not.toContain("was not Ready after");
    expect(await readPostgresCluster(client, namespace, "db")).toBeUndefined();

    // A Secret not there yet may still be written by another tool: waited for, and said while waiting.
    await pulumi(["config", "set", "secret", "later-connection"]);
    const up = pulumi(["up", "--yes", "--skip-preview"]);
    await eventually("the PostgresCluster recorded, waiting for its Secret", async () => {
      const ready = (await readPostgresCluster(client, namespace, "db"))?.status?.conditions.find(
        (c) => c.type === "Ready",
      );
      return ready?.reason === "ConnectionSecretInvalid" ? ready : undefined;
    });
    await client.core.createNamespacedSecret({
      namespace,
      body: {
        metadata: { name: "later-connection" },
        stringData: { host: "later.example.internal", username: "app", password: "pw" },
      },
    });
    const { stdout } = await up;
    expect(stdout).toContain(
      `PostgresCluster ${namespace}/db: Secret ${namespace}/later-connection (spec.external.connectionSecretRef) does not exist: create it with keys host, port, username and password`,
    );
    expect((await readPostgresCluster(client, namespace, "db"))?.status?.host).toBe("later.example.internal");
    await pulumi(["destroy", "--yes", "--skip-preview"]);
    expect(await readPostgresCluster(client, namespace, "db")).toBeUndefined();
  });

  it("pulumi preview, up and destroy: no path of the machine in the state, the same cluster under another kubeconfig path, the project moved, no helm needed", async () => {
    await client.core.createNamespacedSecret({
      namespace,
      body: {
        metadata: { name: "app-db-connection" },
        stringData: { host: "db.example.internal", username: "app", password: "s3cret-of-the-user" },
      },
    });
    const environment = await pulumiEnvironment({ stateDir: join(work, "state"), passphrase: "user-project" });
    const kubeconfig = process.env.NAVIQUE_TEST_KUBECONFIG ?? "";
    // No helm anywhere on PATH: an external PostgresCluster needs none, and the provider looks for helm
    // only when it runs it.
    const helmDirectory = dirname((await toolchainPaths()).helm);
    const path = (environment.env.PATH ?? "").split(":").filter((entry) => entry !== helmDirectory);
    const env = { ...environment.env, KUBECONFIG: kubeconfig, PATH: path.join(":") };
    const pulumi = (args: string[], cwd = project, extra: NodeJS.ProcessEnv = {}) =>
      run("pulumi", [...args, "--non-interactive"], { cwd, env: { ...env, ...extra } });
    await pulumi(["stack", "init", "dev"]);
    await pulumi(["config", "set", "namespace", namespace]);

    const preview = (await pulumi(["preview"])).stdout;
    // The stack, two components and their dynamic resources; the engine's decision printed on the first
    // component; the second's args are outputs of the first, not known before it is created.
    expect(preview).toContain("+ 5 to create");
    expect(preview).toContain(
      `PostgresCluster ${namespace}/app-db: create it, nothing else: Secret ${namespace}/app-db-connection holds host, username and password: consumers are sent to db.example.internal:5432 (no port key: 5432), which the product does not contact`,
    );
    expect(preview).toContain(
      "PostgresCluster reporting-db: decisions shown by `pulumi up`: its args use outputs of resources not created yet",
    );
    await pulumi(["up", "--yes", "--skip-preview"]);
    expect(JSON.parse((await pulumi(["stack", "output", "--json", "--show-secrets"])).stdout)).toEqual({
      host: "db.example.internal",
      password: "s3cret-of-the-user",
      reportingHost: "db.example.internal",
    });
    expect((await readPostgresCluster(client, namespace, "app-db"))?.status?.host).toBe("db.example.internal");
    const reporting = await readPostgresCluster(client, namespace, "reporting-db");
    expect(reporting?.spec.external?.connectionSecretRef.name).toBe("app-db-connection");

    const state = (await pulumi(["stack", "export"])).stdout;
    const machinePaths = [work, REPOSITORY, homedir(), cacheRoot(), kubeconfig];
    expect(
      strings(JSON.parse(state)).filter((s) => machinePaths.some((p) => s.includes(p)) || s.includes("file://")),
    ).toEqual([]);
    expect(state).not.toContain("s3cret-of-the-user");

    // The same cluster through a kubeconfig at another path: nothing to change.
    const elsewhere = join(work, "elsewhere.kubeconfig");
    await copyFile(kubeconfig, elsewhere);
    await pulumi(["preview", "--expect-no-changes"], project, { KUBECONFIG: elsewhere });

    // The project moved to another directory: its state still drives the resource to its end. (Pulumi
    // remembers the selected stack per project directory: the moved one names it.)
    const moved = join(work, "moved-project");
    await rename(project, moved);
    project = moved;
    await pulumi(["destroy", "--yes", "--skip-preview", "--stack", "dev"], moved, { KUBECONFIG: elsewhere });
    expect(await readPostgresCluster(client, namespace, "app-db")).toBeUndefined();
    expect(await readPostgresCluster(client, namespace, "reporting-db")).toBeUndefined();
  });

  it("ships the operator's chart: Chart.yaml, values and their schema, the templates and NOTES.txt, every CRD", async () => {
    const files = (await run("tar", ["-tzf", tarball])).stdout.split("\n").filter(Boolean);
    const prefix = `package/charts/${OPERATOR_NAME}/`;
    // Exactly what the generator writes (test/unit/operator-chart.test.ts pins that list and the committed files).
    expect(files.filter((f) => f.startsWith(prefix)).sort()).toEqual(
      [...operatorChartFiles(PACKAGE_VERSION).keys()].map((f) => prefix + f).sort(),
    );
    expect(files).toContain(`${prefix}templates/NOTES.txt`);
    expect(files).toContain(`${prefix}values.schema.json`);
  });

  it("the README's status and doctor commands, as written, from the project: a report, JSON, findings, a page per command", async () => {
    const block = (await readmeBlocks("Reading what it did: `navique status` and `navique doctor`")).find(
      (b) => b.lang === "sh",
    );
    const lines = (block?.text ?? "").split("\n").filter((line) => line.trim() !== "");
    expect(lines.map((line) => line.split("#")[0]?.trim())).toEqual([
      "npx navique status",
      "npx navique status -n apps -o json",
      "npx navique doctor",
      "npx navique status --help",
    ]);
    // The cluster of $KUBECONFIG, as a user's shell has it. Other suites' resources may be there and not
    // Ready: status and doctor then exit 1 by design, so the exit code is asserted per command.
    const env = { ...process.env, KUBECONFIG: process.env.NAVIQUE_TEST_KUBECONFIG ?? "" };
    const [status, json, doctor, help] = await Promise.all(
      lines.map((line) => runUnchecked("bash", ["-c", line], { cwd: project, env })),
    );
    expect(status?.code === 0 || status?.code === 1).toBe(true);
    expect(status?.stdout).toMatch(
      /^cluster: {3}https:\/\/127\.0\.0\.1:\d+, Kubernetes v1\.\d+\.\d+, \d+\/\d+ nodes Ready/,
    );
    expect(status?.stdout).toContain("\nCAPABILITIES\n");
    // No resource in the namespace apps: nothing is not Ready there.
    expect(json?.code).toBe(0);
    expect(JSON.parse(json?.stdout ?? "")).toMatchObject({ namespace: "apps", resources: [] });
    expect(doctor?.code === 0 || doctor?.code === 1).toBe(true);
    expect(doctor?.stderr).toBe("");
    expect(help).toMatchObject({ code: 0, stderr: "" });
    expect(help?.stdout).toMatch(/^usage: navique status /);
  });

  it("the README's console command, as written, from the project: a link with its key, the pages behind it", async () => {
    const block = (await readmeBlocks("The console")).find((b) => b.lang === "sh");
    const line = (block?.text ?? "").split("\n").find((l) => l.trim() !== "") ?? "";
    const command = line.split("#")[0]?.trim() ?? "";
    expect(command).toBe("npx navique console --address 127.0.0.1:0");
    const env = { ...process.env, KUBECONFIG: process.env.NAVIQUE_TEST_KUBECONFIG ?? "" };
    let output = "";
    let stdout = "";
    // Its own process group: npx runs the console in a child of its own, which the kill must reach.
    const child = spawn("bash", ["-c", `exec ${command}`], { cwd: project, env, detached: true });
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      output += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    try {
      await outputContains(child, () => output, /\/login\?key=\S+\n/);
      const link = stdout.trim();
      expect(link).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/login\?key=[A-Za-z0-9_-]+$/);
      const signIn = await fetch(link, { redirect: "manual" });
      expect(signIn.status).toBe(303);
      const cookie = (signIn.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
      const overview = await fetch(new URL("/", link), { headers: { Cookie: cookie } });
      expect(overview.status).toBe(200);
      expect(await overview.text()).toContain("<h1>Overview</h1>");
      expect((await fetch(new URL("/graph", link))).status).toBe(401);
    } finally {
      if (child.pid) process.kill(-child.pid, "SIGTERM");
      await new Promise((resolve) => child.once("exit", resolve));
    }
  });

  it("helm install of the operator's chart from node_modules, as the README says: deployed, its NOTES printed, the Deployment Available, the CRDs Established, the reduced ClusterRole", async () => {
    // The README's commands, run as written through bash with the toolchain's real helm on PATH; kwok marks
    // the operator's pod Ready (nothing runs), so the Deployment rolls out. `kubectl rollout status` runs
    // where a kubectl is on PATH (the toolchain builds none); the Deployment's Available condition is
    // asserted either way. The chart's ClusterRole is cluster-wide: this suite holds the capability lock.
    const helm = (await toolchainPaths()).helm;
    const kubeconfig = process.env.NAVIQUE_TEST_KUBECONFIG ?? "";
    const release = [OPERATOR_NAME, "-n", SYSTEM_NAMESPACE, "--kubeconfig", kubeconfig];
    const block = (await readmeBlocks("Installing the operator with helm")).find((b) => b.lang === "sh");
    const commands = (block?.text ?? "")
      .replace(/\\\n\s*/g, "")
      .split("\n")
      .filter((line) => line.trim() !== "");
    expect(commands.map((command) => command.split(" ")[0])).toEqual(["helm", "kubectl"]);
    const env = {
      ...process.env,
      KUBECONFIG: kubeconfig,
      PATH: [dirname(helm), process.env.PATH ?? ""].join(":"),
    };
    const hasKubectl = (await runUnchecked("bash", ["-c", "command -v kubectl"], { env })).code === 0;
    try {
      const installed = await run("bash", ["-euo", "pipefail", "-c", commands[0] ?? ""], { cwd: project, env });
      if (hasKubectl) await run("bash", ["-euo", "pipefail", "-c", commands[1] ?? ""], { cwd: project, env });
      await eventually("the operator's Deployment Available", async () => {
        const live = await client.apps.readNamespacedDeployment({ name: OPERATOR_NAME, namespace: SYSTEM_NAMESPACE });
        return live.status?.conditions?.some((c) => c.type === "Available" && c.status === "True") ? true : undefined;
      });
      expect(installed.stdout).toContain(`kubectl -n ${SYSTEM_NAMESPACE} rollout status deployment/${OPERATOR_NAME}`);
      const listed = JSON.parse(
        (await run(helm, ["list", "-n", SYSTEM_NAMESPACE, "--kubeconfig", kubeconfig, "-o", "json"])).stdout,
      ) as { name: string; status: string; chart: string }[];
      expect(listed.find((r) => r.name === OPERATOR_NAME)).toMatchObject({
        status: "deployed",
        chart: `${OPERATOR_NAME}-${PACKAGE_VERSION}`,
      });
      const deployment = await client.apps.readNamespacedDeployment({
        name: OPERATOR_NAME,
        namespace: SYSTEM_NAMESPACE,
      });
      expect(deployment.status?.conditions?.find((c) => c.type === "Available")?.status).toBe("True");
      expect(deployment.spec?.template.spec?.serviceAccountName).toBe(OPERATOR_NAME);
      for (const crd of allCustomResourceDefinitions()) {
        const live = await client.extensions.readCustomResourceDefinition({ name: crd.metadata.name });
        const established = live.status?.conditions?.find((c) => c.type === "Established")?.status;
        expect(`${crd.metadata.name} ${established}`).toBe(`${crd.metadata.name} True`);
      }
      const role = (await client.read({
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "ClusterRole",
        metadata: { name: OPERATOR_NAME },
      })) as { rules?: { apiGroups?: string[]; resources?: string[]; verbs: string[] }[] } | undefined;
      expect(role?.rules).toEqual(policyRules(operatorClusterRules()));
      const wildcards = (role?.rules ?? []).filter((rule) =>
        [...rule.verbs, ...(rule.resources ?? []), ...(rule.apiGroups ?? [])].some((value) => value.includes("*")),
      );
      expect(wildcards).toEqual([]);
    } finally {
      await run(helm, ["uninstall", ...release, "--wait"]);
    }
  });
});
