import { readFileSync } from "node:fs";
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { KubeClient } from "../lib/cluster/kube-client.js";
import { run } from "../lib/cluster/process.js";
import { pulumiEnvironment } from "../lib/local-plane/pulumi-environment.js";
import { toolchainPaths } from "../lib/local-plane/toolchain-paths.js";
import { REPOSITORY } from "../test/support/repository.js";
import { installScratchProject, packPackage, writeJavaScriptProgram } from "../test/support/scratch-project.js";
import { USER_DEPENDENCIES, USER_PROJECT_FILES } from "../test/support/user-project.js";
import { CLOCK_TICKS_PER_SECOND } from "./process-usage.js";

/** The README's program, with a second PostgresCluster: the example's two. */
const PROGRAM = `import * as pulumi from "@pulumi/pulumi";
import { PostgresCluster } from "@navique/ai-core/pulumi";

const config = new pulumi.Config();
const namespace = config.require("namespace");
const spec = { mode: "external" as const, external: { connectionSecretRef: { name: "app-db-connection" } } };
export const first = new PostgresCluster("first-db", { namespace, spec }).host;
export const second = new PostgresCluster("second-db", { namespace, spec }).host;
`;

/**
 * Pulumi's floor for any dynamic provider: two dynamic resources whose provider has nothing to do and
 * loads nothing beyond the SDK — what every dynamic-provider process costs before the product's code.
 */
const DYNAMIC_FLOOR_PROGRAM = [
  'const pulumi = require("@pulumi/pulumi");',
  "const provider = {",
  '  async create() { return { id: "same", outs: {} }; },',
  "  async diff() { return { changes: false }; },",
  "};",
  'for (const name of ["one", "two"]) new pulumi.dynamic.Resource(provider, name, {});',
  "",
].join("\n");

/** One command's wall time and its CPU, with every process it waited for (Pulumi's plugins, the programs). */
export interface Timed {
  readonly seconds: number;
  readonly cpuSeconds: number;
}

/** CPU time of this process's children waited for so far (Linux /proc: cutime + cstime), in seconds. */
function childrenCpuSeconds(): number {
  const text = readFileSync("/proc/self/stat", "utf8");
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  // Field n of proc(5) is fields[n - 3]: cutime 16, cstime 17.
  return (Number(fields[13] ?? 0) + Number(fields[14] ?? 0)) / CLOCK_TICKS_PER_SECOND;
}

/** Runs `action` (one child process run to its end): its wall time and the CPU of the processes it waited for. */
async function timed(action: () => Promise<unknown>): Promise<Timed> {
  const cpu = childrenCpuSeconds();
  const started = performance.now();
  await action();
  return { seconds: (performance.now() - started) / 1000, cpuSeconds: childrenCpuSeconds() - cpu };
}

/**
 * The projects a no-op `pulumi up` is measured with, set up once: the package packed and installed into a
 * project outside the repository (as test/e2e/installed-package does), its program compiled by tsc and run
 * by Pulumi's plain Node.js language host — two external PostgresClusters, nothing to change —, Pulumi's
 * floors (a program with no resource; two dynamic resources of a provider doing nothing), and a no-op
 * `helm upgrade --wait` of two fixture charts, helm behind a PATH shim that counts its invocations. Each
 * is created by a first run; every run after is a no-op, timed.
 */
export interface NoopProjects {
  /** The product's no-op `pulumi up --yes`, or another command of its project (`preview`, `up --skip-preview`). */
  product(...args: string[]): Promise<Timed>;
  /** The same command in the dynamic-provider floor's project. */
  dynamicFloor(...args: string[]): Promise<Timed>;
  /** The same command in the empty program's project. */
  emptyFloor(...args: string[]): Promise<Timed>;
  /** A no-op `helm upgrade --install --wait` of the two fixture charts (when set up with them). */
  helmUpgrade(): Promise<Timed>;
  /** helm invocations since the last call (the product's no-op `up` should make none). */
  helmCalls(): Promise<number>;
  /** Seconds a fresh `node` takes to import `specifier` from the product's project. */
  importSeconds(specifier: string): Promise<number>;
  /** Destroys the stack and deletes the projects. */
  tearDown(): Promise<void>;
}

/**
 * Sets the projects up on the cluster of `kubeconfig`, in `namespace`. `progress` hears each long step.
 * The package is built (`npm run build`) and packed first.
 */
export async function noopProjects(
  kubeconfig: string,
  namespace: string,
  progress: (line: string) => void,
  options: {
    /**
     * Installs the two fixture charts helm's no-op upgrade is measured with: on a cluster of the bench's
     * own only (on a shared one they would be the capabilities other runs install). @default true
     */
    readonly helmReference?: boolean;
  } = {},
): Promise<NoopProjects> {
  const work = await mkdtemp(join(tmpdir(), "navique-bench-pulumi-"));
  try {
    const project = join(work, "project");
    await mkdir(join(work, "pkg"));
    await mkdir(project);
    progress("packing the package and installing it into a project of its own");
    const tarball = await packPackage(join(work, "pkg"));
    await installScratchProject(project, tarball, USER_DEPENDENCIES);
    for (const [file, content] of Object.entries(USER_PROJECT_FILES)) await writeFile(join(project, file), content);
    await writeFile(join(project, "index.ts"), PROGRAM);
    await run("npx", ["--no-install", "tsc"], { cwd: project });

    const client = KubeClient.fromFile(kubeconfig);
    await client.core.createNamespace({ body: { metadata: { name: namespace } } }).catch(() => undefined);
    await client.core
      .createNamespacedSecret({
        namespace,
        body: {
          metadata: { name: "app-db-connection" },
          stringData: { host: "db.internal", username: "u", password: "p" },
        },
      })
      .catch(() => undefined);

    // helm, behind a shim that logs each invocation.
    const helm = (await toolchainPaths()).helm;
    const shims = join(work, "shims");
    const calls = join(work, "helm-calls.log");
    await mkdir(shims);
    await writeFile(join(shims, "helm"), `#!/bin/sh\necho "$*" >> "${calls}"\nexec "${helm}" "$@"\n`);
    await chmod(join(shims, "helm"), 0o755);
    const environment = await pulumiEnvironment({ stateDir: join(work, "state"), passphrase: "bench" });
    const env = { ...environment.env, KUBECONFIG: kubeconfig, PATH: `${shims}:${environment.env.PATH}` };
    const pulumiIn =
      (cwd: string) =>
      (...args: string[]) =>
        run("pulumi", [...args, "--non-interactive"], { cwd, env });
    const pulumi = pulumiIn(project);
    await pulumi("stack", "init", "bench");
    await pulumi("config", "set", "namespace", namespace);
    progress("first pulumi up (creates the two PostgresClusters)");
    await pulumi("up", "--yes");

    const nodeModules = join(project, "node_modules");
    const empty = pulumiIn(
      await writeJavaScriptProgram(join(work, "empty-program"), {
        name: "empty-program",
        nodeModules,
        source: 'require("@pulumi/pulumi");\n',
      }),
    );
    await empty("stack", "init", "bench");
    await empty("up", "--yes");
    const trivial = pulumiIn(
      await writeJavaScriptProgram(join(work, "trivial-dynamic"), {
        name: "trivial-dynamic",
        nodeModules,
        source: DYNAMIC_FLOOR_PROGRAM,
      }),
    );
    await trivial("stack", "init", "bench");
    await trivial("up", "--yes");

    // The reference: a no-op helm upgrade --wait of two charts, each installed once first.
    const charts = join(REPOSITORY, "test", "fixtures", "charts");
    const upgrade = (release: string, chart: string, ns: string) =>
      run(helm, [
        "upgrade",
        "--install",
        release,
        join(charts, chart),
        "-n",
        ns,
        "--create-namespace",
        "--wait",
        "--kubeconfig",
        kubeconfig,
      ]);
    const helmUpgrade = async () => {
      await upgrade("cert-manager", "cert-manager", "cert-manager");
      await upgrade("cloudnative-pg", "cloudnative-pg", "cnpg-system");
    };
    if (options.helmReference ?? true) await helmUpgrade();
    await writeFile(calls, "");

    return {
      product: (...args) => timed(() => pulumi(...args)),
      dynamicFloor: (...args) => timed(() => trivial(...args)),
      emptyFloor: (...args) => timed(() => empty(...args)),
      helmUpgrade: () => {
        if (!(options.helmReference ?? true)) throw new Error("noopProjects: set up without helm's reference");
        return timed(helmUpgrade);
      },
      async helmCalls() {
        const count = (await readFile(calls, "utf8")).split("\n").filter(Boolean).length;
        await writeFile(calls, "");
        return count;
      },
      async importSeconds(specifier) {
        const started = performance.now();
        await run("node", ["--input-type=module", "-e", `await import("${specifier}")`], { cwd: project, env });
        return (performance.now() - started) / 1000;
      },
      async tearDown() {
        try {
          await pulumi("destroy", "--yes");
        } finally {
          await rm(work, { recursive: true, force: true });
        }
      },
    };
  } catch (error) {
    await rm(work, { recursive: true, force: true });
    throw error;
  }
}
