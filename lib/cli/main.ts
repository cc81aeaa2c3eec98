import { parseArgs } from "node:util";
import { LicenseError } from "../licence/token.js";
import { PACKAGE_NAME, PACKAGE_VERSION } from "../package/manifest.js";
import { LICENSE_EXIT_CODES, runLicense } from "./license-command.js";

const USAGE = `usage: navique <command> [--kubeconfig PATH] [options]
       navique --version | --help

commands:
  up        prepare the target cluster (without --kubeconfig, $KUBECONFIG or ~/.kube/config: the
            built-in local control plane, built on first run and started), report it and, with -f PATH,
            print the decisions the resources there would get, changing nothing; exits 0, or 1 when a
            resource would be refused or stall, an input cannot be judged, or no node is Ready
  plan      [-f] PATH... (files, or directories read for *.yaml and *.yml at any depth, e.g. cdk8s
            synth output): print every decision a reconcile would make for each resource of the
            product against the cluster — nothing for one already in place —, changing nothing;
            --trust ID=PUBFILE also trusts that key for a licence the paths declare. Exit codes
            (docs/plan.md): 0 nothing to change, 2 changes planned, 1 a resource refused, stalled,
            invalid or not implemented, or an input not judged
  license   keygen --out DIR --key-id ID | sign --key FILE --key-id ID --payload FILE |
            verify (--token T | --file F) [--trust ID=PUBFILE] | inspect (--token T | --file F);
            --now INSTANT evaluates at another time
  operator  run the operator against the cluster: watch every kind of the product and reconcile it
            continuously (--chart-source official|dir:PATH|oci://REGISTRY, --resync SECONDS,
            --helm PATH, --watch-namespaces NS[,NS...] to serve only those namespaces); with
            --leader-elect (the default) only the holder of the Lease navique-system/
            navique-ai-core-operator-leader reconciles and the others wait as standbys;
            --leader-elect=false runs without election, for a single process; --trust ID=PUBFILE
            also trusts that key for the licence`;

const OPTIONS = {
  kubeconfig: { type: "string" },
  "chart-source": { type: "string" },
  resync: { type: "string" },
  helm: { type: "string" },
  "watch-namespaces": { type: "string" },
  "leader-elect": { type: "string" },
  file: { type: "string", short: "f", multiple: true },
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

/** The one file a command reads (`license --file`): a second one is refused rather than ignored. */
function oneFile(files: readonly string[] | undefined): string | undefined {
  if (files && files.length > 1) throw new Error(`--file given ${files.length} times: this command reads one file`);
  return files?.[0];
}

async function license(action: string | undefined, values: Values): Promise<number> {
  try {
    return await runLicense(action, {
      out: values.out,
      keyId: values["key-id"],
      key: values.key,
      payload: values.payload,
      token: values.token,
      file: oneFile(values.file),
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
  const { parseLeaderElect, parseWatchNamespaces, runOperator } = await import("./operator-command.js");
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
    leaderElect: parseLeaderElect(values["leader-elect"]),
    trust: values.trust ?? [],
  });
  // Stopped, the server exits rather than waiting for the event loop to empty: client-node's informer opens
  // a watch it was told to stop while that watch was still connecting, and such a socket would hold it.
  process.exit(code);
}

// The commands that talk to a cluster are loaded when run: the Kubernetes client alone is ~870 modules,
// which `navique license` and `--help` do not need.
const COMMANDS: Record<string, (positionals: string[], values: Values) => Promise<number>> = {
  up: async (positionals, values) =>
    (await import("./up-command.js")).runUp(values.kubeconfig, [...(values.file ?? []), ...positionals.slice(1)]),
  plan: async (positionals, values) =>
    (await import("./plan-command.js")).runPlan({
      // `plan -f a.yaml b.yaml` names both: every path after the command is read, with or without -f.
      paths: [...(values.file ?? []), ...positionals.slice(1)],
      kubeconfig: values.kubeconfig,
      chartSource: values["chart-source"] ?? process.env.NAVIQUE_CHART_SOURCE,
      trust: values.trust ?? [],
    }),
  license: (positionals, values) => license(positionals[1], values),
  operator: (_, values) => operator(values),
};

async function main(argv: string[]): Promise<number> {
  // `--leader-elect` alone means true, as a Go flag does (the chart and controller-runtime's operators spell
  // it `--leader-elect=false` to turn it off).
  const args = argv.map((arg) => (arg === "--leader-elect" ? "--leader-elect=true" : arg));
  const { positionals, values } = parseArgs({ args, allowPositionals: true, options: OPTIONS });
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
