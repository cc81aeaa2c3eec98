/**
 * What a Pulumi user feels: a no-op `pulumi up` and a `pulumi preview` of a program with two
 * PostgresClusters (external: no pod runs here), from the package as users install it (packed, installed
 * into a project outside the repository, compiled by tsc, the plain Node.js language host), beside a
 * no-op `helm upgrade --wait` of two charts (cert-manager and cloudnative-pg, from the fixture charts) on
 * the same cluster. Also counts the helm invocations during the no-op up (a PATH shim logs them). Prints
 * the figures and the ratios to Pulumi's own floor with two dynamic resources of a provider that does
 * nothing (up and preview) and to helm, and where the time goes (the up without its preview; Pulumi's
 * floor with no resource; the cost of loading the package's entry points in a fresh process); asserts
 * nothing. The measurements run in interleaved rounds (each round: the product's up, the floor's up,
 * helm, the previews, …), so that the machine's load changing during the run biases no ratio. Runs on a control plane of its own (plane
 * name `bench-pulumi-noop`, stopped at the end).
 *
 *   npx tsx bench/pulumi-noop.ts [--runs N]
 */
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { KubeClient } from "../lib/cluster/kube-client.js";
import { run } from "../lib/cluster/process.js";
import { LocalControlPlane } from "../lib/local-plane/plane.js";
import { pulumiEnvironment } from "../lib/local-plane/pulumi-environment.js";
import { toolchainPaths } from "../lib/local-plane/toolchain-paths.js";
import { REPOSITORY } from "../test/support/repository.js";
import { installScratchProject, packPackage, writeJavaScriptProgram } from "../test/support/scratch-project.js";
import { USER_DEPENDENCIES, USER_PROJECT_FILES } from "../test/support/user-project.js";

const { values } = parseArgs({ options: { runs: { type: "string", default: "3" } } });
const RUNS = Number(values.runs);
const NAMESPACE = "bench-pulumi-noop";

/** The README's program, with a second PostgresCluster: the example's two. */
const PROGRAM = `import * as pulumi from "@pulumi/pulumi";
import { PostgresCluster } from "@navique/ai-core/pulumi";

const config = new pulumi.Config();
const namespace = config.require("namespace");
const spec = { mode: "external" as const, external: { connectionSecretRef: { name: "app-db-connection" } } };
export const first = new PostgresCluster("first-db", { namespace, spec }).host;
export const second = new PostgresCluster("second-db", { namespace, spec }).host;
`;

async function seconds(action: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await action();
  return (performance.now() - started) / 1000;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

async function main(): Promise<void> {
  const plane = new LocalControlPlane({ name: "bench-pulumi-noop" });
  const { kubeconfig } = await plane.ensureRunning();
  const work = await mkdtemp(join(tmpdir(), "navique-bench-pulumi-"));
  try {
    const project = join(work, "project");
    await mkdir(join(work, "pkg"));
    await mkdir(project);
    process.stderr.write("[pulumi-noop] packing the package and installing it into a project of its own\n");
    const tarball = await packPackage(join(work, "pkg"));
    await installScratchProject(project, tarball, USER_DEPENDENCIES);
    for (const [file, content] of Object.entries(USER_PROJECT_FILES)) await writeFile(join(project, file), content);
    await writeFile(join(project, "index.ts"), PROGRAM);
    await run("npx", ["--no-install", "tsc"], { cwd: project });

    const client = KubeClient.fromFile(kubeconfig);
    await client.core.createNamespace({ body: { metadata: { name: NAMESPACE } } }).catch(() => undefined);
    await client.core
      .createNamespacedSecret({
        namespace: NAMESPACE,
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
    const pulumi = (...args: string[]) => run("pulumi", [...args, "--non-interactive"], { cwd: project, env });
    await pulumi("stack", "init", "bench");
    await pulumi("config", "set", "namespace", NAMESPACE);
    process.stderr.write("[pulumi-noop] first pulumi up (creates the two PostgresClusters)\n");
    await pulumi("up", "--yes");

    // Pulumi's floor (a program with no resource, same CLI, language host and SDK), and its floor for
    // any dynamic provider: two dynamic resources whose provider has nothing to do and loads nothing
    // beyond the SDK — what every dynamic-provider process costs before the product's code.
    const nodeModules = join(project, "node_modules");
    const empty = await writeJavaScriptProgram(join(work, "empty-program"), {
      name: "empty-program",
      nodeModules,
      source: 'require("@pulumi/pulumi");\n',
    });
    const inEmpty = (...args: string[]) => run("pulumi", [...args, "--non-interactive"], { cwd: empty, env });
    await inEmpty("stack", "init", "bench");
    await inEmpty("up", "--yes");
    const trivial = await writeJavaScriptProgram(join(work, "trivial-dynamic"), {
      name: "trivial-dynamic",
      nodeModules,
      source: [
        'const pulumi = require("@pulumi/pulumi");',
        "const provider = {",
        '  async create() { return { id: "same", outs: {} }; },',
        "  async diff() { return { changes: false }; },",
        "};",
        'for (const name of ["one", "two"]) new pulumi.dynamic.Resource(provider, name, {});',
        "",
      ].join("\n"),
    });
    const inTrivial = (...args: string[]) => run("pulumi", [...args, "--non-interactive"], { cwd: trivial, env });
    await inTrivial("stack", "init", "bench");
    await inTrivial("up", "--yes");
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
    await upgrade("cert-manager", "cert-manager", "cert-manager");
    await upgrade("cloudnative-pg", "cloudnative-pg", "cnpg-system");

    // Rounds interleaved — the product, its floors and helm one after another in each round — so that a
    // change of the machine's load during the run weighs on every figure alike, not on one block.
    const ups: number[] = [];
    const previews: number[] = [];
    const skipping: number[] = [];
    const floors: number[] = [];
    const dynamicFloors: number[] = [];
    const dynamicPreviews: number[] = [];
    const helms: number[] = [];
    let helmCalls = 0;
    for (let i = 0; i < RUNS; i++) {
      process.stderr.write(`[pulumi-noop] round ${i + 1} of ${RUNS}\n`);
      await writeFile(calls, "");
      ups.push(await seconds(() => pulumi("up", "--yes")));
      helmCalls = Math.max(helmCalls, (await readFile(calls, "utf8")).split("\n").filter(Boolean).length);
      dynamicFloors.push(await seconds(() => inTrivial("up", "--yes")));
      helms.push(
        await seconds(async () => {
          await upgrade("cert-manager", "cert-manager", "cert-manager");
          await upgrade("cloudnative-pg", "cloudnative-pg", "cnpg-system");
        }),
      );
      previews.push(await seconds(() => pulumi("preview")));
      dynamicPreviews.push(await seconds(() => inTrivial("preview")));
      skipping.push(await seconds(() => pulumi("up", "--yes", "--skip-preview")));
      floors.push(await seconds(() => inEmpty("up", "--yes")));
    }
    // Loading the package's entry points in a fresh Node.js process, as the program and each
    // dynamic-provider process do.
    const load = async (specifier: string) => {
      const times: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        times.push(
          await seconds(() =>
            run("node", ["--input-type=module", "-e", `await import("${specifier}")`], { cwd: project, env }),
          ),
        );
      }
      return times;
    };
    const loadComponents = await load("@navique/ai-core/pulumi");
    const loadRuntime = await load("@navique/ai-core/pulumi/runtime");
    const loadSdk = await load("@pulumi/pulumi");
    await pulumi("destroy", "--yes");

    const fixed = (n: number) => n.toFixed(2);
    // Each round's ratio is of two runs made one after the other, under about the same load: their median
    // is the figure; the ratio of the medians, which a load changing between rounds moves, is beside it.
    const ratios = (product: readonly number[], reference: readonly number[]) => {
      const perRound = product.map((value, i) => value / (reference[i] ?? Number.NaN));
      return `${fixed(median(perRound))}x per round (median)  [${perRound.map(fixed).join(", ")}]; of the medians ${fixed(median(product) / median(reference))}x`;
    };
    const all = (values: readonly number[]) => `${fixed(median(values))} s  [${values.map(fixed).join(", ")}]`;
    process.stdout.write(
      [
        `rounds interleaved: ${RUNS}; medians, every run in brackets`,
        `no-op pulumi up, two PostgresClusters, installed package:          ${all(ups)}`,
        `pulumi preview, same program:                                      ${all(previews)}`,
        `Pulumi's floor with a dynamic provider, up of two no-op resources: ${all(dynamicFloors)}`,
        `Pulumi's floor with a dynamic provider, preview:                   ${all(dynamicPreviews)}`,
        `no-op helm upgrade --wait of two charts:                           ${all(helms)}`,
        `helm invocations during a no-op pulumi up (max over the runs):     ${helmCalls}`,
        `  no-op pulumi up --skip-preview:                                  ${all(skipping)}`,
        `  Pulumi's floor, up of a program with no resource:                ${all(floors)}`,
        `  node + import @navique/ai-core/pulumi, fresh process:            ${fixed(median(loadComponents))} s`,
        `  node + import @navique/ai-core/pulumi/runtime, fresh process:    ${fixed(median(loadRuntime))} s`,
        `  node + import @pulumi/pulumi, fresh process:                     ${fixed(median(loadSdk))} s`,
        `ratio no-op pulumi up / the dynamic-provider floor's up:           ${ratios(ups, dynamicFloors)}`,
        `ratio pulumi preview / the dynamic-provider floor's preview:       ${ratios(previews, dynamicPreviews)}`,
        `ratio no-op pulumi up / helm upgrade:                              ${ratios(ups, helms)}`,
        "goal (issue 19): a no-op pulumi up <= 1.1x the dynamic-provider floor, and no helm call when nothing changed",
        "",
      ].join("\n"),
    );
  } finally {
    await rm(work, { recursive: true, force: true });
    await plane.stop();
  }
}

await main();
