import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { chmod, copyFile, link, mkdir, rename, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { binaryPath } from "./go-build.js";
import { cacheRoot } from "./paths.js";
import { PULUMI, PULUMI_KUBERNETES, PULUMI_LANGUAGE_NODEJS } from "./toolchain.js";
import { toolchainPaths } from "./toolchain-paths.js";

/** The name under which the Pulumi engine looks for the Node.js dynamic-provider plugin. */
const DYNAMIC_PROVIDER_PLUGIN = "pulumi-resource-pulumi-nodejs";

/**
 * The plugin, doing what the script of that name in Pulumi's Node.js SDK distribution does
 * (sdk/nodejs/dist/pulumi-resource-pulumi-nodejs): run the dynamic-provider host of the @pulumi/pulumi
 * that the program's directory (the plugin's working directory) resolves, under the `node` on PATH.
 */
const DYNAMIC_PROVIDER_SCRIPT = `#!/bin/sh
host=$(node -e "process.stdout.write(require.resolve('@pulumi/pulumi/cmd/dynamic-provider'))") || exit 1
exec node "$host" "$@"
`;

export interface PulumiEnvironment {
  /** Installation root of the CLI (binaries in `bin/`), as `PulumiCommand.get({ root })` expects it. */
  readonly cliRoot: string;
  readonly env: NodeJS.ProcessEnv;
}

async function linkOrCopy(from: string, to: string): Promise<void> {
  if (existsSync(to)) return;
  try {
    await link(from, to);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EEXIST") return;
    if (code !== "EXDEV" && code !== "EPERM") throw error;
    await copyFile(from, to);
  }
}

function requireBuilt(binary: string): void {
  if (!existsSync(binary))
    throw new Error(`${binary} is missing: build the toolchain first (npm run toolchain -- build)`);
}

/**
 * A directory holding the pulumi CLI with the plugins it expects beside it, as Pulumi's distribution
 * lays them out: the Node.js language host and the dynamic-provider plugin (DYNAMIC_PROVIDER_SCRIPT).
 * The engine prefers plugins found next to its own executable, so the binaries are hard links (copies
 * across file systems) rather than PATH entries. Keyed by everything it holds; the script is written
 * last and marks it complete.
 */
export async function ensurePulumiBundle(env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const cli = binaryPath(PULUMI, "pulumi", env);
  const languageHost = binaryPath(PULUMI_LANGUAGE_NODEJS, "pulumi-language-nodejs", env);
  for (const binary of [cli, languageHost]) requireBuilt(binary);
  const key = createHash("sha256")
    .update([cli, languageHost, DYNAMIC_PROVIDER_SCRIPT].join("\0"))
    .digest("hex")
    .slice(0, 12);
  const root = join(cacheRoot(env), "pulumi-bundles", key);
  const bin = join(root, "bin");
  const shim = join(bin, DYNAMIC_PROVIDER_PLUGIN);
  if (existsSync(shim)) return root;
  await mkdir(bin, { recursive: true });
  await linkOrCopy(cli, join(bin, "pulumi"));
  await linkOrCopy(languageHost, join(bin, "pulumi-language-nodejs"));
  const partial = `${shim}.${process.pid}`;
  await writeFile(partial, DYNAMIC_PROVIDER_SCRIPT);
  await chmod(partial, 0o755);
  await rename(partial, shim);
  return root;
}

/**
 * The environment for running the Pulumi CLI offline against a local file backend: no update check,
 * no plugin downloads, state and secrets encrypted with a passphrase, the CLI bundle first on PATH.
 * `stateDir` holds the backend; `home` (PULUMI_HOME) defaults to a directory beside it.
 *
 * The home's plugin cache holds the Kubernetes resource plugin the toolchain built, where `pulumi
 * plugin install` would put the downloaded one (PULUMI_HOME/plugins/resource-kubernetes-vVERSION):
 * programs that pass a `@pulumi/kubernetes` Provider need it. Found on PATH instead, the engine would
 * warn in every program whose node_modules holds @pulumi/kubernetes.
 */
export async function pulumiEnvironment(options: {
  readonly stateDir: string;
  readonly passphrase: string;
  readonly home?: string;
  readonly env?: NodeJS.ProcessEnv;
}): Promise<PulumiEnvironment> {
  const base = options.env ?? process.env;
  const cliRoot = await ensurePulumiBundle(base);
  const toolchain = await toolchainPaths(base);
  const home = options.home ?? join(dirname(options.stateDir), ".pulumi-home");
  await mkdir(options.stateDir, { recursive: true });
  const kubernetesPlugin = binaryPath(PULUMI_KUBERNETES, "pulumi-resource-kubernetes", base);
  requireBuilt(kubernetesPlugin);
  const plugins = join(home, "plugins", `resource-kubernetes-v${PULUMI_KUBERNETES.version}`);
  await mkdir(plugins, { recursive: true });
  await linkOrCopy(kubernetesPlugin, join(plugins, "pulumi-resource-kubernetes"));
  return {
    cliRoot,
    env: {
      ...base,
      // The language host and the dynamic-provider plugin start the `node` they find on PATH: this Node 22.
      // Components find helm on PATH when they run: the toolchain's.
      PATH: [join(cliRoot, "bin"), dirname(process.execPath), dirname(toolchain.helm), base.PATH ?? ""].join(":"),
      PULUMI_HOME: home,
      PULUMI_BACKEND_URL: `file://${options.stateDir}`,
      PULUMI_CONFIG_PASSPHRASE: options.passphrase,
      PULUMI_SKIP_UPDATE_CHECK: "true",
      PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
      PULUMI_SKIP_CONFIRMATIONS: "true",
    },
  };
}
