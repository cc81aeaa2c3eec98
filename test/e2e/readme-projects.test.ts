import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { parseAllDocuments } from "yaml";
import type { KubeClient } from "../../lib/cluster/kube-client.js";
import { run, runUnchecked } from "../../lib/cluster/process.js";
import { pulumiEnvironment } from "../../lib/local-plane/pulumi-environment.js";
import { NODE_REQUIREMENT } from "../../lib/package/manifest.js";
import { createReconcileContext, type ReconcileContext } from "../../lib/reconcile/context.js";
import {
  CAPABILITY_SUITE_SETUP_MS,
  FIXTURE_SOURCE,
  lockCapabilities,
  testClient,
  testHelm,
} from "../support/capabilities.js";
import { discardNamespace } from "../support/namespace-content.js";
import { readPostgresCluster } from "../support/postgres.js";
import { npmInstallPackages, type ReadmeProject, readmeProjects } from "../support/readme-projects.js";
import { REPOSITORY } from "../support/repository.js";
import { finalizeEveryKind } from "../support/resources.js";
import { installScratchProject, packPackage } from "../support/scratch-project.js";

/** The machine's own Node.js: the first on PATH outside any node_modules (npm puts the project's first). */
function machineNode(): string {
  const directory = (process.env.PATH ?? "")
    .split(delimiter)
    .find((entry) => entry && !entry.includes("node_modules") && existsSync(join(entry, "node")));
  if (!directory) throw new Error("no node on PATH outside node_modules: the machine has no Node.js of its own");
  return join(directory, "node");
}

/**
 * The TypeScript `npm install typescript` gives a project today: the newest release (7.x) unless another
 * package's peer range stops below it — @pulumi/pulumi's does (`< 7`), so npm picks 6.x beside it. Both
 * are in the repository's lock through test/fixtures/user-typescript.
 */
function userTypeScript(packages: readonly string[]): string {
  return packages.includes("@pulumi/pulumi") ? "node_modules/typescript-6" : "node_modules/typescript-7";
}

/**
 * Runs a README project in `directory`, line by line, as a user's shell would. `npm install …` is the one
 * line run otherwise: the same packages, installed offline from npm's cache (the package from its packed
 * tarball, the others at the versions the repository locks), into the package.json `npm init` wrote.
 */
async function runReadmeProject(
  project: ReadmeProject,
  directory: string,
  tarball: string,
  env: NodeJS.ProcessEnv,
): Promise<void> {
  await mkdir(directory, { recursive: true });
  for (const [file, content] of Object.entries(project.files)) await writeFile(join(directory, file), content);
  for (const command of project.commands) {
    const packages = npmInstallPackages(command);
    if (!packages) {
      await run("bash", ["-euo", "pipefail", "-c", command], { cwd: directory, env });
      continue;
    }
    expect(packages[0]).toBe("@navique/ai-core");
    const { dependencies: _none, ...manifest } = JSON.parse(await readFile(join(directory, "package.json"), "utf8"));
    const others = packages.slice(1);
    await installScratchProject(directory, tarball, others, {
      from: { typescript: userTypeScript(others) },
      manifest,
    });
  }
}

// The README's "Use it in your project", run as written from directories outside the repository: the files
// it shows, its commands line by line through bash, the package packed as npm publishes it, the real
// pulumi CLI (and its Kubernetes plugin, built from source) against the local plane, the real cdk8s-cli.
describe("the README's projects, run as written", () => {
  let work = "";
  let tarball = "";
  let projects: ReadmeProject[] = [];
  let client: KubeClient;
  let context: ReconcileContext | undefined;
  let unlock: (() => Promise<void>) | undefined;
  // The namespace the README's Pulumi commands name.
  const pulumiNamespace = "app-db";
  const projectUnder = (heading: string): ReadmeProject => {
    const project = projects.find((p) => p.heading === heading);
    if (!project) throw new Error(`README.md has no ### ${heading}`);
    return project;
  };

  beforeAll(async () => {
    projects = await readmeProjects();
    work = await mkdtemp(join(tmpdir(), "navique-readme-"));
    await mkdir(join(work, "pkg"));
    tarball = await packPackage(join(work, "pkg"));
    // Its PostgresClusters count against the cluster-wide caps other suites' resources fill.
    unlock = await lockCapabilities();
    client = testClient();
    context = createReconcileContext({ client, helm: await testHelm(), source: FIXTURE_SOURCE });
    // Left by a run that died midway: the README names the namespace, so it is the same every run.
    await finalizeEveryKind(context, pulumiNamespace);
    await discardNamespace(client, pulumiNamespace);
  }, CAPABILITY_SUITE_SETUP_MS);

  afterAll(async () => {
    if (context) {
      await finalizeEveryKind(context, pulumiNamespace);
      await discardNamespace(client, pulumiNamespace);
    }
    await unlock?.();
    if (work) await rm(work, { recursive: true, force: true });
  });

  it("ships every document and chart the README names", async () => {
    const readme = await readFile(join(REPOSITORY, "README.md"), "utf8");
    const named = [...new Set([...readme.matchAll(/\b((?:docs|charts)\/[\w./-]*\w)/g)].map((m) => m[1] ?? ""))];
    expect(named.length).toBeGreaterThan(5);
    const files = (await run("tar", ["-tzf", tarball])).stdout.split("\n").filter(Boolean);
    const missing = named.filter(
      (path) => !files.some((file) => file === `package/${path}` || file.startsWith(`package/${path}/`)),
    );
    expect(missing).toEqual([]);
  });

  it("TypeScript: @pulumi/pulumi's peer range is what keeps a Pulumi project below TypeScript 7", async () => {
    const lock = JSON.parse(await readFile(join(REPOSITORY, "package-lock.json"), "utf8")) as {
      packages: Record<string, { version?: string; peerDependencies?: Record<string, string> }>;
    };
    expect(lock.packages["node_modules/@pulumi/pulumi"]?.peerDependencies?.typescript).toMatch(/< 7$/);
    expect(lock.packages["node_modules/typescript-6"]?.version).toMatch(/^6\./);
    expect(lock.packages["node_modules/typescript-7"]?.version).toMatch(/^7\./);
  });

  it(
    "With Pulumi: compiles with no skipLibCheck, creates its Secret and namespace, and pulumi up succeeds",
    async () => {
      const project = projectUnder("With Pulumi");
      const directory = join(work, "pulumi-project");
      const environment = await pulumiEnvironment({ stateDir: join(work, "state"), passphrase: "readme" });
      const env = { ...environment.env, KUBECONFIG: process.env.NAVIQUE_TEST_KUBECONFIG ?? "" };
      await runReadmeProject(project, directory, tarball, env);

      expect((await run("npx", ["--no-install", "tsc", "--version"], { cwd: directory })).stdout.trim()).toMatch(
        /^Version 6\./,
      );
      const outputs = JSON.parse(
        (await run("pulumi", ["stack", "output", "--json", "--show-secrets"], { cwd: directory, env })).stdout,
      );
      expect(outputs).toEqual({
        host: "db.example.internal",
        password: "change-me",
        reportingHost: "db.example.internal",
      });
      const db = await readPostgresCluster(client, pulumiNamespace, "app-db");
      expect(db?.status?.conditions?.find((c) => c.type === "Ready")?.status).toBe("True");
      expect((await readPostgresCluster(client, pulumiNamespace, "reporting-db"))?.spec.external).toEqual({
        connectionSecretRef: { name: "app-db-connection" },
      });
      const state = (await run("pulumi", ["stack", "export"], { cwd: directory, env })).stdout;
      expect(state).not.toContain("change-me");

      await run("pulumi", ["destroy", "--yes", "--non-interactive"], { cwd: directory, env });
      expect(await readPostgresCluster(client, pulumiNamespace, "app-db")).toBeUndefined();
    },
    20 * 60_000,
  );

  it(
    "With Pulumi, in a project as `pulumi new typescript` makes it (CommonJS, module nodenext, ts-node): the same program runs as it is",
    async () => {
      const project = projectUnder("With Pulumi");
      const directory = join(work, "commonjs-project");
      await mkdir(directory);
      // The settings of pulumi/templates' typescript template that decide how the package is loaded: no
      // "type": "module" (CommonJS), NodeNext resolution, and Pulumi's default runtime, which runs index.ts
      // through ts-node with the project's TypeScript (^5 in the template).
      await writeFile(join(directory, "Pulumi.yaml"), "name: app-db-commonjs\nruntime: nodejs\n");
      await writeFile(
        join(directory, "tsconfig.json"),
        `${JSON.stringify({ compilerOptions: { strict: true, outDir: "bin", target: "es2020", module: "nodenext", moduleResolution: "nodenext" }, files: ["index.ts"] }, null, 2)}\n`,
      );
      await writeFile(join(directory, "index.ts"), project.files["index.ts"] ?? "");
      const packages = npmInstallPackages(project.commands[1] ?? "") ?? [];
      await installScratchProject(directory, tarball, [...packages.slice(1), "@types/node"], {
        from: { typescript: "node_modules/typescript" },
        manifest: { name: "app-db-commonjs", main: "index.ts", type: undefined },
      });
      expect(JSON.parse(await readFile(join(directory, "package.json"), "utf8")).type).toBeUndefined();
      const environment = await pulumiEnvironment({ stateDir: join(work, "commonjs-state"), passphrase: "readme" });
      const env = { ...environment.env, KUBECONFIG: process.env.NAVIQUE_TEST_KUBECONFIG ?? "" };
      const pulumi = (args: string[]) => run("pulumi", [...args, "--non-interactive"], { cwd: directory, env });
      await pulumi(["stack", "init", "dev"]);
      await pulumi(["config", "set", "namespace", pulumiNamespace]);
      await pulumi(["config", "set", "dbHost", "commonjs.example.internal"]);
      await pulumi(["config", "set", "--secret", "dbPassword", "change-me-too"]);
      await pulumi(["up", "--yes"]);
      expect(JSON.parse((await pulumi(["stack", "output", "--json"])).stdout).host).toBe("commonjs.example.internal");
      await pulumi(["destroy", "--yes"]);
      expect(await readPostgresCluster(client, pulumiNamespace, "app-db")).toBeUndefined();
    },
    20 * 60_000,
  );

  it(
    "With cdk8s: compiles with no skipLibCheck on TypeScript 7 and synthesizes the PostgresCluster",
    async () => {
      const project = projectUnder("With cdk8s");
      const directory = join(work, "cdk8s-project");
      await runReadmeProject(project, directory, tarball, process.env);

      expect((await run("npx", ["--no-install", "tsc", "--version"], { cwd: directory })).stdout.trim()).toMatch(
        /^Version 7\./,
      );
      const synthesized = parseAllDocuments(await readFile(join(directory, "dist", "platform.k8s.yaml"), "utf8")).map(
        (d) => d.toJS(),
      );
      expect(synthesized).toEqual([
        {
          apiVersion: "core.navique.com/v1alpha1",
          kind: "PostgresCluster",
          metadata: { name: "app-db", namespace: "apps" },
          spec: { databases: [{ name: "app" }] },
        },
      ]);
    },
    20 * 60_000,
  );

  it("on the machine's own older Node.js, every entry point and the bin refuse in one line naming the Node.js needed", async () => {
    const node = machineNode();
    const version = (await run(node, ["--version"])).stdout.trim();
    // What this test is about: the system Node.js of these machines is 20 (docs/adr/0001-node-version.md).
    expect(Number(version.slice(1).split(".")[0])).toBeLessThan(22);
    const line = `@navique/ai-core needs Node.js ${NODE_REQUIREMENT.slice(2)} or later; this is Node.js ${version.slice(1)} (${node}). Install a newer Node.js (or run through npm with the \`node\` package as a dependency) and try again.`;
    const importing = (entry: string) => ["--input-type=module", "-e", `await import(${JSON.stringify(entry)})`];
    // A CommonJS program (Pulumi's own template) requires the package: Node.js loads its ES modules then.
    const requiring = (entry: string) => ["-e", `require(${JSON.stringify(entry)})`];
    const runs: [string, string, string[]][] = [
      ["pulumi-project", "@navique/ai-core/pulumi", importing("@navique/ai-core/pulumi")],
      ["pulumi-project", "@navique/ai-core/pulumi/runtime", importing("@navique/ai-core/pulumi/runtime")],
      ["commonjs-project", "require @navique/ai-core/pulumi", requiring("@navique/ai-core/pulumi")],
      ["cdk8s-project", "@navique/ai-core/cdk8s", importing("@navique/ai-core/cdk8s")],
      ["cdk8s-project", "@navique/ai-core", importing("@navique/ai-core")],
      ["cdk8s-project", "the navique bin", [join("node_modules", ".bin", "navique"), "--version"]],
    ];
    for (const [project, entry, args] of runs) {
      const refused = await runUnchecked(node, args, { cwd: join(work, project) });
      // One line and nothing else: no stack trace, no source line of a bundle, nothing on stdout.
      expect({ entry, code: refused.code, stdout: refused.stdout, stderr: refused.stderr }).toEqual({
        entry,
        code: 1,
        stdout: "",
        stderr: `${line}\n`,
      });
    }
  });
});
