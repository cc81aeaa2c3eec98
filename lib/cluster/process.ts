import { type ChildProcess, spawn } from "node:child_process";
import { constants } from "node:os";
import { basename } from "node:path";

export interface RunOptions {
  readonly cwd?: string;
  readonly env?: NodeJS.ProcessEnv;
  /** Called with each line the command writes to stdout or stderr, as it arrives. */
  readonly onLine?: (line: string) => void;
  readonly input?: string;
}

export interface RunResult {
  /** The exit code; 128 + the signal's number when a signal ended the command, as a shell reports it. */
  readonly code: number;
  /** The signal that ended the command (a kill, the OOM killer); undefined when it exited by itself. */
  readonly signal?: NodeJS.Signals;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * `helm was killed by SIGKILL`: what ended a command a signal ended, naming the program by its file name, or
 * undefined for a command that exited by itself. A killed command has said nothing of why: its output is no
 * cause, and an exit code would hide what happened.
 */
export function killedBy(command: string, result: RunResult): string | undefined {
  if (!result.signal) return undefined;
  const program = basename(command.split(" ")[0] ?? command);
  return `${program} was killed by ${result.signal}`;
}

/** A command that exited non-zero; the message carries the command line and the tail of its stderr. */
export class CommandFailedError extends Error {
  constructor(
    readonly command: string,
    readonly result: RunResult,
  ) {
    const tail = (result.stderr || result.stdout).trim().split("\n").slice(-25).join("\n");
    const ended = result.signal ? `was killed by ${result.signal}` : `exited with code ${result.code}`;
    super(`\`${command}\` ${ended}:\n${tail}`);
    this.name = "CommandFailedError";
  }
}

/** Runs a command to completion, capturing its output; rejects with CommandFailedError on a non-zero exit. */
export async function run(file: string, args: readonly string[], options: RunOptions = {}): Promise<RunResult> {
  const result = await runUnchecked(file, args, options);
  if (result.code !== 0) throw new CommandFailedError([file, ...args].join(" "), result);
  return result;
}

/** The commands this process runs now (helm, mostly). */
const running = new Set<ChildProcess>();

/**
 * Kills every command this process runs now (SIGKILL) and says how many: an operator that lost the lead
 * stops what it started (a helm install) as its own exit would, without exiting. Each one killed ends as
 * a command killed by a signal (killedBy), which its caller reports as it does any kill.
 */
export function killRunningCommands(): number {
  const count = running.size;
  for (const child of running) child.kill("SIGKILL");
  return count;
}

/** Runs a command to completion and returns its exit code and output, whatever the code. */
export function runUnchecked(file: string, args: readonly string[], options: RunOptions = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: [options.input === undefined ? "ignore" : "pipe", "pipe", "pipe"],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    const splitter = (sink: Buffer[]) => {
      let partial = "";
      return (chunk: Buffer) => {
        sink.push(chunk);
        if (!options.onLine) return;
        const lines = (partial + chunk.toString("utf8")).split("\n");
        partial = lines.pop() ?? "";
        for (const line of lines) options.onLine(line);
      };
    };
    child.stdout?.on("data", splitter(out));
    child.stderr?.on("data", splitter(err));
    running.add(child);
    child.on("error", (error) => {
      running.delete(child);
      reject(error);
    });
    child.on("close", (code, signal) => {
      running.delete(child);
      resolve({
        code: code ?? (signal ? 128 + (constants.signals[signal] ?? 0) : 1),
        ...(signal ? { signal } : {}),
        stdout: Buffer.concat(out).toString("utf8"),
        stderr: Buffer.concat(err).toString("utf8"),
      });
    });
    if (options.input !== undefined) child.stdin?.end(options.input);
  });
}
