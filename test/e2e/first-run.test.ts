import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { run, runUnchecked } from "../../lib/cluster/process.js";
import { recipeDirectory } from "../../lib/local-plane/go-build.js";
import { ETCD, HELM, KUBERNETES, KWOK, PULUMI } from "../../lib/local-plane/toolchain.js";
import { EXAMPLE_APPLICATIONS, EXAMPLE_DATASTORES, EXAMPLE_SECRETS } from "../support/example-cluster.js";
import { REPOSITORY } from "../support/repository.js";

/** PATH without any directory holding one of `binaries`: what a machine without them has. */
function pathWithout(binaries: readonly string[], path: string): string {
  return path
    .split(delimiter)
    .filter((directory) => directory && !binaries.some((binary) => existsSync(join(directory, binary))))
    .join(delimiter);
}

/** The README's set-up line, as the README writes it. */
async function readmeSetUp(): Promise<string> {
  const readme = await readFile(join(REPOSITORY, "README.md"), "utf8");
  const block = /## Set-up: two commands[\s\S]*?```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? "";
  return block.split("\n")[0] ?? "";
}

// `npm start` as a fresh machine runs it: no kubeconfig, no helm and no pulumi on PATH, and a toolchain
// cache holding only the control plane's binaries (linked from this machine's cache: building them again
// would take the suite's whole budget). What the main job then lacks — helm, for the plan — it must build
// itself, and nothing more. It starts a plane of its own (another cache, another plane), stopped after.
describe("npm start on a fresh machine", () => {
  let home = "";
  let env: NodeJS.ProcessEnv = {};

  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), "navique-first-run-"));
    const cache = join(home, "cache");
    await mkdir(join(cache, "toolchain"), { recursive: true });
    for (const recipe of [ETCD, KUBERNETES, KWOK]) {
      await symlink(recipeDirectory(recipe), recipeDirectory(recipe, { NAVIQUE_CACHE_DIR: cache }));
    }
    // Go's own caches stay this machine's: the modules helm needs are in its module cache (no network),
    // and its build cache spares compiling what an earlier build compiled.
    const go = async (name: string) => (await run("go", ["env", name])).stdout.trim();
    env = {
      HOME: home,
      NAVIQUE_CACHE_DIR: cache,
      PATH: pathWithout(["helm", "pulumi"], process.env.PATH ?? ""),
      GOCACHE: await go("GOCACHE"),
      GOMODCACHE: await go("GOMODCACHE"),
      GOPATH: await go("GOPATH"),
      GOPROXY: "off",
      GOSUMDB: "off",
      LANG: "C.UTF-8",
    };
  });

  afterAll(async () => {
    if (home) {
      await runUnchecked("npm", ["run", "--silent", "toolchain", "--", "stop", "--purge"], { cwd: REPOSITORY, env });
      await rm(home, { recursive: true, force: true });
    }
  });

  it("is the README's first command", async () => {
    expect(await readmeSetUp()).toMatch(/^npm ci && npm start\s+#/);
  });

  it("builds helm, which the plan runs, starts the local plane and prints the example platform's decisions", async () => {
    const result = await runUnchecked("npm", ["start"], { cwd: REPOSITORY, env });
    const output = `${result.stdout}\n${result.stderr}`;
    // The whole output when it fails: what a user would have read.
    expect(`exit ${result.code}\n${result.code === 0 ? "" : output}`).toBe("exit 0\n");
    // The plane's binaries were found, not built; helm was built, with progress.
    expect(result.stderr).toContain(`[toolchain] helm ${HELM.version}: `);
    expect(result.stderr).not.toMatch(/\[toolchain\] (etcd|kubernetes|kwok) /);
    expect(result.stdout).toMatch(/^cluster: https:\/\/127\.0\.0\.1:\d+ \(local control plane, kubeconfig /m);
    expect(result.stdout).toContain("nodes: 1/1 Ready");
    expect(result.stdout).toContain("decisions for ");
    // A decision for every datastore of the example platform: the first of each, the capability
    // operators to install for the managed ones (no release on a fresh plane), what the adopted one waits for.
    for (const resource of [...EXAMPLE_DATASTORES, EXAMPLE_SECRETS, ...EXAMPLE_APPLICATIONS])
      expect(result.stdout).toContain(`${resource}: `);
    for (const [datastore, capability] of [
      ["PostgresCluster navique-example-platform/platform-db", "cloudnative-pg"],
      ["ClickHouseCluster navique-example-platform/langfuse-clickhouse", "clickhouse-operator"],
      ["RedisInstance navique-example-platform/langfuse-redis", "redis-operator"],
      ["MongoCluster navique-example-apps/librechat-mongo", "mongodb-kubernetes"],
    ])
      expect(result.stdout).toContain(`${datastore}: capability ${capability}: install ${capability} `);
    expect(result.stdout).toContain(
      "MeilisearchInstance navique-example-apps/librechat-search: install Helm release navique-example-apps/librechat-search (meilisearch 0.34.0)",
    );
    // It built exactly what it ran: the plane's three recipes and helm; no pulumi.
    const cached = (await readdir(join(env.NAVIQUE_CACHE_DIR ?? "", "toolchain"))).filter((f) => !f.endsWith(".lock"));
    expect(cached.sort()).toEqual(
      [ETCD, KUBERNETES, KWOK, HELM].map((recipe) => recipeDirectory(recipe, env).split("/").pop()).sort(),
    );
    expect(cached.some((entry) => entry.startsWith(`${PULUMI.name}-`))).toBe(false);
  });
});
