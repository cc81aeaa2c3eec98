import { createHash } from "node:crypto";
import { chmod, mkdir, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { recipeDirectory } from "./go-build.js";
import { cacheRoot } from "./paths.js";
import { PULUMI } from "./toolchain.js";

/** The name under which the Pulumi engine looks for the Node.js dynamic-provider plugin. */
const DYNAMIC_PROVIDER_PLUGIN = "pulumi-resource-pulumi-nodejs";

export interface PulumiEnvironment {
  /** Installation root of the CLI, as the Automation API's `PulumiCommand.get({ root })` expects it. */
  readonly cliRoot: string;
  readonly env: NodeJS.ProcessEnv;
}

/**
 * Writes the tiny plugin that runs Node.js dynamic providers: the engine starts it by name, and it runs
 * the dynamic-provider host of the same @pulumi/pulumi this process uses, under this same Node binary.
 * The script lives in the cache, keyed by those two paths.
 */
export async function ensureDynamicProviderShim(env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const require = createRequire(import.meta.url);
  const host = require.resolve("@pulumi/pulumi/cmd/dynamic-provider/index.js");
  const node = process.execPath;
  const key = createHash("sha256").update(`${node}\0${host}`).digest("hex").slice(0, 12);
  const dir = join(cacheRoot(env), "pulumi-shims", key);
  await mkdir(dir, { recursive: true });
  const script = join(dir, DYNAMIC_PROVIDER_PLUGIN);
  await writeFile(script, `#!/bin/sh\nexec "${node}" "${host}" "$@"\n`);
  await chmod(script, 0o755);
  return dir;
}

/**
 * The environment for running the Pulumi CLI offline against a local file backend: no update check,
 * no plugin downloads, state and secrets encrypted with a passphrase, CLI and dynamic-provider plugin on
 * PATH. `stateDir` holds the backend; `home` defaults to a directory beside it.
 */
export async function pulumiEnvironment(options: {
  readonly stateDir: string;
  readonly passphrase: string;
  readonly home?: string;
  readonly env?: NodeJS.ProcessEnv;
}): Promise<PulumiEnvironment> {
  const base = options.env ?? process.env;
  const cliRoot = recipeDirectory(PULUMI, base);
  const shimDir = await ensureDynamicProviderShim(base);
  const home = options.home ?? join(dirname(options.stateDir), ".pulumi-home");
  await mkdir(options.stateDir, { recursive: true });
  await mkdir(home, { recursive: true });
  return {
    cliRoot,
    env: {
      ...base,
      PATH: [join(cliRoot, "bin"), shimDir, base.PATH ?? ""].join(":"),
      PULUMI_HOME: home,
      PULUMI_BACKEND_URL: `file://${options.stateDir}`,
      PULUMI_CONFIG_PASSPHRASE: options.passphrase,
      PULUMI_SKIP_UPDATE_CHECK: "true",
      PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
      PULUMI_SKIP_CONFIRMATIONS: "true",
    },
  };
}
