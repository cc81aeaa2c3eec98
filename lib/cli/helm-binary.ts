import { existsSync } from "node:fs";
import { resolveHelm } from "../cluster/helm-binary.js";
import { toolchainPaths } from "../local-plane/toolchain-paths.js";

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
