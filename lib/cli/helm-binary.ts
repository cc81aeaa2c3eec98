import { existsSync } from "node:fs";
import { resolveHelm } from "../cluster/helm-binary.js";
import { localToolchain } from "./local-toolchain.js";

/**
 * The helm binary a CLI command runs: `--helm`, else `helm` on PATH (the operator's image has it
 * there), else — from the repository — the one the local toolchain built (`npm run toolchain -- build`);
 * none of them is an error naming all three.
 */
export async function cliHelm(configured: string | undefined): Promise<string> {
  if (configured !== undefined) return resolveHelm(configured);
  try {
    return resolveHelm(undefined);
  } catch (error) {
    const local = await localToolchain();
    if (!local) throw error;
    const built = await local.cachedHelm();
    if (existsSync(built)) return built;
    throw new Error(`${(error as Error).message}, or build the local toolchain's: npm run toolchain -- build`);
  }
}

/**
 * The helm `navique up` runs: as `cliHelm` finds one, else — from the repository — the local toolchain's,
 * built now (with progress) when the cache lacks it. `up` prepares everything it then runs, so that its
 * first run on a fresh machine — no helm installed, only the Go toolchain — goes through instead of
 * stopping at the plan.
 */
export async function preparedHelm(configured: string | undefined): Promise<string> {
  if (configured !== undefined) return resolveHelm(configured);
  try {
    return resolveHelm(undefined);
  } catch (error) {
    const local = await localToolchain();
    if (!local) throw error;
    return local.buildHelm();
  }
}
