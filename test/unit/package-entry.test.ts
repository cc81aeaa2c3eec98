import { chmod, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import type { ProviderResource } from "@pulumi/pulumi";
import { resolveClusterTarget } from "../../lib/cli/target.js";
import { clusterServer } from "../../lib/cluster/cluster-server.js";
import { resolveHelm } from "../../lib/cluster/helm-binary.js";
import { ambientKubeconfig, isKubeconfigContent, kubeconfigContent } from "../../lib/cluster/kubeconfig-location.js";
import { choosingContext, clusterAccess } from "../../lib/cluster/kubeconfig-source.js";
import { NODE_REQUIREMENT } from "../../lib/package/manifest.js";
import { assertNodeVersion } from "../../lib/package/node-requirement.js";
import { packageEntries, reachedFiles } from "../../lib/package/prune-dist.js";
import { silentReporter } from "../../lib/reporter.js";
import { kubernetesProviderKubeconfig } from "../../providers/pulumi/kubernetes-provider.js";
import { npmInstallPackages, readmeProjects } from "../support/readme-projects.js";

const KUBECONFIG = (server: string, token: string) => `apiVersion: v1
kind: Config
clusters:
  - name: c
    cluster: { server: "${server}" }
users:
  - name: u
    user: { token: ${token} }
contexts:
  - name: x
    context: { cluster: c, user: u }
current-context: x
`;

describe("the Node.js the package needs", () => {
  it("is engines.node of package.json, and an older one is refused naming both", () => {
    expect(NODE_REQUIREMENT).toBe(">=22.19");
    expect(() => assertNodeVersion("22.19.0")).not.toThrow();
    expect(() => assertNodeVersion("24.1.0")).not.toThrow();
    expect(() => assertNodeVersion("22.18.9")).toThrow(
      /^@navique\/ai-core needs Node\.js 22\.19 or later; this is Node\.js 22\.18\.9 \(/,
    );
    expect(() => assertNodeVersion("20.19.5")).toThrow("this is Node.js 20.19.5");
  });
});

describe("the files the package keeps in dist/", () => {
  it("are what its exports and bin name: types for TypeScript, the other conditions for Node.js, not the repository's sources", () => {
    expect(
      packageEntries({
        types: "./dist/lib/index.d.ts",
        exports: {
          ".": { types: "./dist/lib/index.d.ts", default: "./dist/lib/index.js" },
          "./runtime": { types: "./dist/r.d.ts", "navique-sources": "./r.ts", default: "./dist/r-entry.js" },
          "./package.json": "./package.json",
        },
        bin: { navique: "./dist/navique.js" },
      }),
    ).toEqual({
      code: ["dist/lib/index.js", "dist/r-entry.js", "package.json", "dist/navique.js"],
      types: ["dist/lib/index.d.ts", "dist/lib/index.d.ts", "dist/r.d.ts"],
    });
  });

  it("and every file they import, statically or not, at any depth; one missing is named", async () => {
    const root = await mkdtemp(join(tmpdir(), "navique-prune-"));
    try {
      await mkdir(join(root, "dist", "chunks"), { recursive: true });
      const files: Record<string, string> = {
        "dist/entry.js": 'import "./check.js";\nexport * from "./bundle.js";\n',
        "dist/check.js": 'import manifest from "./package.json" with { type: "json" };\nimport "node:fs";\n',
        "dist/package.json": "{}",
        // Minified, as a bundle is: imports with no spaces, a chunk loaded on demand.
        "dist/bundle.js": 'import{a as b}from"./chunks/chunk-A.js";export const c=()=>import("./chunks/late-B.js");',
        "dist/chunks/chunk-A.js": "export const a=1;",
        "dist/chunks/late-B.js": 'import"zod";export const b=2;',
        "dist/builder.js": 'import "./check.js";\n',
        "dist/entry.d.ts": 'export * from "./types.js";\nexport type T = import("./more.js").M;\n',
        "dist/types.d.ts": "export declare const x: number;\n",
        "dist/more.d.ts": "export type M = string;\n",
      };
      for (const [file, content] of Object.entries(files)) await writeFile(join(root, file), content);
      expect([...(await reachedFiles(root, ["dist/entry.js"]))].sort()).toEqual([
        "dist/bundle.js",
        "dist/check.js",
        "dist/chunks/chunk-A.js",
        "dist/chunks/late-B.js",
        "dist/entry.js",
        "dist/package.json",
      ]);
      const declarations = await reachedFiles(root, ["dist/entry.d.ts"], (s) => s.replace(/\.js$/, ".d.ts"));
      expect([...declarations].sort()).toEqual(["dist/entry.d.ts", "dist/more.d.ts", "dist/types.d.ts"]);
      await writeFile(join(root, "dist/chunks/chunk-A.js"), 'import "./gone.js";');
      await expect(reachedFiles(root, ["dist/entry.js"])).rejects.toThrow(
        "dist/chunks/gone.js, which an entry point of the package reaches, cannot be read (ENOENT)",
      );
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});

describe("the helm binary, found when it runs", () => {
  let dir = "";
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "navique-helm-"));
    await writeFile(join(dir, "helm"), "#!/bin/sh\n");
    await chmod(join(dir, "helm"), 0o755);
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it("is the configured one, else the first helm on PATH, else an error naming both", () => {
    expect(resolveHelm(join(dir, "helm"), { PATH: "" })).toBe(join(dir, "helm"));
    expect(resolveHelm(undefined, { PATH: `/nonexistent:${dir}` })).toBe(join(dir, "helm"));
    expect(() => resolveHelm(join(dir, "nope"), { PATH: dir })).toThrow(
      `helm ${join(dir, "nope")} (configured as the helm binary) is not an executable file`,
    );
    expect(() => resolveHelm(undefined, { PATH: "/nonexistent" })).toThrow(
      "no helm binary: none configured (the component's `helm` argument, or --helm) and none named helm on PATH",
    );
  });
});

describe("a kubeconfig argument", () => {
  it("is content when it looks like a kubeconfig, else a path, read; a missing file names the path only", async () => {
    const content = KUBECONFIG("https://10.0.0.1:6443", "t0ken-abc");
    expect(isKubeconfigContent(content)).toBe(true);
    expect(isKubeconfigContent('{"apiVersion":"v1"}')).toBe(true);
    expect(isKubeconfigContent("/home/me/.kube/config")).toBe(false);
    expect(kubeconfigContent(content)).toBe(content);
    const dir = await mkdtemp(join(tmpdir(), "navique-kubeconfig-test-"));
    try {
      await writeFile(join(dir, "config"), content);
      expect(kubeconfigContent(join(dir, "config"))).toBe(content);
      expect(() => kubeconfigContent(join(dir, "missing"))).toThrow(
        `kubeconfig ${join(dir, "missing")}: cannot read it (ENOENT); pass the path of a kubeconfig file or its content`,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("that does not parse is refused without quoting it: its lines may hold a token", () => {
    const broken = `${KUBECONFIG("https://10.0.0.1:6443", "t0ken-abc")}  - bad: [indentation\n`;
    expect(() => clusterAccess(broken)).toThrow(/^the kubeconfig content given is not a kubeconfig \(/);
    try {
      clusterAccess(broken);
    } catch (error) {
      expect((error as Error).message).not.toContain("t0ken-abc");
    }
  });

  it("with another context or cluster chosen, as a @pulumi/kubernetes Provider's args do; an unknown name lists the known", () => {
    const two = `apiVersion: v1
kind: Config
clusters:
  - name: blue
    cluster: { server: "https://10.0.0.1:6443" }
  - name: green
    cluster: { server: "https://10.0.0.2:6443" }
users:
  - name: u
    user: { token: t0ken-abc }
contexts:
  - name: a
    context: { cluster: blue, user: u }
  - name: b
    context: { cluster: green, user: u }
current-context: a
`;
    expect(clusterServer(two)).toBe("https://10.0.0.1:6443");
    expect(clusterServer(choosingContext(two, { context: "b" }))).toBe("https://10.0.0.2:6443");
    expect(clusterServer(choosingContext(two, { cluster: "green" }))).toBe("https://10.0.0.2:6443");
    expect(() => choosingContext(two, { context: "c" })).toThrow(
      "context c is not in the kubeconfig (its contexts: a, b)",
    );
    expect(() => choosingContext(two, { cluster: "red" })).toThrow(
      "cluster red is not in the kubeconfig (its clusters: blue, green)",
    );
  });

  it("comes from a @pulumi/kubernetes Provider only: a provider of another package is refused, naming it", () => {
    // The rule reads the package a ProviderResource names (the real Provider path runs in
    // test/e2e/installed-package.test.ts); an object naming another package stands for one here.
    const random = { getPackage: () => "random" } as unknown as ProviderResource;
    expect(() => kubernetesProviderKubeconfig({ provider: random })).toThrow(
      "the provider option is a provider of package random; the product reaches its cluster through a @pulumi/kubernetes Provider (package kubernetes) or the kubeconfig argument",
    );
    expect(kubernetesProviderKubeconfig({ providers: [random] })).toBeUndefined();
    expect(kubernetesProviderKubeconfig({})).toBeUndefined();
  });

  it("names its cluster by the API server of its current context, whatever file holds it", () => {
    expect(clusterServer(KUBECONFIG("https://10.0.0.1:6443", "a"))).toBe("https://10.0.0.1:6443");
    expect(clusterServer(KUBECONFIG("https://10.0.0.1:6443", "b"))).toBe("https://10.0.0.1:6443");
    expect(clusterServer(undefined, { KUBECONFIG: "/nonexistent/kubeconfig" })).toBeUndefined();
  });
});

describe("the ambient kubeconfig", () => {
  it("is the first file of $KUBECONFIG, else ~/.kube/config; the CLI and the Pulumi runtime agree on it", async () => {
    const dir = await mkdtemp(join(tmpdir(), "navique-ambient-"));
    try {
      const [first, second] = [join(dir, "first"), join(dir, "second")];
      const list = { KUBECONFIG: `${delimiter}${first}${delimiter}${second}`, HOME: dir };
      expect(ambientKubeconfig(list)).toEqual({ path: first, from: "KUBECONFIG" });
      expect(ambientKubeconfig({ HOME: dir })).toEqual({
        path: join(dir, ".kube", "config"),
        from: "default kubeconfig",
      });
      await expect(resolveClusterTarget({ env: list, report: silentReporter })).resolves.toEqual({
        kubeconfig: first,
        source: "KUBECONFIG",
      });
      await mkdir(join(dir, ".kube"));
      await writeFile(join(dir, ".kube", "config"), KUBECONFIG("https://10.0.0.1:6443", "t"));
      await expect(resolveClusterTarget({ env: { HOME: dir }, report: silentReporter })).resolves.toEqual({
        kubeconfig: join(dir, ".kube", "config"),
        source: "default kubeconfig",
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("the README's Use it in your project", () => {
  it("shows a Pulumi project and a cdk8s project, each set up by npm init and npm install, with no skipLibCheck", async () => {
    const projects = await readmeProjects();
    expect(projects.map((p) => p.heading)).toEqual(["With Pulumi", "With cdk8s"]);
    for (const project of projects) {
      expect(project.commands[0]).toBe("npm init -y && npm pkg set type=module");
      expect(npmInstallPackages(project.commands[1] ?? "")?.[0]).toBe("@navique/ai-core");
      expect(project.files["tsconfig.json"]).toContain('"module": "NodeNext"');
      expect(project.files["tsconfig.json"]).not.toContain("skipLibCheck");
    }
    expect(Object.keys(projects[0]?.files ?? {}).sort()).toEqual(["Pulumi.yaml", "index.ts", "tsconfig.json"]);
    expect(Object.keys(projects[1]?.files ?? {}).sort()).toEqual(["cdk8s.yaml", "main.ts", "tsconfig.json"]);
  });
});
