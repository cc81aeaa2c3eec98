import { LicenseError } from "../licence/token.js";
import {
  type CommandSpec,
  flag,
  type OptionSpec,
  type ParsedCommand,
  stringValue,
  stringValues,
} from "./command-spec.js";
import { LICENSE_EXIT_CODES, runLicense } from "./license-command.js";
import { parseOutputFormat } from "./output-format.js";

// The options several commands take, declared once: one spelling, one help text.

const KUBECONFIG: OptionSpec = {
  name: "kubeconfig",
  type: "string",
  value: "PATH",
  help: "the cluster's kubeconfig. Default: the first file of $KUBECONFIG, else ~/.kube/config, else — in a pod — its service account; from the source repository, with none of them, the built-in local control plane",
};

const FILE: OptionSpec = {
  name: "file",
  short: "f",
  type: "string",
  multiple: true,
  value: "PATH",
  help: "a YAML file, or a directory read for *.yaml and *.yml at any depth (e.g. cdk8s synth output); repeatable, and paths after the command are read too",
};

const CHART_SOURCE: OptionSpec = {
  name: "chart-source",
  type: "string",
  value: "SOURCE",
  help: "where capability charts come from: official (the default, or $NAVIQUE_CHART_SOURCE), dir:PATH (a directory of charts), oci://REGISTRY (a mirror)",
};

const TRUST: OptionSpec = {
  name: "trust",
  type: "string",
  multiple: true,
  value: "ID=PUBFILE",
  help: "also trust the public key in PUBFILE (PEM) for a licence signed with key ID, as a version of the product shipping that key would; repeatable",
};

const OUTPUT: OptionSpec = {
  name: "output",
  short: "o",
  type: "string",
  value: "text|json",
  help: "text (the default): a readable report; json: one JSON document on stdout for scripts, in the shape the command's docs give (its zod schema is exported by the package)",
};

const NAMESPACE: OptionSpec = {
  name: "namespace",
  short: "n",
  type: "string",
  value: "NAMESPACE",
  help: "only the resources of this namespace (capabilities, caps and the licence are the cluster's whatever the namespace)",
};

const ALL_NAMESPACES: OptionSpec = {
  name: "all-namespaces",
  short: "A",
  type: "boolean",
  help: "the resources of every namespace: the default, since the product's capabilities, caps and licence are cluster-wide",
};

/** The exit code of a command line refused before anything ran, listed on every page. */
const USAGE_REFUSED = "the command line is refused (an unknown option, a missing value), or it failed: stderr says why";

/** `-n NAMESPACE` or `-A`: one namespace, or undefined for every one. */
function namespaceScope(parsed: ParsedCommand): string | undefined {
  const namespace = stringValue(parsed, "namespace");
  if (namespace !== undefined && flag(parsed, "all-namespaces"))
    throw new Error(
      `-n ${namespace} and -A ask for one namespace and for every one: give one of them (without either, every namespace)`,
    );
  return namespace;
}

/** The paths a command reads: `-f PATH` and the words after the command, in that order. */
function paths(parsed: ParsedCommand): string[] {
  return [...stringValues(parsed, "file"), ...parsed.positionals];
}

/** `license --file`: one file; a second is refused rather than ignored. */
function oneFile(parsed: ParsedCommand): string | undefined {
  const files = stringValues(parsed, "file");
  if (files.length > 1) throw new Error(`--file given ${files.length} times: this command reads one file`);
  return files[0];
}

const UP: CommandSpec = {
  name: "up",
  summary: "prepare the target cluster and report it; with paths, the decisions for their resources",
  synopsis: ["up [-f PATH]... [PATH...] [--kubeconfig PATH]"],
  arguments: "PATH...",
  description:
    "Prepares the target cluster and reports it: its API server, its Kubernetes version and how many of its nodes are Ready. " +
    "Run from the source repository without a configured cluster, it builds and starts the built-in local control plane; " +
    "the installed package asks for a cluster instead (--kubeconfig, $KUBECONFIG). With paths, it then prints the decisions " +
    "a reconcile would make for each resource of the product they hold, as `navique plan` does, changing nothing.",
  options: [KUBECONFIG, FILE],
  exitCodes: [
    { code: 0, meaning: "the cluster is ready, changes planned or not: up prepares and shows, it is not a gate" },
    {
      code: 1,
      meaning: `no node is Ready, a resource would be refused or stall, or an input cannot be judged; or ${USAGE_REFUSED}`,
    },
  ],
  docs: "docs/plan.md",
  run: async (parsed) => (await import("./up-command.js")).runUp(stringValue(parsed, "kubeconfig"), paths(parsed)),
};

const PLAN: CommandSpec = {
  name: "plan",
  summary: "the decisions a reconcile would make for resources in YAML files, changing nothing",
  synopsis: ["plan [-f] PATH... [--kubeconfig PATH] [--chart-source SOURCE] [--trust ID=PUBFILE] [-o text|json]"],
  arguments: "PATH...",
  description:
    "For every resource of the product in the files and directories given (e.g. cdk8s synth output), prints each decision a " +
    "reconcile would make against the cluster — capability installs, upgrades and adoptions with their evidence, objects " +
    "created or changed, licence refusals, missing grants —, nothing for a resource already in place, and changes nothing. " +
    "A licence the paths declare is the one the plan applies. Messages about the inputs and one summary line go to stderr; " +
    "with -o json, stdout is one JSON document instead of the decision lines.",
  options: [FILE, KUBECONFIG, CHART_SOURCE, TRUST, OUTPUT],
  exitCodes: [
    { code: 0, meaning: "nothing to change: every resource is in place, or only waits for something that will come" },
    { code: 2, meaning: "changes planned, and every resource would be admitted and go on" },
    {
      code: 1,
      meaning: `a resource would be refused (licence) or stall (a missing grant, a name taken, a collision, a type not implemented), or an input could not be judged; or ${USAGE_REFUSED}`,
    },
  ],
  docs: "docs/plan.md",
  run: async (parsed) =>
    (await import("./plan-command.js")).runPlan({
      paths: paths(parsed),
      kubeconfig: stringValue(parsed, "kubeconfig"),
      chartSource: stringValue(parsed, "chart-source") ?? process.env.NAVIQUE_CHART_SOURCE,
      trust: stringValues(parsed, "trust"),
      output: parseOutputFormat(stringValue(parsed, "output")),
    }),
};

const STATUS: CommandSpec = {
  name: "status",
  summary: "resources with Ready and reason, capabilities Absent/Adopted/Owned, the licence and caps",
  synopsis: ["status [--kubeconfig PATH] [-n NAMESPACE | -A] [--trust ID=PUBFILE] [-o text|json]"],
  description:
    "Reads the cluster, changing nothing, and reports: every resource of the product's kinds with its Ready condition's status, " +
    "reason and message; each capability of the catalog as Absent, Adopted (installed by someone else, never changed) or Owned " +
    "(installed by the product), with the evidence detection found — the engine's own detection, installing nothing —; " +
    "the licence in force (edition, features, expiry) and, per kind, the instances counted against its cap; the operator's " +
    "Deployment and leader.",
  options: [KUBECONFIG, NAMESPACE, ALL_NAMESPACES, TRUST, OUTPUT],
  exitCodes: [
    { code: 0, meaning: "every resource reported is Ready (none at all counts as Ready)" },
    { code: 1, meaning: `a resource reported is not Ready; or ${USAGE_REFUSED}` },
  ],
  docs: "docs/status-and-doctor.md",
  run: async (parsed) =>
    (await import("./status-command.js")).runStatus({
      kubeconfig: stringValue(parsed, "kubeconfig"),
      namespace: namespaceScope(parsed),
      trust: stringValues(parsed, "trust"),
      output: parseOutputFormat(stringValue(parsed, "output")),
    }),
};

const DOCTOR: CommandSpec = {
  name: "doctor",
  summary: "what blocks what: CRDs, nodes, operator, licence, capabilities, dependencies; the fix",
  synopsis: ["doctor [--kubeconfig PATH] [-n NAMESPACE] [--trust ID=PUBFILE] [-o text|json]"],
  description:
    "Reads what `navique status` reads, changing nothing, and says what blocks what, each finding with its fix: the product's " +
    "CRDs missing, no node Ready, the operator not running or without a leader, the licence not in force or a cap exceeded, a " +
    "capability a resource needs that is not Ready, a resource waiting for another that is not Ready — down to the one that " +
    "holds the chain up —, a resource stalled or never reconciled. It reports what the resources' conditions and the engine's " +
    "detection already say; it decides nothing anew.",
  options: [KUBECONFIG, NAMESPACE, TRUST, OUTPUT],
  exitCodes: [
    { code: 0, meaning: "no finding" },
    { code: 1, meaning: `at least one finding; or ${USAGE_REFUSED}` },
  ],
  docs: "docs/status-and-doctor.md",
  run: async (parsed) =>
    (await import("./doctor-command.js")).runDoctor({
      kubeconfig: stringValue(parsed, "kubeconfig"),
      namespace: stringValue(parsed, "namespace"),
      trust: stringValues(parsed, "trust"),
      output: parseOutputFormat(stringValue(parsed, "output")),
    }),
};

const LICENSE: CommandSpec = {
  name: "license",
  summary: "make a vendor's key pair, sign a licence, verify one, or inspect what it grants",
  synopsis: [
    "license keygen --out DIR --key-id ID",
    "license sign --key FILE --key-id ID --payload FILE",
    "license verify (--token TOKEN | --file FILE) [--trust ID=PUBFILE] [--now INSTANT]",
    "license inspect (--token TOKEN | --file FILE) [--trust ID=PUBFILE] [--now INSTANT]",
  ],
  arguments: "keygen|sign|verify|inspect",
  description:
    "keygen writes an Ed25519 key pair (the private key readable by its owner only, never overwritten); sign prints the token " +
    "of a payload (JSON) signed with a private key; verify checks a token's signature and validity; inspect prints the " +
    "edition, features and instance caps a token grants, as the product would apply it.",
  options: [
    { name: "out", type: "string", value: "DIR", help: "keygen: the directory the key pair is written to" },
    {
      name: "key-id",
      type: "string",
      value: "ID",
      help: "keygen, sign: the key's identifier, written into each token",
    },
    { name: "key", type: "string", value: "FILE", help: "sign: the private key (PEM)" },
    { name: "payload", type: "string", value: "FILE", help: "sign: the licence's payload (JSON)" },
    { name: "token", type: "string", value: "TOKEN", help: "verify, inspect: the token itself" },
    { ...FILE, multiple: true, value: "FILE", help: "verify, inspect: a file holding the token (one)" },
    TRUST,
    {
      name: "now",
      type: "string",
      value: "INSTANT",
      help: "verify, inspect: judge at this RFC 3339 instant instead of now (e.g. 2027-01-31T00:00:00Z)",
    },
  ],
  exitCodes: [
    { code: 0, meaning: "done; for verify the token is valid, for inspect the licence applies" },
    { code: 1, meaning: `inspect: the licence does not apply (the Community edition would); or ${USAGE_REFUSED}` },
    ...Object.entries(LICENSE_EXIT_CODES).map(([code, exit]) => ({
      code: exit,
      meaning: `the token is refused: ${code}`,
    })),
  ],
  docs: "docs/licence.md",
  run: async (parsed) => {
    try {
      return await runLicense(parsed.positionals[0], {
        out: stringValue(parsed, "out"),
        keyId: stringValue(parsed, "key-id"),
        key: stringValue(parsed, "key"),
        payload: stringValue(parsed, "payload"),
        token: stringValue(parsed, "token"),
        file: oneFile(parsed),
        trust: stringValues(parsed, "trust"),
        now: stringValue(parsed, "now"),
      });
    } catch (error) {
      if (!(error instanceof LicenseError)) throw error;
      process.stderr.write(`navique: licence refused (${error.code}): ${error.message}\n`);
      return LICENSE_EXIT_CODES[error.code];
    }
  },
};

const OPERATOR: CommandSpec = {
  name: "operator",
  summary: "run the operator against the cluster: watch every kind of the product and reconcile it",
  synopsis: [
    "operator [--kubeconfig PATH] [--chart-source SOURCE] [--resync SECONDS] [--helm PATH] [--watch-namespaces NS[,NS...]] [--leader-elect[=true|false]] [--trust ID=PUBFILE] [--metrics-bind-address ADDR] [--health-probe-bind-address ADDR] [--console-bind-address ADDR]",
  ],
  description:
    "Watches every kind of the product and reconciles each resource continuously, until SIGINT or SIGTERM; then it stops its " +
    "watches, lets the reconcile under way finish and releases the leader Lease. With leader election (the default) only the " +
    "holder of the Lease navique-system/navique-ai-core-operator-leader reconciles, and the other replicas wait as standbys " +
    "with warm caches. It serves /healthz and /readyz, Prometheus metrics on /metrics (docs/operator.md), and the read-only " +
    "console, every replica alike (docs/console.md).",
  options: [
    KUBECONFIG,
    CHART_SOURCE,
    {
      name: "resync",
      type: "string",
      value: "SECONDS",
      help: "reconcile every resource again this often, besides what the watches report",
    },
    {
      name: "helm",
      type: "string",
      value: "PATH",
      help: "the helm v4 binary capabilities are installed with. Default: helm on PATH",
    },
    {
      name: "watch-namespaces",
      type: "string",
      value: "NS[,NS...]",
      help: "serve only these namespaces (every namespace adopted from must be among them). Default: every namespace",
    },
    {
      name: "leader-elect",
      type: "string",
      value: "true|false",
      help: "elect a leader among the replicas (--leader-elect alone: true, the default); --leader-elect=false runs a single process without election",
    },
    TRUST,
    {
      name: "metrics-bind-address",
      type: "string",
      value: "ADDR",
      help: "where GET /metrics is served, as HOST:PORT or :PORT; 0 turns it off. Default: :8080",
    },
    {
      name: "health-probe-bind-address",
      type: "string",
      value: "ADDR",
      help: "where GET /healthz and /readyz are served, as HOST:PORT or :PORT; 0 turns them off. Default: :8081",
    },
    {
      name: "console-bind-address",
      type: "string",
      value: "ADDR",
      help: "where the console is served, as HOST:PORT or :PORT; 0 turns it off. Default: :8082",
    },
  ],
  exitCodes: [
    { code: 0, meaning: "stopped by SIGINT or SIGTERM, its reconcile finished and its Lease released" },
    {
      code: 1,
      meaning: `it could not start (a port taken, no cluster, no helm), or a second signal stopped it at once; or ${USAGE_REFUSED}`,
    },
  ],
  docs: "docs/operator.md",
  run: async (parsed) => {
    const { parseLeaderElect, parseWatchNamespaces, runOperator } = await import("./operator-command.js");
    const flagged = stringValue(parsed, "resync");
    const resync = flagged === undefined ? undefined : Number(flagged);
    if (resync !== undefined && !(resync > 0))
      throw new Error(`--resync ${flagged}: expected a number of seconds greater than 0, e.g. --resync 30`);
    const code = await runOperator({
      kubeconfig: stringValue(parsed, "kubeconfig"),
      chartSource: stringValue(parsed, "chart-source") ?? process.env.NAVIQUE_CHART_SOURCE,
      resyncSeconds: resync,
      helm: stringValue(parsed, "helm"),
      watchNamespaces: parseWatchNamespaces(stringValue(parsed, "watch-namespaces")),
      leaderElect: parseLeaderElect(stringValue(parsed, "leader-elect")),
      trust: stringValues(parsed, "trust"),
      metricsBindAddress: stringValue(parsed, "metrics-bind-address"),
      healthProbeBindAddress: stringValue(parsed, "health-probe-bind-address"),
      consoleBindAddress: stringValue(parsed, "console-bind-address"),
    });
    // Stopped, the server exits rather than waiting for the event loop to empty: client-node's informer opens
    // a watch it was told to stop while that watch was still connecting, and such a socket would hold it.
    process.exit(code);
  },
};

const CONSOLE: CommandSpec = {
  name: "console",
  summary: "serve the read-only console locally, reading the cluster as the kubeconfig's user",
  synopsis: ["console [--kubeconfig PATH] [--address HOST:PORT] [--trust ID=PUBFILE]"],
  description:
    "Serves the console the operator serves (docs/console.md) — every resource with its conditions, the capabilities Absent, " +
    "Adopted or Owned with their evidence, the dependency graph, the licence and its caps, the recent Events — on this machine, " +
    "reading the cluster with the kubeconfig's identity and changing nothing. It prints a link holding a key made at its start: " +
    "the console shows nothing to a browser without it. Runs until SIGINT or SIGTERM.",
  options: [
    KUBECONFIG,
    {
      name: "address",
      type: "string",
      value: "HOST:PORT",
      help: "where to listen; :0 picks a free port. Default: 127.0.0.1:8082, this machine only",
    },
    TRUST,
  ],
  exitCodes: [
    { code: 0, meaning: "stopped by SIGINT or SIGTERM" },
    { code: 1, meaning: `it could not start (the port taken, no cluster); or ${USAGE_REFUSED}` },
  ],
  docs: "docs/console.md",
  run: async (parsed) =>
    (await import("./console-command.js")).runConsole({
      kubeconfig: stringValue(parsed, "kubeconfig"),
      address: stringValue(parsed, "address"),
      trust: stringValues(parsed, "trust"),
    }),
};

/** Every command of `navique`, in the order the global usage lists them. */
export const COMMANDS: readonly CommandSpec[] = [UP, PLAN, STATUS, DOCTOR, CONSOLE, LICENSE, OPERATOR];
