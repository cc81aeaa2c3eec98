import { parseArgs } from "node:util";
import { readManifest } from "./go-build.js";
import { LocalControlPlane } from "./plane.js";
import { formatDuration, stderrReporter } from "./progress.js";
import { TOOLCHAIN } from "./toolchain.js";
import { ensureToolchain, toolchainPaths } from "./toolchain-paths.js";

const USAGE = `usage: npm run toolchain -- <command> [--name NAME] [--purge]

commands:
  ensure   build what the cache lacks (etcd, Kubernetes, kwok, helm, pulumi), then start the local
           control plane or reuse the running one
  build    build what the cache lacks, start nothing
  start    start the local control plane (or reuse the running one)
  stop     stop every process of the local control plane (--purge also deletes its data)
  status   say whether the plane is running and what the cache holds
  env      print shell exports (KUBECONFIG, PATH) for the running plane`;

type Handler = (plane: LocalControlPlane, purge: boolean) => Promise<number>;

const COMMANDS: Record<string, Handler> = {
  async ensure(plane) {
    const started = Date.now();
    await ensureToolchain();
    const connection = await plane.ensureRunning();
    stderrReporter(
      `[plane ${connection.name}] ${connection.started ? "started" : "reused"}: ${connection.server} (ready ${formatDuration(Date.now() - started)} after this command began)`,
    );
    return 0;
  },
  async build() {
    await ensureToolchain();
    return 0;
  },
  async start(plane) {
    const connection = await plane.ensureRunning();
    process.stdout.write(`${connection.kubeconfig}\n`);
    return 0;
  },
  async stop(plane, purge) {
    await plane.stop({ purge });
    stderrReporter(`[plane ${plane.name}] stopped${purge ? " and purged" : ""}`);
    return 0;
  },
  async status(plane) {
    const state = await plane.status();
    process.stdout.write(
      state
        ? `plane ${plane.name}: running since ${state.startedAt} on https://127.0.0.1:${state.ports.apiserver}\n  KUBECONFIG=${plane.kubeconfigPath}\n`
        : `plane ${plane.name}: not running\n`,
    );
    for (const recipe of TOOLCHAIN) {
      const manifest = await readManifest(recipe);
      const built = manifest
        ? `built ${manifest.builtAt} in ${formatDuration(manifest.buildSeconds * 1000)}`
        : "not built";
      process.stdout.write(`  ${recipe.name} ${recipe.version}: ${built}\n`);
    }
    return 0;
  },
  async env(plane) {
    if (!(await plane.status())) {
      process.stderr.write(`plane ${plane.name} is not running; start it with: npm run toolchain -- start\n`);
      return 1;
    }
    const paths = await toolchainPaths();
    process.stdout.write(
      `export KUBECONFIG=${plane.kubeconfigPath}\nexport PATH=${paths.pathEntries.join(":")}:$PATH\n`,
    );
    return 0;
  },
};

async function main(argv: string[]): Promise<number> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { name: { type: "string" }, purge: { type: "boolean" }, help: { type: "boolean", short: "h" } },
  });
  const command = positionals[0];
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const handler = command === undefined ? undefined : COMMANDS[command];
  if (!handler) {
    process.stderr.write(`${command === undefined ? "no command given" : `unknown command '${command}'`}\n${USAGE}\n`);
    return 2;
  }
  return handler(new LocalControlPlane({ name: values.name ?? "local" }), values.purge ?? false);
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
