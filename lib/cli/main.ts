import { parseArgs } from "node:util";
import { LicenseError } from "../licence/token.js";
import { PACKAGE_NAME, PACKAGE_VERSION } from "../package/manifest.js";
import { LICENSE_EXIT_CODES, runLicense } from "./license-command.js";

const USAGE = `usage: navique <command> [--kubeconfig PATH] [options]
       navique --version | --help

commands:
  up        prepare the target cluster (without --kubeconfig, $KUBECONFIG or ~/.kube/config: the
            built-in local control plane, built on first run and started), report it and, with -f FILE,
            print the decisions the resources of that file would get there, changing nothing
  plan      print the decisions a reconcile would make for every resource of the product in a YAML file
            (-f FILE, e.g. cdk8s synth output) against the cluster, changing nothing
  license   keygen --out DIR --key-id ID | sign --key FILE --key-id ID --payload FILE |
            verify (--token T | --file F) [--trust ID=PUBFILE] | inspect (--token T | --file F);
            --now INSTANT evaluates at another time
  operator  run the operator against the cluster: watch every kind of the product and reconcile it
            continuously (--chart-source official|dir:PATH|oci://REGISTRY, --resync SECONDS,
            --helm PATH, --watch-namespaces NS[,NS...] to serve only those namespaces)`;

const OPTIONS = {
  kubeconfig: { type: "string" },
  "chart-source": { type: "string" },
  resync: { type: "string" },
  helm: { type: "string" },
  "watch-namespaces": { type: "string" },
  file: { type: "string", short: "f" },
  out: { type: "string" },
  "key-id": { type: "string" },
  key: { type: "string" },
  payload: { type: "string" },
  token: { type: "string" },
  trust: { type: "string", multiple: true },
  now: { type: "string" },
  help: { type: "boolean", short: "h" },
  version: { type: "boolean" },
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>["values"];

async function license(action: string | undefined, values: Values): Promise<number> {
  try {
    return await runLicense(action, {
      out: values.out,
      keyId: values["key-id"],
      key: values.key,
      payload: values.payload,
      token: values.token,
      file: values.file,
      trust: values.trust ?? [],
      now: values.now,
    });
  } catch (error) {
    if (!(error instanceof LicenseError)) throw error;
    process.stderr.write(`navique: licence refused (${error.code}): ${error.message}\n`);
    return LICENSE_EXIT_CODES[error.code];
  }
}

async function operator(values: Values): Promise<number> {
  const { parseWatchNamespaces, runOperator } = await import("./operator-command.js");
  const resync = values.resync === undefined ? undefined : Number(values.resync);
  if (resync !== undefined && !(resync > 0)) {
    throw new Error(`--resync ${values.resync}: expected a number of seconds greater than 0, e.g. --resync 30`);
  }
  const code = await runOperator({
    kubeconfig: values.kubeconfig,
    chartSource: values["chart-source"] ?? process.env.NAVIQUE_CHART_SOURCE,
    resyncSeconds: resync,
    helm: values.helm,
    watchNamespaces: parseWatchNamespaces(values["watch-namespaces"]),
  });
  // Stopped, the server exits rather than waiting for the event loop to empty: client-node's informer opens
  // a watch it was told to stop while that watch was still connecting, and such a socket would hold it.
  process.exit(code);
}

// The commands that talk to a cluster are loaded when run: the Kubernetes client alone is ~870 modules,
// which `navique license` and `--help` do not need.
const COMMANDS: Record<string, (positionals: string[], values: Values) => Promise<number>> = {
  up: async (_, values) => (await import("./up-command.js")).runUp(values.kubeconfig, values.file),
  plan: async (_, values) =>
    (await import("./plan-command.js")).runPlan({
      file: values.file,
      kubeconfig: values.kubeconfig,
      chartSource: values["chart-source"] ?? process.env.NAVIQUE_CHART_SOURCE,
    }),
  license: (positionals, values) => license(positionals[1], values),
  operator: (_, values) => operator(values),
};

async function main(argv: string[]): Promise<number> {
  const { positionals, values } = parseArgs({ args: argv, allowPositionals: true, options: OPTIONS });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (values.version) {
    process.stdout.write(`${PACKAGE_NAME} ${PACKAGE_VERSION}\n`);
    return 0;
  }
  const command = positionals[0] === undefined ? undefined : COMMANDS[positionals[0]];
  if (!command) {
    process.stderr.write(`${positionals[0] ? `unknown command '${positionals[0]}'` : "no command given"}\n${USAGE}\n`);
    return 2;
  }
  return command(positionals, values);
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`navique: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
