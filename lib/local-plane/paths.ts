import { homedir } from "node:os";
import { join } from "node:path";

/**
 * Where the local control plane keeps what outlives one process: built binaries (keyed by version, shared
 * by every checkout on the machine) and the state of running planes.
 *
 * `NAVIQUE_CACHE_DIR` overrides the root; otherwise `$XDG_CACHE_HOME/navique-ai-core`, then
 * `~/.cache/navique-ai-core`. Nothing is written inside the repository.
 */
export function cacheRoot(env: NodeJS.ProcessEnv = process.env): string {
  if (env.NAVIQUE_CACHE_DIR) return env.NAVIQUE_CACHE_DIR;
  const xdg = env.XDG_CACHE_HOME;
  return join(xdg && xdg.length > 0 ? xdg : join(homedir(), ".cache"), "navique-ai-core");
}

export function toolchainDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(cacheRoot(env), "toolchain");
}

export function planeDir(name: string, env: NodeJS.ProcessEnv = process.env): string {
  return join(cacheRoot(env), "planes", name);
}
