import { createHash } from "node:crypto";
import { mkdirSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { REPOSITORY } from "./repository.js";

/**
 * A directory holding `@navique/ai-core` as a link to this repository, for NODE_PATH: the product's
 * dynamic provider resolves its runtime by package name from the program's directory, as an installed
 * package is found; the test programs, each a project of its own beside the sources, find it there.
 * Keyed by the repository's path, so that two clones never share it.
 */
function linkedPackageDirectory(): string {
  const key = createHash("sha256").update(REPOSITORY).digest("hex").slice(0, 12);
  const directory = join(tmpdir(), `navique-sources-${key}`);
  const link = join(directory, "@navique", "ai-core");
  mkdirSync(dirname(link), { recursive: true });
  try {
    symlinkSync(REPOSITORY, link, "dir");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  return directory;
}

/**
 * The environment under which a Pulumi program of this repository, and its dynamic-provider processes,
 * load the product's TypeScript sources: through tsx, as the README's example runs. Pulumi's Node.js
 * language host also registers ts-node for a TypeScript project, whose loader runs before tsx's and
 * type-checks every imported source through a language service (28 s and 780 MiB for a two-resource
 * `pulumi preview` here); `TS_NODE_IGNORE` matching every file leaves each one to tsx (12.6 s). The
 * `navique-sources` condition makes the package's runtime export name its TypeScript source rather than
 * dist/, which tests do not build. Only how the sources are found and compiled differs: the programs,
 * the CLI and the engine are the real ones.
 */
export const TYPESCRIPT_SOURCES_ENV = {
  NODE_OPTIONS: `--import ${import.meta.resolve("tsx")} --conditions=navique-sources`,
  TS_NODE_IGNORE: ".*",
  NODE_PATH: linkedPackageDirectory(),
} as const;
