import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { chmod, copyFile, link, mkdir, rename, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { binaryPath } from "./go-build.js";
import { cacheRoot } from "./paths.js";
import { PULUMI, PULUMI_LANGUAGE_NODEJS } from "./toolchain.js";

/** The name under which the Pulumi engine looks for the Node.js dynamic-provider plugin. */
const DYNAMIC_PROVIDER_PLUGIN = "pulumi-resource-pulumi-nodejs";

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

/**
 * A directory holding the pulumi CLI with the plugins it expects beside it: the Node.js language host and
 * the dynamic-provider plugin, a two-line script that runs the dynamic-provider host of the same
 * @pulumi/pulumi this process uses, under this same Node binary. The engine prefers plugins found next
 * to its own executable, so the binaries are hard links (copies across file systems) rather than PATH
 * entries. Keyed by every path it depends on; the script is written last and marks it complete.
 */
export async function ensurePulumiBundle(env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const require = createRequire(import.meta.url);
  const providerHost = require.resolve("@pulumi/pulumi/cmd/dynamic-provider/index.js");
  const node = process.execPath;
  const cli = binaryPath(PULUMI, "pulumi", env);
  const languageHost = binaryPath(PULUMI_LANGUAGE_NODEJS, "pulumi-language-nodejs", env);
  for (const binary of [cli, languageHost]) {
    if (!existsSync(binary))
      throw new Error(`${binary} is missing: build the toolchain first (npm run toolchain -- build)`);
  }
  const key = createHash("sha256")
    .update([node, providerHost, cli, languageHost].join("\0"))
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
  await writeFile(partial, `#!/bin/sh\nexec "${node}" "${providerHost}" "$@"\n`);
  await chmod(partial, 0o755);
  await rename(partial, shim);
  return root;
}

/**
 * The environment for running the Pulumi CLI offline against a local file backend: no update check,
 * no plugin downloads, state and secrets encrypted with a passphrase, the CLI bundle first on PATH.
 * `stateDir` holds the backend; `home` (PULUMI_HOME) defaults to a directory beside it.
 */
export async function pulumiEnvironment(options: {
  readonly stateDir: string;
  readonly passphrase: string;
  readonly home?: string;
  readonly env?: NodeJS.ProcessEnv;
}): Promise<PulumiEnvironment> {
  const base = options.env ?? process.env;
  const cliRoot = await ensurePulumiBundle(base);
  const home = options.home ?? join(dirname(options.stateDir), ".pulumi-home");
  await mkdir(options.stateDir, { recursive: true });
  await mkdir(home, { recursive: true });
  return {
    cliRoot,
    env: {
      ...base,
      // The language host starts programs with the `node` it finds on PATH: make it this Node 22.
      PATH: [join(cliRoot, "bin"), dirname(process.execPath), base.PATH ?? ""].join(":"),
      PULUMI_HOME: home,
      PULUMI_BACKEND_URL: `file://${options.stateDir}`,
      PULUMI_CONFIG_PASSPHRASE: options.passphrase,
      PULUMI_SKIP_UPDATE_CHECK: "true",
      PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
      PULUMI_SKIP_CONFIRMATIONS: "true",
    },
  };
}
