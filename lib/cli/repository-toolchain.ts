import { LocalControlPlane } from "../local-plane/plane.js";
import { stderrReporter } from "../local-plane/progress.js";
import { HELM } from "../local-plane/toolchain.js";
import { ensureToolchain, toolchainPaths } from "../local-plane/toolchain-paths.js";
import type { LocalToolchain } from "./local-toolchain.js";

/**
 * The repository's local toolchain as the CLI uses it: the built-in local control plane and the helm that
 * the toolchain builds from Go (lib/local-plane). Loaded through local-toolchain.ts only.
 */
export const REPOSITORY_TOOLCHAIN: LocalToolchain = {
  async startPlane({ report, env }) {
    return (await new LocalControlPlane({ report, env }).ensureRunning()).kubeconfig;
  },
  async cachedHelm() {
    return (await toolchainPaths()).helm;
  },
  async buildHelm() {
    return (await ensureToolchain({ only: [HELM.name], report: stderrReporter })).helm;
  },
};
