import type { CommandSpec, OptionSpec } from "./command-spec.js";
import { wrap } from "./text-layout.js";

/** A label and its text, the text wrapped in a column after the label. */
function row(label: string, column: number, text: string): string {
  const head = `  ${label}`;
  const body = wrap(text, column);
  // A label too long for the column gets a line of its own, the text under it.
  if (head.length + 2 > column) return `${head}\n${body}`;
  return `${head.padEnd(column)}${body.slice(column)}`;
}

/** `--name VALUE` as a usage and a refusal write it. */
export function optionSyntax(option: OptionSpec): string {
  return option.type === "string" ? `--${option.name} ${option.value ?? "VALUE"}` : `--${option.name}`;
}

/** An option as its usage row names it: `-f, --file PATH`, or `    --kubeconfig PATH`. */
function optionLabel(option: OptionSpec): string {
  return option.short ? `-${option.short}, ${optionSyntax(option)}` : `    ${optionSyntax(option)}`;
}

/**
 * The global usage: how a command line is made, and each command in one line; a command's options and
 * exit codes are on its own page.
 */
export function globalUsage(commands: readonly CommandSpec[]): string {
  const width = Math.max(...commands.map((c) => c.name.length)) + 2;
  return [
    "usage: navique <command> [options]",
    "       navique <command> --help      (or: navique help <command>) its options and exit codes",
    "       navique --version",
    "",
    "commands:",
    ...commands.map((c) => `  ${c.name.padEnd(width)}${c.summary}`),
    "",
    "A command refuses an option it does not take; `navique <command> --help` lists those it takes.",
  ].join("\n");
}

/** Where a command line begins on a usage page: after `usage: `. */
const SYNOPSIS_INDENT = "usage: ".length;

/** A command's own page: its command lines, what it does, each option, each exit code, and its docs. */
export function commandUsage(command: CommandSpec): string {
  // Each command line wrapped under its first word after `navique`, as man pages wrap a synopsis.
  const synopsis = command.synopsis.map((line, i) =>
    wrap(`navique ${line}`, SYNOPSIS_INDENT + "navique ".length, SYNOPSIS_INDENT).replace(
      /^ +/,
      i === 0 ? "usage: " : " ".repeat(SYNOPSIS_INDENT),
    ),
  );
  const options = [...command.options, { name: "help", short: "h", type: "boolean", help: "print this page" } as const];
  const column = Math.min(32, Math.max(...options.map((o) => optionLabel(o).length)) + 6);
  return [
    ...synopsis,
    "",
    wrap(command.description, 0),
    "",
    "options:",
    ...options.map((option) => row(optionLabel(option), column, option.help)),
    "",
    "exit codes:",
    ...command.exitCodes.map((exit) => row(String(exit.code), 7, exit.meaning)),
    ...(command.docs ? ["", `more: ${command.docs}`] : []),
  ].join("\n");
}
