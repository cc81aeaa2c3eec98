import { parseArgs } from "node:util";
import { closest } from "../api/validation.js";
import type { CommandSpec, OptionSpec, ParsedCommand } from "./command-spec.js";
import { commandUsage, globalUsage, optionSyntax } from "./command-usage.js";

/**
 * The exit code of a command line that is refused before anything runs (an unknown command or option, a
 * missing value). 1, not the 2 of many tools: `navique plan` exits 2 for "changes planned", which a CI gate
 * lets through (docs/plan.md), and a mistyped command must never pass a gate. Terraform exits 1 for a
 * flag it does not know, too.
 */
export const USAGE_ERROR_EXIT_CODE = 1;

/** Options every command takes: its own usage page, and the version. */
export const COMMON_OPTIONS: readonly OptionSpec[] = [
  { name: "help", short: "h", type: "boolean", help: "print this command's usage, options and exit codes, and exit" },
  { name: "version", type: "boolean", help: "print the package's name and version, and exit" },
];

/** What a command line asks for. */
export type CommandLine =
  | { readonly kind: "usage"; readonly text: string }
  | { readonly kind: "version" }
  | { readonly kind: "run"; readonly command: CommandSpec; readonly parsed: ParsedCommand }
  | { readonly kind: "refused"; readonly message: string };

/** The words after `navique` that are not a command: `navique help [command]` prints a usage. */
const HELP_COMMAND = "help";

/**
 * Every option of every command, by name, for node:util's parser: one option is spelled, typed and
 * shortened the same way by every command that takes it (`-f` is `--file` everywhere), so that the words
 * of a command line are read alike before the command is known — `navique --kubeconfig K plan` is
 * `navique plan --kubeconfig K`, as it always was.
 */
function optionTable(commands: readonly CommandSpec[]): Record<string, OptionSpec> {
  const table: Record<string, OptionSpec> = {};
  const shorts = new Map<string, string>();
  for (const option of [...COMMON_OPTIONS, ...commands.flatMap((c) => c.options)]) {
    const known = table[option.name];
    if (known && (known.type !== option.type || known.short !== option.short || known.multiple !== option.multiple))
      throw new Error(
        `option --${option.name} is declared twice, differently: one option is typed, shortened and repeated the same way by every command`,
      );
    const shortOf = option.short ? shorts.get(option.short) : undefined;
    if (option.short && shortOf && shortOf !== option.name)
      throw new Error(`-${option.short} stands for both --${shortOf} and --${option.name}`);
    if (option.short) shorts.set(option.short, option.name);
    table[option.name] = known ?? option;
  }
  return table;
}

type Token = ReturnType<typeof parseArgs>["tokens"] extends (infer T)[] | undefined ? T : never;
type OptionToken = Extract<Token, { kind: "option" }>;

/** What is wrong with one option token for `command`, or undefined. */
function optionProblem(command: CommandSpec, token: OptionToken): string | undefined {
  const where = `navique ${command.name}`;
  const spec = [...COMMON_OPTIONS, ...command.options].find((o) => o.name === token.name);
  if (!spec) {
    const names = [...COMMON_OPTIONS, ...command.options].map((o) => `--${o.name}`);
    const near = token.rawName.startsWith("--") ? closest(token.rawName, names) : undefined;
    return `${where}: unknown option ${token.rawName}${near ? ` (did you mean ${near}?)` : ""}. Its options: navique ${command.name} --help`;
  }
  if (spec.type === "boolean" && token.inlineValue)
    return `${where}: ${token.rawName} takes no value (got ${token.rawName}=${token.value}): give ${token.rawName} alone`;
  if (spec.type === "string" && token.value === undefined)
    return `${where}: ${token.rawName} needs a value: ${optionSyntax(spec)}`;
  if (spec.type === "string" && !token.inlineValue && token.value?.startsWith("-"))
    return `${where}: ${token.rawName} needs a value, and got the option ${token.value}: ${optionSyntax(spec)} (a value that begins with a dash is given as --${spec.name}=${token.value})`;
  return undefined;
}

/** The values of a command's options from its tokens: a repeatable one as a list, another once at most. */
function commandValues(
  command: CommandSpec,
  tokens: readonly OptionToken[],
): { values: ParsedCommand["values"] } | { problem: string } {
  const values: Record<string, string | boolean | string[]> = {};
  for (const token of tokens) {
    const problem = optionProblem(command, token);
    if (problem) return { problem };
    const spec = [...COMMON_OPTIONS, ...command.options].find((o) => o.name === token.name);
    if (!spec) continue;
    if (spec.type === "boolean") {
      values[spec.name] = true;
      continue;
    }
    const value = token.value ?? "";
    if (spec.multiple) {
      const list = values[spec.name];
      values[spec.name] = Array.isArray(list) ? [...list, value] : [value];
    } else if (values[spec.name] !== undefined) {
      return {
        problem: `navique ${command.name}: ${token.rawName} given twice (${values[spec.name]} and ${value}): give it once`,
      };
    } else {
      values[spec.name] = value;
    }
  }
  return { values };
}

/** The command named `name`, or why there is none. */
function commandNamed(name: string, commands: readonly CommandSpec[]): CommandSpec | { refused: string } {
  const command = commands.find((c) => c.name === name);
  if (command) return command;
  const near = closest(
    name,
    commands.map((c) => c.name),
  );
  return {
    refused: `navique: unknown command '${name}'${near ? ` (did you mean '${near}'?)` : ""}\n${globalUsage(commands)}`,
  };
}

/**
 * A command line read against the commands: the usage asked for (`--help`, `-h`, `help [command]`), the
 * version, a command to run with its options — each one the command takes, a string option with its
 * value, a single option once —, or why it is refused, naming the word at fault.
 */
export function parseCommandLine(argv: readonly string[], commands: readonly CommandSpec[]): CommandLine {
  // `--leader-elect` alone means true, as a Go flag does (the chart and controller-runtime's operators spell
  // it `--leader-elect=false` to turn it off).
  const args = argv.map((arg) => (arg === "--leader-elect" ? "--leader-elect=true" : arg));
  const table = optionTable(commands);
  const { tokens } = parseArgs({
    args,
    // Not strict: every word is judged below, against the command's own options, with messages that
    // name the command.
    strict: false,
    allowPositionals: true,
    tokens: true,
    options: Object.fromEntries(
      Object.values(table).map((o) => [
        o.name,
        { type: o.type, ...(o.short ? { short: o.short } : {}), ...(o.multiple ? { multiple: true } : {}) },
      ]),
    ),
  });
  const options = tokens.filter((t): t is OptionToken => t.kind === "option");
  const positionals = tokens.flatMap((t) => (t.kind === "positional" ? [t.value] : []));
  const [first, ...rest] = positionals;
  const help = options.some((o) => o.name === "help");

  if (first === HELP_COMMAND) {
    const [topic] = rest;
    if (topic === undefined) return { kind: "usage", text: globalUsage(commands) };
    const command = commandNamed(topic, commands);
    return "refused" in command ? { kind: "refused", message: command.refused } : usageOf(command);
  }
  if (first === undefined) {
    if (options.some((o) => o.name === "version")) return { kind: "version" };
    if (help) return { kind: "usage", text: globalUsage(commands) };
    return { kind: "refused", message: `navique: no command given\n${globalUsage(commands)}` };
  }
  const command = commandNamed(first, commands);
  if ("refused" in command) return { kind: "refused", message: command.refused };
  if (help) return usageOf(command);
  if (options.some((o) => o.name === "version")) return { kind: "version" };
  const parsed = commandValues(command, options);
  if ("problem" in parsed) return { kind: "refused", message: parsed.problem };
  if (rest.length > 0 && command.arguments === undefined)
    return {
      kind: "refused",
      message: `navique ${command.name} takes no argument (got ${rest.map((r) => JSON.stringify(r)).join(", ")}). Its usage: navique ${command.name} --help`,
    };
  return { kind: "run", command, parsed: { values: parsed.values, positionals: rest } };
}

function usageOf(command: CommandSpec): CommandLine {
  return { kind: "usage", text: commandUsage(command) };
}
