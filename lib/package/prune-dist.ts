/**
 * The last step of `npm run build`: deletes from dist/ every file that no entry point of the package
 * reaches, so that the tarball holds what users run and nothing else (docs/adr/0019-installable-package.md).
 * tsc compiles every module of lib/, constructs/ and providers/; of that, the bundles replace the CLI's and
 * the Pulumi front end's modules, and the builders (the local toolchain, the operator's image, the
 * generators of the chart and the docs) are the repository's. What stays is what package.json's `exports`
 * and `bin` lead to: the JavaScript their targets import (statically or dynamically, at any depth) and the
 * declarations their `types` import. Deciding by reach rather than by a list of exclusions keeps a new
 * builder, or a module a bundle made redundant, out of the package without anyone remembering to exclude it.
 *
 *   tsx lib/package/prune-dist.ts [PACKAGE_ROOT]
 */
import { readdir, readFile, rm, rmdir } from "node:fs/promises";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

/** The package.json fields that name files. */
interface EntryFields {
  readonly exports?: Readonly<Record<string, string | Readonly<Record<string, string>>>>;
  readonly types?: string;
  readonly bin?: string | Readonly<Record<string, string>>;
}

/** What users load: the modules Node.js runs and the declarations TypeScript reads, as paths from the package root. */
export interface PackageEntries {
  readonly code: readonly string[];
  readonly types: readonly string[];
}

/**
 * The files package.json hands out. An export's `types` condition is read by TypeScript, every other
 * condition by Node.js — except the repository's own `navique-sources`, which names a source file.
 */
export function packageEntries(manifest: EntryFields): PackageEntries {
  const code: string[] = [];
  const types: string[] = manifest.types ? [manifest.types] : [];
  for (const target of Object.values(manifest.exports ?? {})) {
    if (typeof target === "string") code.push(target);
    else {
      for (const [condition, path] of Object.entries(target)) {
        if (condition === "types") types.push(path);
        else if (condition !== "navique-sources") code.push(path);
      }
    }
  }
  const bin = manifest.bin;
  code.push(...(typeof bin === "string" ? [bin] : Object.values(bin ?? {})));
  return { code: code.map((p) => join(p)), types: types.map((p) => join(p)) };
}

/** The relative specifiers a module or declaration file imports, by TypeScript's own scanner. */
function relativeImports(source: string): string[] {
  const { importedFiles, referencedFiles } = ts.preProcessFile(source, true, true);
  return [...importedFiles, ...referencedFiles]
    .map((reference) => reference.fileName)
    .filter((specifier) => specifier.startsWith("./") || specifier.startsWith("../"));
}

/** The declaration file TypeScript reads for a module specifier tsc wrote (`./x.js` → `./x.d.ts`). */
function declarationOf(specifier: string): string {
  return specifier.endsWith(".js") ? `${specifier.slice(0, -".js".length)}.d.ts` : specifier;
}

/**
 * Every file `entries` reach by relative imports, paths from `root`. A reached file that does not exist
 * is an error: the package would fail where it imports it.
 */
export async function reachedFiles(
  root: string,
  entries: readonly string[],
  specifierToFile: (specifier: string) => string = (specifier) => specifier,
): Promise<Set<string>> {
  const reached = new Set<string>();
  const queue = [...entries];
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
    if (reached.has(file)) continue;
    reached.add(file);
    if (file.endsWith(".json")) continue;
    const source = await readFile(join(root, file), "utf8").catch((error: NodeJS.ErrnoException) => {
      throw new Error(`${file}, which an entry point of the package reaches, cannot be read (${error.code})`);
    });
    for (const specifier of relativeImports(source)) {
      queue.push(relative(root, resolve(root, dirname(file), specifierToFile(specifier))));
    }
  }
  return reached;
}

/** Every file under `directory`, as paths from `root`. */
async function filesUnder(root: string, directory: string): Promise<string[]> {
  const entries = await readdir(join(root, directory), { withFileTypes: true, recursive: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => relative(root, join(entry.parentPath, entry.name)))
    .sort();
}

/** Deletes every directory under `directory` left empty, deepest first. */
async function removeEmptyDirectories(root: string, directory: string): Promise<void> {
  const entries = await readdir(join(root, directory), { withFileTypes: true, recursive: true });
  const directories = entries
    .filter((entry) => entry.isDirectory())
    .map((entry) => join(entry.parentPath, entry.name))
    .sort((a, b) => b.split(sep).length - a.split(sep).length);
  for (const path of directories) {
    if ((await readdir(path)).length === 0) await rmdir(path);
  }
}

/** Deletes from `root`/dist what the package's entry points do not reach; what was kept and deleted. */
export async function pruneDist(root: string): Promise<{ kept: string[]; deleted: string[] }> {
  const manifest = JSON.parse(await readFile(join(root, "package.json"), "utf8")) as EntryFields;
  const entries = packageEntries(manifest);
  const outside = [...entries.code, ...entries.types].filter((file) => !file.startsWith(`dist${sep}`));
  if (outside.some((file) => file !== "package.json")) {
    throw new Error(`package.json names entry files outside dist/: ${outside.join(", ")}`);
  }
  const inDist = (files: readonly string[]) => files.filter((file) => file.startsWith(`dist${sep}`));
  const keep = new Set([
    ...(await reachedFiles(root, inDist(entries.code))),
    ...(await reachedFiles(root, inDist(entries.types), declarationOf)),
  ]);
  const files = await filesUnder(root, "dist");
  const deleted = files.filter((file) => !keep.has(file));
  for (const file of deleted) await rm(join(root, file));
  await removeEmptyDirectories(root, "dist");
  return { kept: files.filter((file) => keep.has(file)), deleted };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = resolve(process.argv[2] ?? ".");
  const { kept, deleted } = await pruneDist(root);
  // stderr: `npm pack --json` runs the build (prepack), and its stdout is the JSON.
  process.stderr.write(`dist/: kept ${kept.length} files the entry points reach, deleted ${deleted.length}\n`);
}
