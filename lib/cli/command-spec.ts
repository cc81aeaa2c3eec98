/**
 * One option of a command, declared once: how it is parsed (node:util parseArgs' type, short and multiple)
 * and what its usage says of it.
 */
export interface OptionSpec {
  /** The long name, without dashes: `kubeconfig` for `--kubeconfig`. */
  readonly name: string;
  readonly type: "string" | "boolean";
  /** One letter, for `-f`. */
  readonly short?: string;
  /** Given several times, every value is kept; otherwise a second one is refused. */
  readonly multiple?: boolean;
  /** What the usage calls its value: `PATH` in `--kubeconfig PATH`. Required for a string option. */
  readonly value?: string;
  /** What it does, and its default. */
  readonly help: string;
}

/** An exit code of a command and what it means: what scripts gate on. */
export interface ExitCodeSpec {
  readonly code: number;
  readonly meaning: string;
}

/** The values a command received, by option name, and its positional arguments after the command. */
export interface ParsedCommand {
  readonly values: Readonly<Record<string, string | boolean | readonly string[] | undefined>>;
  readonly positionals: readonly string[];
}

/**
 * One command of `navique`, described as data: its one line in the global usage, its own usage page
 * (`navique <command> --help`, `navique help <command>`), the options it accepts — any other is refused —
 * its exit codes, and how it runs.
 */
export interface CommandSpec {
  readonly name: string;
  /** One line for the global usage. */
  readonly summary: string;
  /** The command lines it takes, each after `navique `. */
  readonly synopsis: readonly string[];
  /** What it does, in a few sentences; its usage page wraps them. */
  readonly description: string;
  /** What it takes after its name and options (`PATH...`); undefined: nothing, and a word there is refused. */
  readonly arguments?: string;
  readonly options: readonly OptionSpec[];
  readonly exitCodes: readonly ExitCodeSpec[];
  /** The page of docs/ that says more. */
  readonly docs?: string;
  /**
   * Runs it; the exit code. Loaded when run: the commands that talk to a cluster import the Kubernetes
   * client (~870 modules), which `--help` and `navique license` do not need.
   */
  run(parsed: ParsedCommand): Promise<number>;
}

/** The value of a string option, or undefined. */
export function stringValue(parsed: ParsedCommand, name: string): string | undefined {
  const value = parsed.values[name];
  return typeof value === "string" ? value : undefined;
}

/** Every value of a repeatable string option, in order. */
export function stringValues(parsed: ParsedCommand, name: string): string[] {
  const value = parsed.values[name];
  if (value === undefined || typeof value === "boolean") return [];
  return typeof value === "string" ? [value] : [...value];
}

/** Whether a boolean option was given. */
export function flag(parsed: ParsedCommand, name: string): boolean {
  return parsed.values[name] === true;
}
