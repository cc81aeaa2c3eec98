import { accessSync, constants, statSync } from "node:fs";
import { delimiter, join } from "node:path";

/** Whether `path` is a file this process may execute. */
function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * The helm binary to run, found when it is needed rather than recorded where it was once found: the
 * path configured (a component's `helm`, the operator's `--helm`), else `helm` on PATH. So that a
 * Pulumi state or a synthesized manifest never holds a path of the machine that wrote it, and the same
 * state works from another machine. Fails naming both places when neither has one.
 */
export function resolveHelm(configured: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  if (configured !== undefined) {
    if (executable(configured)) return configured;
    throw new Error(
      `helm ${configured} (configured as the helm binary) is not an executable file: point \`helm\` at a helm v4 binary, or leave it unset to use helm from PATH`,
    );
  }
  for (const directory of (env.PATH ?? "").split(delimiter)) {
    if (!directory) continue;
    const candidate = join(directory, "helm");
    if (executable(candidate)) return candidate;
  }
  throw new Error(
    "no helm binary: none configured (the component's `helm` argument, or --helm) and none named helm on PATH; install helm v4 or point `helm` at it",
  );
}
