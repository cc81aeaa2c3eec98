import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { copyFile, mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { basename, join } from "node:path";
import { run, runUnchecked } from "../cluster/process.js";
import { withDirectoryLock } from "./lock.js";
import { toolchainDir } from "./paths.js";
import { formatDuration, type Reporter } from "./progress.js";
import type { GoToolRecipe } from "./toolchain.js";

/** What a finished build leaves beside its binaries, so a reader knows what they are and what they cost. */
export interface BuildManifest {
  readonly name: string;
  readonly version: string;
  readonly goVersion: string;
  readonly builtAt: string;
  readonly buildSeconds: number;
  readonly binaries: readonly string[];
}

const PROGRESS_INTERVAL_MS = 15_000;

/**
 * The cache directory of a recipe: its name and version, plus a digest of everything that shapes the
 * binaries (requirements, replacements, flags), so that editing a recipe never reuses a stale build.
 */
export function recipeDirectory(recipe: GoToolRecipe, env: NodeJS.ProcessEnv = process.env): string {
  const digest = createHash("sha256").update(JSON.stringify(recipe)).digest("hex").slice(0, 10);
  return join(toolchainDir(env), `${recipe.name}-${recipe.version}-${digest}`);
}

export function binaryPath(recipe: GoToolRecipe, binary: string, env: NodeJS.ProcessEnv = process.env): string {
  return join(recipeDirectory(recipe, env), "bin", binary);
}

export async function readManifest(recipe: GoToolRecipe, env = process.env): Promise<BuildManifest | undefined> {
  const file = join(recipeDirectory(recipe, env), "manifest.json");
  if (!existsSync(file)) return undefined;
  return JSON.parse(await readFile(file, "utf8")) as BuildManifest;
}

function wrapperModule(recipe: GoToolRecipe): string {
  return `navique.local/toolchain/${recipe.name}`;
}

/**
 * Where a module the recipe requires lies in the module cache, downloaded first when missing: `go mod
 * download`, not `go list -m`, which answers an empty directory for a module not downloaded yet (a cold
 * module cache, before `go mod tidy` has run).
 */
async function moduleDirectory(
  recipe: GoToolRecipe,
  module: string,
  work: string,
  goEnv: NodeJS.ProcessEnv,
): Promise<string> {
  const version = recipe.require.find(([required]) => required === module)?.[1];
  if (!version) throw new Error(`recipe ${recipe.name}: module ${module} is not required`);
  const downloaded = await run("go", ["mod", "download", "-json", `${module}@${version}`], { cwd: work, env: goEnv });
  const { Dir: dir } = JSON.parse(downloaded.stdout) as { Dir?: string };
  if (!dir) throw new Error(`recipe ${recipe.name}: go mod download named no directory for ${module}@${version}`);
  return dir;
}

/**
 * Writes a recipe's copied main into the wrapper module (before `go mod tidy`, which must see its
 * imports): its sources as they are, its generated files from the module's JSON files.
 */
async function writeCopiedMain(recipe: GoToolRecipe, work: string, goEnv: NodeJS.ProcessEnv): Promise<void> {
  const main = recipe.copiedMain;
  if (!main) return;
  const source = join(await moduleDirectory(recipe, main.module, work, goEnv), main.from);
  const target = join(work, main.dir);
  await mkdir(target, { recursive: true });
  // Copied as text: the module cache's files are read-only, and a copy would keep that mode.
  for (const file of main.sources) await writeFile(join(target, file), await readFile(join(source, file)));
  for (const file of main.generated) {
    const document = JSON.parse(await readFile(join(source, file.from), "utf8")) as Record<string, unknown>;
    await writeFile(
      join(target, file.to),
      JSON.stringify(file.version ? { ...document, version: file.version } : document),
    );
  }
}

/** The go.mod of the wrapper module through which a recipe is built. */
export function wrapperGoMod(recipe: GoToolRecipe, goLanguageVersion: string): string {
  const lines = [`module ${wrapperModule(recipe)}`, "", `go ${goLanguageVersion}`, ""];
  if (recipe.godebug) lines.push(`godebug ${recipe.godebug}`, "");
  lines.push("require (", ...recipe.require.map(([m, v]) => `\t${m} ${v}`), ")", "");
  // A main copied into the wrapper module is one of its own packages, not a tool of another module.
  const tools = recipe.binaries.filter((b) => !b.pkg.startsWith(`${wrapperModule(recipe)}/`));
  if (tools.length > 0) lines.push("tool (", ...tools.map((b) => `\t${b.pkg}`), ")", "");
  if (recipe.replace.length > 0) {
    lines.push("replace (", ...recipe.replace.map(([from, to, v]) => `\t${from} => ${to} ${v}`), ")", "");
  }
  return lines.join("\n");
}

/**
 * Returns the directory holding a recipe's binaries, building them first when the cache lacks them.
 * A build runs in a scratch directory and is moved into place only when complete, so an interrupted
 * build is never mistaken for a finished one; a lock keeps two processes from building the same recipe.
 */
export async function ensureBuilt(
  recipe: GoToolRecipe,
  options: { readonly report: Reporter; readonly goLanguageVersion: string; readonly env?: NodeJS.ProcessEnv },
): Promise<string> {
  const env = options.env ?? process.env;
  const dir = recipeDirectory(recipe, env);
  const binDir = join(dir, "bin");
  const complete = () => existsSync(join(dir, "manifest.json"));
  if (complete()) return binDir;

  await mkdir(toolchainDir(env), { recursive: true });
  await withDirectoryLock(`${dir}.lock`, options.report, async () => {
    if (complete()) return;
    await build(recipe, dir, options.goLanguageVersion, options.report, env);
  });
  return binDir;
}

async function build(
  recipe: GoToolRecipe,
  dir: string,
  goLanguageVersion: string,
  report: Reporter,
  env: NodeJS.ProcessEnv,
): Promise<void> {
  const label = `${recipe.name} ${recipe.version}`;
  const started = Date.now();
  const work = `${dir}.work`;
  await rm(work, { recursive: true, force: true });
  await mkdir(join(work, "bin"), { recursive: true });
  await writeFile(join(work, "go.mod"), wrapperGoMod(recipe, goLanguageVersion));

  const goEnv: NodeJS.ProcessEnv = { ...env, CGO_ENABLED: recipe.cgo ? "1" : "0", GOFLAGS: "-mod=mod" };
  const goVersion = (await run("go", ["env", "GOVERSION"], { env: goEnv })).stdout.trim();

  report(`[toolchain] ${label}: resolving modules (go ${goVersion})`);
  await writeCopiedMain(recipe, work, goEnv);
  const resolving = setInterval(
    () => report(`[toolchain] ${label}: still resolving modules, ${formatDuration(Date.now() - started)} elapsed`),
    PROGRESS_INTERVAL_MS,
  );
  try {
    await run("go", ["mod", "tidy"], { cwd: work, env: goEnv });
  } finally {
    clearInterval(resolving);
  }

  const tags = recipe.tags.length > 0 ? [`-tags=${recipe.tags.join(",")}`] : [];
  const pkgs = recipe.binaries.map((b) => b.pkg);
  const listed = await run(
    "go",
    ["list", ...tags, "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ...pkgs],
    {
      cwd: work,
      env: goEnv,
    },
  );
  const total = listed.stdout.split("\n").filter((l) => l.length > 0).length;
  let compiled = 0;
  report(`[toolchain] ${label}: compiling ${total} packages into ${recipe.binaries.map((b) => b.binary).join(", ")}`);
  // `go build -v` names each package as it compiles it (cached ones are not named): that count, against
  // the dependency count, is the "how far" of the progress line, printed on a timer so that a long
  // compile of one large package still shows the build is alive.
  const ticker = setInterval(() => {
    const pct = Math.min(99, Math.round((compiled / Math.max(total, 1)) * 100));
    report(
      `[toolchain] ${label}: ${compiled}/${total} packages (~${pct}%), ${formatDuration(Date.now() - started)} elapsed`,
    );
  }, PROGRESS_INTERVAL_MS);
  try {
    for (const { binary, pkg } of recipe.binaries) {
      const args = [
        "build",
        "-v",
        "-trimpath",
        ...tags,
        `-ldflags=${recipe.ldflags.join(" ")}`,
        "-o",
        join(work, "bin", binary),
        pkg,
      ];
      const result = await runUnchecked("go", args, {
        cwd: work,
        env: goEnv,
        onLine: (line) => {
          // A cold build also compiles the standard library, which the count leaves out: its import paths
          // are the ones whose first element has no dot.
          const isPackage = line.length > 0 && !line.startsWith("#") && !line.includes(" ");
          if (isPackage && line.split("/")[0]?.includes(".")) compiled += 1;
        },
      });
      if (result.code !== 0) {
        const tail = result.stderr.trim().split("\n").slice(-30).join("\n");
        throw new Error(
          `building ${binary} (${pkg}) of ${label} failed:\n${tail}\nThe wrapper module is kept in ${work} for inspection.`,
        );
      }
    }
  } finally {
    clearInterval(ticker);
  }

  if (recipe.assets) {
    const moduleDir = await moduleDirectory(recipe, recipe.assets.module, work, goEnv);
    await mkdir(join(work, "assets"), { recursive: true });
    for (const file of recipe.assets.files) await copyFile(join(moduleDir, file), join(work, "assets", basename(file)));
  }

  const seconds = Math.round((Date.now() - started) / 1000);
  const manifest: BuildManifest = {
    name: recipe.name,
    version: recipe.version,
    goVersion,
    builtAt: new Date().toISOString(),
    buildSeconds: seconds,
    binaries: recipe.binaries.map((b) => b.binary),
  };
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  await rename(join(work, "bin"), join(dir, "bin"));
  for (const entry of ["go.mod", "go.sum", ...(recipe.assets ? ["assets"] : [])]) {
    await rename(join(work, entry), join(dir, entry));
  }
  // The manifest is written last: its presence is what marks the build complete.
  await writeFile(join(dir, "manifest.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  await rm(work, { recursive: true, force: true });
  report(`[toolchain] ${label}: built in ${formatDuration(seconds * 1000)}`);
}
