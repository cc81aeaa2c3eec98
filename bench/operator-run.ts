/**
 * Running `navique operator` in a bench as its container runs it, and watching it: the command (the built
 * package when there is one), the start awaited on its own word, the stop, a sampler of its memory and CPU,
 * and creating many objects a few requests at a time. Shared by bench/operator-scale.ts and
 * bench/console-load.ts.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createWriteStream, existsSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { OPERATOR_NODE_OPTIONS } from "../lib/api/operator-process.js";
import { processUsage } from "./process-usage.js";

const MiB = 1024 * 1024;
/** How long an operator may take to say it started: its watches listed (a thousand resources included). */
const START_TIMEOUT_MS = 180_000;

/** One sample a second: when, and the operator's usage then. */
interface Sample {
  readonly atMs: number;
  readonly rssBytes: number;
  readonly cpuSeconds: number;
}

/** An operator's usage over one phase of a bench. */
export interface PhaseFigures {
  readonly name: string;
  readonly seconds: number;
  readonly meanCpuPercent: number;
  readonly peakCpuPercent: number;
  readonly maxRssMiB: number;
  readonly endRssMiB: number;
}

/** Samples a process tree's memory and CPU time once a second, for figures of any window since. */
export class Sampler {
  private readonly samples: Sample[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly pid: number) {}

  start(): void {
    this.take();
    this.timer = setInterval(() => this.take(), 1_000);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  private take(): void {
    const usage = processUsage(this.pid);
    this.samples.push({ atMs: Date.now(), rssBytes: usage.rssBytes, cpuSeconds: usage.cpuSeconds });
  }

  /** Figures of the samples taken between two instants. */
  phase(name: string, fromMs: number, toMs: number): PhaseFigures {
    const window = this.samples.filter((s) => s.atMs >= fromMs && s.atMs <= toMs);
    const first = window[0];
    const last = window[window.length - 1];
    if (!first || !last || last === first) {
      return { name, seconds: 0, meanCpuPercent: 0, peakCpuPercent: 0, maxRssMiB: 0, endRssMiB: 0 };
    }
    const seconds = (last.atMs - first.atMs) / 1000;
    let peak = 0;
    for (let i = 1; i < window.length; i++) {
      const [before, after] = [window[i - 1] as Sample, window[i] as Sample];
      const elapsed = (after.atMs - before.atMs) / 1000;
      if (elapsed > 0) peak = Math.max(peak, (100 * (after.cpuSeconds - before.cpuSeconds)) / elapsed);
    }
    return {
      name,
      seconds,
      meanCpuPercent: (100 * (last.cpuSeconds - first.cpuSeconds)) / seconds,
      peakCpuPercent: peak,
      maxRssMiB: Math.max(...window.map((s) => s.rssBytes)) / MiB,
      endRssMiB: last.rssBytes / MiB,
    };
  }
}

/**
 * The node arguments that run `navique operator` with `operatorArgs`: from the built package (dist/, the
 * bundled CLI the package's bin runs; ADR 0018) when there is one and `tsx` is not asked for, else from the
 * sources through tsx — and which, for the output to say.
 */
export function operatorCommand(
  operatorArgs: readonly string[],
  options: { readonly tsx?: boolean; readonly profileDir?: string | undefined } = {},
): { args: string[]; how: string } {
  const built = join(process.cwd(), "dist", "navique.js");
  const profiling = options.profileDir ? ["--cpu-prof", "--cpu-prof-dir", options.profileDir] : [];
  if (existsSync(built) && !options.tsx) {
    return {
      args: [...profiling, built, "operator", ...operatorArgs],
      how: "the built package (node dist/navique.js)",
    };
  }
  const why = options.tsx ? "--tsx given" : "dist/navique.js not found: run `npm run build` first";
  return {
    args: [...profiling, "--import", "tsx", join(process.cwd(), "lib", "cli", "main.ts"), "operator", ...operatorArgs],
    how: `the sources through tsx (node --import tsx lib/cli/main.ts; ${why})`,
  };
}

/** A running operator: its process, when it exits, and what it has said so far (the first 100 kB). */
export interface RunningOperator {
  readonly child: ChildProcess;
  readonly exited: Promise<number | null>;
  readonly output: () => string;
}

/** What an operator says once its watches are up and it reconciles. */
export const STARTED = /\[operator\] started/;
/** What a replica says once its watches are up, leading or standing by (it says `started` only once it leads). */
export const STARTED_OR_STANDING_BY = /\[operator\] started|waits as a standby/;

/**
 * Starts the operator with the Node.js options its container runs with (OPERATOR_NODE_OPTIONS), its output
 * written to `logPath`, and resolves once it says `ready` (by default: started, its watches up).
 */
export async function startOperator(
  args: readonly string[],
  logPath: string,
  ready: RegExp = STARTED,
): Promise<RunningOperator> {
  const env = {
    ...process.env,
    NODE_OPTIONS: [process.env.NODE_OPTIONS, OPERATOR_NODE_OPTIONS].filter(Boolean).join(" "),
  };
  const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"], env });
  const log = createWriteStream(logPath);
  let output = "";
  const started = new Promise<void>((resolve, reject) => {
    const collect = (chunk: Buffer) => {
      log.write(chunk);
      if (output.length < 100_000) output += chunk.toString();
      if (ready.test(output)) resolve();
    };
    child.stdout?.on("data", collect);
    child.stderr?.on("data", collect);
    child.once("exit", (code) => reject(new Error(`the operator exited (${code}) before starting:\n${output}`)));
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`the operator did not say ${ready} within ${START_TIMEOUT_MS / 1000} s:\n${output}`)),
      START_TIMEOUT_MS,
    );
  });
  try {
    await Promise.race([started, timedOut]);
  } catch (error) {
    child.kill("SIGKILL");
    throw error;
  } finally {
    clearTimeout(timer);
  }
  return { child, exited, output: () => output };
}

/** Stops the operator as a user would (SIGINT, so that a CPU profile is written), killing it if it hangs. */
export async function stopOperator(operator: Pick<RunningOperator, "child" | "exited">): Promise<string> {
  operator.child.kill("SIGINT");
  const code = await Promise.race([operator.exited, sleep(30_000).then(() => "hung" as const)]);
  if (code === "hung") operator.child.kill("SIGKILL");
  return code === "hung" ? "killed after 30 s without exiting on SIGINT" : `code ${code}`;
}

/** Runs `create` for indexes 0…count-1, `inFlight` at a time. */
export async function inBatches(
  count: number,
  inFlight: number,
  create: (index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) await create(next++);
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
}
