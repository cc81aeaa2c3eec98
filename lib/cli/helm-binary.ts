import { existsSync } from "node:fs";
import { resolveHelm } from "../cluster/helm-binary.js";
import { stderrReporter } from "../local-plane/progress.js";
import { HELM } from "../local-plane/toolchain.js";
import { ensureToolchain, toolchainPaths } from "../local-plane/toolchain-paths.js";

/**
 * The helm binary a CLI command runs: `--helm`, else `helm` on PATH (the operator's image has it
 * there), else the one the local toolchain built (`npm run toolchain -- build`); none of them is an
 * error naming all three.
 */
export async function cliHelm(configured: string | undefined): Promise<string> {
  if (configured !== undefined) return resolveHelm(configured);
  try {
    return resolveHelm(undefined);
  } catch (error) {
    const built = (await toolchainPaths()).helm;
    if (existsSync(built)) return built;
    throw new Error(`${(error as Error).message}, or build the local toolchain's: npm run toolchain -- build`);
  }
}

/**
 * The helm `navique up` runs: as `cliHelm` finds one, else the local toolchain's, built now (with
 * progress) when the cache lacks it. `up` prepares everything it then runs, so that its first run on a
 * fresh machine — no helm installed, only the Go toolchain — goes through instead of stopping at the plan.
 */
export async function preparedHelm(configured: string | undefined): Promise<string> {
  if (configured !== undefined) return resolveHelm(configured);
  try {
    return resolveHelm(undefined);
  } catch {
    return (await ensureToolchain({ only: [HELM.name], report: stderrReporter })).helm;
  }
}
