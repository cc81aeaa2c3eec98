import { join } from "node:path";
import { parseCommandLine } from "../../lib/cli/command-line.js";
import type { CommandSpec } from "../../lib/cli/command-spec.js";
import { commandUsage, globalUsage } from "../../lib/cli/command-usage.js";
import { COMMANDS } from "../../lib/cli/commands.js";
import { runUnchecked } from "../../lib/cluster/process.js";

const TSX = join(process.cwd(), "node_modules", ".bin", "tsx");
const CLI = join(process.cwd(), "lib", "cli", "main.ts");

const parse = (...argv: string[]) => parseCommandLine(argv, COMMANDS);
const command = (name: string) => COMMANDS.find((c) => c.name === name) as CommandSpec;

/** What a command would run with, or the parse's outcome when it is not a run. */
function run(...argv: string[]) {
  const line = parse(...argv);
  if (line.kind !== "run") return line;
  return { command: line.command.name, values: line.parsed.values, positionals: line.parsed.positionals };
}

describe("navique's global usage", () => {
  it("lists every command in one line each, with how to get a command's own page", () => {
    const usage = globalUsage(COMMANDS);
    expect(usage.split("\n").slice(0, 3)).toEqual([
      "usage: navique <command> [options]",
      "       navique <command> --help      (or: navique help <command>) its options and exit codes",
      "       navique --version",
    ]);
    for (const c of COMMANDS) expect(usage).toContain(`\n  ${c.name.padEnd(10)}${c.summary}\n`);
    // What the installed package's test and the operator image's test look for.
    expect(usage).toContain("operator  run the operator against the cluster");
    expect(usage).not.toContain("--kubeconfig");
  });

  it("is what --help, -h, help and no argument with --help print", () => {
    for (const argv of [["--help"], ["-h"], ["help"]])
      expect(parse(...argv)).toEqual({ kind: "usage", text: globalUsage(COMMANDS) });
  });

  it.each(["navique", ...COMMANDS.map((c) => `navique ${c.name}`)])(
    "%s --help: no line is wider than 100 columns",
    (words) => {
      const line = parse(...words.split(" ").slice(1), "--help");
      if (line.kind !== "usage") throw new Error(`not a usage: ${JSON.stringify(line)}`);
      expect(line.text.split("\n").filter((l) => l.length > 100)).toEqual([]);
    },
  );
});

describe("a command's own usage page", () => {
  it.each(COMMANDS.map((c) => c.name))("%s: --help, -h and `help <command>` print its page", (name) => {
    const page = { kind: "usage", text: commandUsage(command(name)) };
    expect(parse(name, "--help")).toEqual(page);
    expect(parse(name, "-h")).toEqual(page);
    expect(parse("help", name)).toEqual(page);
    // Even after options of its own or others: help wins, nothing runs.
    expect(parse(name, "--kubeconfig", "k", "--bogus", "-h")).toEqual(page);
  });

  it("names every option the command takes, with its value, and every exit code with its meaning", () => {
    const plan = commandUsage(command("plan"));
    expect(plan.split("\n")[0]).toBe(
      "usage: navique plan [-f] PATH... [--kubeconfig PATH] [--chart-source SOURCE] [--trust ID=PUBFILE]",
    );
    for (const option of [
      "-f, --file PATH",
      "    --kubeconfig PATH",
      "    --chart-source SOURCE",
      "    --trust ID=PUBFILE",
    ])
      expect(plan).toContain(`\n  ${option} `);
    expect(plan).toContain("\n  -o, --output text|json ");
    expect(plan).toContain("\n  -h, --help ");
    expect(plan).toMatch(
      /\nexit codes:\n {2}0 {4}nothing to change: .*\n {2}2 {4}changes planned, .*\n {2}1 {4}a resource would be refused/,
    );
    expect(plan).toContain("\nmore: docs/plan.md");
    expect(plan).not.toContain("--watch-namespaces");
  });

  it("keeps every option of the operator, among them the metrics and health probe addresses", () => {
    const operator = commandUsage(command("operator"));
    for (const option of [
      "--kubeconfig PATH",
      "--chart-source SOURCE",
      "--resync SECONDS",
      "--helm PATH",
      "--watch-namespaces NS[,NS...]",
      "--leader-elect true|false",
      "--trust ID=PUBFILE",
      "--metrics-bind-address ADDR",
      "--health-probe-bind-address ADDR",
    ])
      expect(operator).toContain(`\n      ${option}`);
  });

  it("documents status's and doctor's exit codes", () => {
    expect(commandUsage(command("status"))).toContain(
      "\n  0    every resource reported is Ready (none at all counts as Ready)\n  1    a resource reported is not Ready;",
    );
    expect(commandUsage(command("doctor"))).toContain("\n  0    no finding\n  1    at least one finding;");
  });
});

describe("a command line", () => {
  it("gives a command its own options, wherever they stand, and the words after it", () => {
    expect(run("plan", "-f", "a.yaml", "b.yaml", "--trust", "k=f", "--trust", "j=g", "-o", "json")).toEqual({
      command: "plan",
      values: { file: ["a.yaml"], trust: ["k=f", "j=g"], output: "json" },
      positionals: ["b.yaml"],
    });
    // Before the command, as the former parser read them.
    expect(run("--kubeconfig", "k", "status", "-n", "apps")).toEqual({
      command: "status",
      values: { kubeconfig: "k", namespace: "apps" },
      positionals: [],
    });
    expect(run("status", "-A", "-oyaml")).toEqual({
      command: "status",
      values: { "all-namespaces": true, output: "yaml" },
      positionals: [],
    });
  });

  it("reads --leader-elect alone as true, as a Go flag, and the operator's addresses", () => {
    expect(
      run("operator", "--leader-elect", "--metrics-bind-address=127.0.0.1:0", "--health-probe-bind-address", "0"),
    ).toEqual({
      command: "operator",
      values: { "leader-elect": "true", "metrics-bind-address": "127.0.0.1:0", "health-probe-bind-address": "0" },
      positionals: [],
    });
    expect(run("operator", "--leader-elect=false")).toMatchObject({ values: { "leader-elect": "false" } });
  });

  it.each<[string, string[], string]>([
    [
      "an option another command takes",
      ["license", "inspect", "--kubeconfig", "k"],
      "navique license: unknown option --kubeconfig. Its options: navique license --help",
    ],
    [
      "a misspelt option, with the nearest",
      ["status", "--namespce", "x"],
      "navique status: unknown option --namespce (did you mean --namespace?). Its options: navique status --help",
    ],
    [
      "an unknown short option",
      ["doctor", "-A"],
      "navique doctor: unknown option -A. Its options: navique doctor --help",
    ],
    [
      "a value missing at the end",
      ["status", "--kubeconfig"],
      "navique status: --kubeconfig needs a value: --kubeconfig PATH",
    ],
    [
      "an option where a value belongs",
      ["plan", "--kubeconfig", "-f", "a.yaml"],
      "navique plan: --kubeconfig needs a value, and got the option -f: --kubeconfig PATH (a value that begins with a dash is given as --kubeconfig=-f)",
    ],
    [
      "a value given to a switch",
      ["status", "--all-namespaces=yes"],
      "navique status: --all-namespaces takes no value (got --all-namespaces=yes): give --all-namespaces alone",
    ],
    [
      "an option given twice",
      ["status", "-n", "a", "-n", "b"],
      "navique status: -n given twice (a and b): give it once",
    ],
    [
      "a word a command does not take",
      ["doctor", "apps"],
      'navique doctor takes no argument (got "apps"). Its usage: navique doctor --help',
    ],
  ])("refuses %s, naming it and pointing to the command's page", (_, argv, message) => {
    expect(parse(...argv)).toEqual({ kind: "refused", message });
  });

  it("refuses an unknown command with the nearest one and the global usage, and no command at all", () => {
    expect(parse("stauts")).toEqual({
      kind: "refused",
      message: `navique: unknown command 'stauts' (did you mean 'status'?)\n${globalUsage(COMMANDS)}`,
    });
    expect(parse("help", "nothing")).toMatchObject({
      kind: "refused",
      message: expect.stringMatching(/^navique: unknown command 'nothing'\n/),
    });
    expect(parse()).toEqual({ kind: "refused", message: `navique: no command given\n${globalUsage(COMMANDS)}` });
    expect(parse("--version")).toEqual({ kind: "version" });
    expect(parse("plan", "--version")).toEqual({ kind: "version" });
  });
});

// Through the real CLI, as a user runs it: the page on stdout with 0; a refusal on stderr with 1, which no CI
// gate that lets `plan`'s 2 through can mistake for "changes planned".
describe("navique, run", () => {
  it("prints a command's page for --help and help <command>, and exits 0", async () => {
    const help = await runUnchecked(TSX, [CLI, "plan", "--help"]);
    expect(help).toMatchObject({ code: 0, stdout: `${commandUsage(command("plan"))}\n`, stderr: "" });
    expect(await runUnchecked(TSX, [CLI, "help", "doctor"])).toMatchObject({
      code: 0,
      stdout: `${commandUsage(command("doctor"))}\n`,
    });
  });

  it("refuses an unknown option in one line on stderr, runs nothing, and exits 1", async () => {
    expect(await runUnchecked(TSX, [CLI, "plan", "-f", "a.yaml", "--dry-run"])).toMatchObject({
      code: 1,
      stdout: "",
      stderr: "navique plan: unknown option --dry-run. Its options: navique plan --help\n",
    });
    expect(await runUnchecked(TSX, [CLI, "status", "-o", "yaml"])).toMatchObject({
      code: 1,
      stdout: "",
      stderr: "navique: -o yaml: expected text or json, e.g. -o json for one JSON document on stdout\n",
    });
  });
});
