import { spawn } from "node:child_process";

export interface RunOptions {
  readonly cwd?: string;
  readonly env?: NodeJS.ProcessEnv;
  /** Called with each line the command writes to stdout or stderr, as it arrives. */
  readonly onLine?: (line: string) => void;
  readonly input?: string;
}

export interface RunResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** A command that exited non-zero; the message carries the command line and the tail of its stderr. */
export class CommandFailedError extends Error {
  constructor(
    readonly command: string,
    readonly result: RunResult,
  ) {
    const tail = (result.stderr || result.stdout).trim().split("\n").slice(-25).join("\n");
    super(`\`${command}\` exited with code ${result.code}:\n${tail}`);
    this.name = "CommandFailedError";
  }
}

/** Runs a command to completion, capturing its output; rejects with CommandFailedError on a non-zero exit. */
export async function run(file: string, args: readonly string[], options: RunOptions = {}): Promise<RunResult> {
  const result = await runUnchecked(file, args, options);
  if (result.code !== 0) throw new CommandFailedError([file, ...args].join(" "), result);
  return result;
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
    child.on("error", reject);
    child.on("close", (code, signal) => {
      resolve({
        code: code ?? (signal ? 128 : 1),
        stdout: Buffer.concat(out).toString("utf8"),
        stderr: Buffer.concat(err).toString("utf8"),
      });
    });
    if (options.input !== undefined) child.stdin?.end(options.input);
  });
}
