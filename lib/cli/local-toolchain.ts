import type { Reporter } from "../reporter.js";

declare global {
  interface ImportMeta {
    /**
     * `false` in the package's bundled bin, where the build defines it (package.json `build`, esbuild's
     * `--define`); absent when the CLI runs from the repository's sources.
     */
    readonly naviqueLocalToolchain?: false;
  }
}

/** What the CLI does with the local toolchain of the repository (lib/local-plane). */
export interface LocalToolchain {
  /** Starts the built-in local control plane, or reuses the running one; its kubeconfig's path. */
  startPlane(options: { readonly report: Reporter; readonly env: NodeJS.ProcessEnv }): Promise<string>;
  /** Where the toolchain's helm is, built or not. */
  cachedHelm(): Promise<string>;
  /** The toolchain's helm, built first (with progress) when the cache lacks it. */
  buildHelm(): Promise<string>;
}

/**
 * The local toolchain, when the CLI runs from the repository; undefined in the installed package. Building
 * etcd, Kubernetes, kwok and helm from Go takes the Go toolchain and a quarter of an hour: the repository's
 * business (`npm start`, `npm run toolchain`), not a user's, who has a cluster of their own. The bin's
 * build defines `import.meta.naviqueLocalToolchain` as false, which makes the import below dead code that
 * the bundler drops, with every module of the toolchain (docs/adr/0019-installable-package.md).
 */
export async function localToolchain(): Promise<LocalToolchain | undefined> {
  // Written as one `if` around the import: the bundler drops a dead branch, not code after a return.
  if (import.meta.naviqueLocalToolchain !== false)
    return (await import("./repository-toolchain.js")).REPOSITORY_TOOLCHAIN;
  return undefined;
}

/** What the installed CLI says when no cluster is configured: it has no local control plane to start. */
export function noClusterConfigured(defaultKubeconfig: string): Error {
  return new Error(
    `no cluster configured: no --kubeconfig, no $KUBECONFIG, no ${defaultKubeconfig}, and not inside a pod. ` +
      "Point navique at a cluster with --kubeconfig PATH or KUBECONFIG=PATH (for one on this machine: kind create cluster); " +
      "the built-in local control plane comes with the source repository (npm start there), not with the installed package",
  );
}
