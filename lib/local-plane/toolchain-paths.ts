import { readdir } from "node:fs/promises";
import { dirname, join } from "node:path";
import { binaryPath, ensureBuilt, recipeDirectory } from "./go-build.js";
import { type Reporter, stderrReporter } from "./progress.js";
import {
  ETCD,
  GO_LANGUAGE_VERSION,
  type GoToolRecipe,
  HELM,
  KUBERNETES,
  KWOK,
  PULUMI,
  TOOLCHAIN,
} from "./toolchain.js";

/** Absolute paths of every built binary, plus kwok's stage files. */
export interface Toolchain {
  readonly etcd: string;
  readonly kubeApiserver: string;
  readonly kubeControllerManager: string;
  readonly kubeScheduler: string;
  readonly kwok: string;
  readonly kwokStages: readonly string[];
  readonly helm: string;
  readonly pulumi: string;
  /**
   * Directories to put first on PATH so that `helm` resolves to this build. Pulumi is run through
   * `pulumiEnvironment`, which puts its plugins beside it.
   */
  readonly pathEntries: readonly string[];
}

export interface ToolchainOptions {
  readonly report?: Reporter;
  readonly env?: NodeJS.ProcessEnv;
  /** Build only these recipes (by name); the others must already be cached. @default every recipe */
  readonly only?: readonly string[];
}

/** Builds whatever the cache lacks (printing progress), then returns the paths. */
export async function ensureToolchain(options: ToolchainOptions = {}): Promise<Toolchain> {
  const report = options.report ?? stderrReporter;
  const env = options.env ?? process.env;
  const started = Date.now();
  const wanted: readonly GoToolRecipe[] = options.only
    ? TOOLCHAIN.filter((r) => options.only?.includes(r.name))
    : TOOLCHAIN;
  for (const [index, recipe] of wanted.entries()) {
    const before = Date.now();
    await ensureBuilt(recipe, {
      report: (line) => report(`(${index + 1}/${wanted.length}) ${line}`),
      goLanguageVersion: GO_LANGUAGE_VERSION,
      env,
    });
    if (Date.now() - before > 2_000) report(`[toolchain] total so far ${Math.round((Date.now() - started) / 1000)}s`);
  }
  return toolchainPaths(env);
}

/** The paths where the toolchain lives (or will, once built); does not build. */
export async function toolchainPaths(env: NodeJS.ProcessEnv = process.env): Promise<Toolchain> {
  const assets = join(recipeDirectory(KWOK, env), "assets");
  const stages = (await readdir(assets).catch(() => [] as string[])).filter((f) => f.endsWith(".yaml")).sort();
  const helm = binaryPath(HELM, "helm", env);
  const pulumi = binaryPath(PULUMI, "pulumi", env);
  return {
    etcd: binaryPath(ETCD, "etcd", env),
    kubeApiserver: binaryPath(KUBERNETES, "kube-apiserver", env),
    kubeControllerManager: binaryPath(KUBERNETES, "kube-controller-manager", env),
    kubeScheduler: binaryPath(KUBERNETES, "kube-scheduler", env),
    kwok: binaryPath(KWOK, "kwok", env),
    kwokStages: stages.map((f) => join(assets, f)),
    helm,
    pulumi,
    pathEntries: [dirname(helm)],
  };
}
