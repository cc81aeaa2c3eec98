import { createHash } from "node:crypto";
import { mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { run } from "../../lib/cluster/process.js";
import { acquireDirectoryLock } from "../../lib/local-plane/lock.js";
import { REPOSITORY } from "./repository.js";

/** One build of the repository's dist/ at a time: suites that pack or copy it run in parallel workers. */
const BUILD_LOCK = join(
  tmpdir(),
  `navique-test-build-${createHash("sha256").update(REPOSITORY).digest("hex").slice(0, 12)}.lock`,
);

/**
 * Runs `use` while no other suite of this checkout rebuilds dist/: a build rewriting dist/ while another
 * suite packs or copies it would hand that suite a half-written file.
 */
async function withBuildLock<T>(use: () => Promise<T>): Promise<T> {
  const release = await acquireDirectoryLock(BUILD_LOCK, (line) => process.stderr.write(`${line}\n`));
  try {
    return await use();
  } finally {
    await release();
  }
}

/** Builds the package (`npm run build`) and runs `use` while no other suite of this checkout rebuilds dist/. */
export async function withBuiltPackage<T>(use: () => Promise<T>): Promise<T> {
  return withBuildLock(async () => {
    await run("npm", ["run", "build"], { cwd: REPOSITORY });
    return use();
  });
}

interface LockEntry {
  readonly version?: string;
  readonly resolved?: string;
  readonly integrity?: string;
  readonly dependencies?: Readonly<Record<string, string>>;
  readonly optionalDependencies?: Readonly<Record<string, string>>;
  readonly peerDependencies?: Readonly<Record<string, string>>;
  readonly peerDependenciesMeta?: Readonly<Record<string, { readonly optional?: boolean }>>;
  readonly [key: string]: unknown;
}

interface Lockfile {
  readonly packages: Readonly<Record<string, LockEntry>>;
}

/** A tarball `npm pack` wrote, as its `--json` report describes it. */
export interface PackedPackage {
  readonly tarball: string;
  /** The tarball's size in bytes. */
  readonly size: number;
  /** The sum of its files' sizes in bytes. */
  readonly unpackedSize: number;
  /** Each file, its path from the package's root. */
  readonly files: readonly { readonly path: string; readonly size: number }[];
}

/**
 * Packs the package as npm publishes it — `npm pack`, whose `prepack` builds it — into `destination`;
 * what npm reports of the tarball.
 */
export async function packPackageReport(destination: string): Promise<PackedPackage> {
  const { stdout } = await withBuildLock(() =>
    run("npm", ["pack", "--json", "--pack-destination", destination], { cwd: REPOSITORY }),
  );
  const [packed] = JSON.parse(stdout) as (Omit<PackedPackage, "tarball"> & { filename: string })[];
  if (!packed) throw new Error(`npm pack printed no tarball: ${stdout}`);
  const { size, unpackedSize, files } = packed;
  return { tarball: join(destination, packed.filename), size, unpackedSize, files };
}

/** Packs the package as npm publishes it (packPackageReport); the tarball's path. */
export async function packPackage(destination: string): Promise<string> {
  return (await packPackageReport(destination)).tarball;
}

/** Where a package `name` needed at `from` lies in a lock's tree, by Node's lookup: nested first, then each parent. */
function locate(lock: Lockfile, from: string, name: string): string | undefined {
  let base = from;
  for (;;) {
    const candidate = `${base ? `${base}/` : ""}node_modules/${name}`;
    if (lock.packages[candidate]) return candidate;
    if (!base) return undefined;
    const cut = base.lastIndexOf("/node_modules/");
    base = cut < 0 ? "" : base.slice(0, cut);
  }
}

/**
 * The registry's tarball URL of a locked package, which the repository's lockfile leaves out: npm ci
 * would otherwise ask the registry for the package's metadata to find it. npm's cache is keyed by the
 * entry's integrity, so the URL is only its name.
 */
function registryTarball(path: string, entry: LockEntry): string {
  // An alias's entry names the package it stands for.
  const name =
    typeof entry.name === "string"
      ? entry.name
      : path.slice(path.lastIndexOf("node_modules/") + "node_modules/".length);
  const base = name.slice(name.lastIndexOf("/") + 1);
  return `https://registry.npmjs.org/${name}/-/${base}-${entry.version}.tgz`;
}

/** Every lock entry `roots` need, their dependencies' entries included, at the places the lock puts them. */
function closure(lock: Lockfile, roots: readonly string[]): Map<string, LockEntry> {
  return closureOf(
    lock,
    roots.map((name) => ({ from: "", name, optional: false })),
  );
}

/** The entry at `path` of the lock and every entry it needs. */
function closureFrom(lock: Lockfile, path: string): Map<string, LockEntry> {
  const entry = lock.packages[path];
  if (!entry) throw new Error(`the repository's package-lock.json has no ${path}`);
  const dependencies = closureOf(lock, dependencyQueue(path, entry));
  return new Map([[path, entry], ...dependencies]);
}

/** What an entry of the lock depends on, to look up from its place. */
function dependencyQueue(path: string, entry: LockEntry): { from: string; name: string; optional: boolean }[] {
  const optionalPeers = entry.peerDependenciesMeta ?? {};
  return [
    ...Object.keys(entry.dependencies ?? {}).map((name) => ({ from: path, name, optional: false })),
    ...Object.keys(entry.optionalDependencies ?? {}).map((name) => ({ from: path, name, optional: true })),
    ...Object.keys(entry.peerDependencies ?? {}).map((name) => ({
      from: path,
      name,
      optional: optionalPeers[name]?.optional === true,
    })),
  ];
}

function closureOf(lock: Lockfile, queue: { from: string; name: string; optional: boolean }[]): Map<string, LockEntry> {
  const needed = new Map<string, LockEntry>();
  for (let next = queue.shift(); next; next = queue.shift()) {
    const path = locate(lock, next.from, next.name);
    if (!path) {
      if (next.optional) continue;
      throw new Error(`the repository's package-lock.json has no ${next.name} for ${next.from || "the root"}`);
    }
    if (needed.has(path)) continue;
    const entry = lock.packages[path] as LockEntry;
    needed.set(path, entry);
    queue.push(...dependencyQueue(path, entry));
  }
  return needed;
}

/**
 * Puts the lock entry at `aliasPath` (and what it needs) at the top under `name`; the repository's own copy
 * of that name, where other packages needed it, moves under each of them (as npm nests a version the top
 * level does not satisfy).
 */
function relocate(
  lock: Lockfile,
  needed: ReadonlyMap<string, LockEntry>,
  packages: Record<string, unknown>,
  name: string,
  aliasPath: string,
  entryOf: (lockPath: string, entry: LockEntry) => unknown,
): void {
  const top = `node_modules/${name}`;
  // The repository's own copy of that name, where other packages needed it, moves under each of them
  // (as npm nests a version the top level does not satisfy); the relocated one takes the top.
  const displaced = needed.get(top);
  if (displaced) {
    for (const [path, entry] of needed) {
      const direct = { ...entry.dependencies, ...entry.optionalDependencies };
      if (direct[name] !== undefined && locate(lock, path, name) === top) {
        packages[`${path}/node_modules/${name}`] = entryOf(top, displaced);
      }
    }
  }
  for (const [path, entry] of closureFrom(lock, aliasPath)) {
    if (path === aliasPath) packages[top] = entryOf(path, entry);
    else if (!packages[path]) packages[path] = entryOf(path, entry);
  }
}

/**
 * A user's own project outside the repository, installed with `npm ci --offline`: its package.json names
 * the packed tarball and `dependencies` (each at the version the repository locks), and its lockfile is
 * the repository's, cut down to what those need, with the tarball's entry added. The tests reach no
 * registry: every package comes from npm's cache, which installing the repository filled.
 */
export async function installScratchProject(
  directory: string,
  tarball: string,
  dependencies: readonly string[],
  options: {
    /**
     * A dependency installed from another entry of the repository's lock than its own name's: e.g.
     * `{ typescript: "node_modules/typescript-7" }`, the TypeScript a user gets today, which the
     * repository holds under an alias (test/fixtures/user-typescript) beside the one it compiles with.
     */
    readonly from?: Readonly<Record<string, string>>;
    /** Fields of the project's package.json kept as they are (`npm init` wrote them). @default none */
    readonly manifest?: Readonly<Record<string, unknown>>;
  } = {},
): Promise<void> {
  const lock = JSON.parse(await readFile(join(REPOSITORY, "package-lock.json"), "utf8")) as Lockfile;
  const manifest = JSON.parse(await readFile(join(REPOSITORY, "package.json"), "utf8")) as {
    name: string;
    version: string;
    dependencies: Record<string, string>;
    peerDependencies: Record<string, string>;
    peerDependenciesMeta: Record<string, { optional?: boolean }>;
    engines: Record<string, string>;
    bin: Record<string, string>;
  };
  const from = options.from ?? {};
  const versionOf = (name: string) => {
    const version = lock.packages[from[name] ?? `node_modules/${name}`]?.version;
    if (!version) throw new Error(`the repository's package-lock.json has no ${name}`);
    return version;
  };
  const tarballSpec = `file:${tarball}`;
  const direct = Object.fromEntries([
    [manifest.name, tarballSpec],
    ...dependencies.map((name) => [name, versionOf(name)]),
  ]);
  const packages: Record<string, unknown> = {
    "": { name: "user-project", dependencies: direct },
    [`node_modules/${manifest.name}`]: {
      version: manifest.version,
      resolved: tarballSpec,
      integrity: `sha512-${createHash("sha512")
        .update(await readFile(tarball))
        .digest("base64")}`,
      license: "UNLICENSED",
      dependencies: manifest.dependencies,
      peerDependencies: manifest.peerDependencies,
      peerDependenciesMeta: manifest.peerDependenciesMeta,
      bin: manifest.bin,
      engines: manifest.engines,
    },
  };
  const own = dependencies.filter((name) => from[name] === undefined);
  const relocated = Object.entries(from).filter(([name]) => dependencies.includes(name));
  const entryOf = (lockPath: string, entry: LockEntry) => {
    const { dev: _dev, devOptional: _devOptional, peer: _peer, name: _alias, ...kept } = entry;
    return { ...kept, ...(entry.resolved || entry.inBundle ? {} : { resolved: registryTarball(lockPath, entry) }) };
  };
  const needed = closure(lock, [...Object.keys(manifest.dependencies), ...own]);
  for (const [path, entry] of needed) packages[path] = entryOf(path, entry);
  for (const [name, aliasPath] of relocated) relocate(lock, needed, packages, name, aliasPath, entryOf);
  await writeFile(
    join(directory, "package.json"),
    `${JSON.stringify({ name: "user-project", private: true, type: "module", ...options.manifest, dependencies: direct }, null, 2)}\n`,
  );
  await writeFile(
    join(directory, "package-lock.json"),
    `${JSON.stringify({ name: "user-project", lockfileVersion: 3, requires: true, packages }, null, 2)}\n`,
  );
  await run("npm", ["ci", "--offline", "--no-audit", "--no-fund", "--ignore-scripts"], { cwd: directory });
}

/**
 * A Pulumi program in plain JavaScript (CommonJS, no compile step) in `directory`, using the packages
 * installed in a scratch project: its package.json, Pulumi.yaml and index.js, and the project's
 * node_modules linked in. Returns the directory.
 */
export async function writeJavaScriptProgram(
  directory: string,
  program: { readonly name: string; readonly nodeModules: string; readonly source: string },
): Promise<string> {
  await mkdir(directory);
  await symlink(program.nodeModules, join(directory, "node_modules"));
  await writeFile(join(directory, "package.json"), `${JSON.stringify({ name: program.name, private: true })}\n`);
  await writeFile(
    join(directory, "Pulumi.yaml"),
    `name: ${program.name}\nruntime:\n  name: nodejs\n  options:\n    typescript: false\n`,
  );
  await writeFile(join(directory, "index.js"), program.source);
  return directory;
}
