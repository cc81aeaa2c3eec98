import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { POD_UID_ENV } from "../../lib/cluster/holder-process.js";
import { FIXTURE_CHARTS } from "./capabilities.js";

export interface OperatorProcessOptions {
  /** Another identity than the plane's administrator. @default the plane's kubeconfig */
  readonly kubeconfig?: string;
  /**
   * `--resync SECONDS`. @default none: the operator's own (30 s), so that what a test sees corrected was
   * corrected by the watches, as users see it, not by a resync made short for the test.
   */
  readonly resyncSeconds?: number;
  /** `--leader-elect`. @default false */
  readonly leaderElect?: boolean;
  /** Appended to the command line. */
  readonly extraArgs?: readonly string[];
  /**
   * Runs it in a pid namespace of its own (`unshare --pid`), as each Pod's container is: no other process
   * on the machine can tell from its pid whether it runs. `stopOperatorProcess` signals its process
   * group. @default false
   */
  readonly ownPidNamespace?: boolean;
  /**
   * The UID of the Pod it plays running in, as the chart sets it (POD_UID_ENV): the same for a process
   * started after another's kill as its restarted container. @default none
   */
  readonly podUid?: string;
}

/**
 * Starts `navique operator` in its own process, as users run it, against the test plane with the fixture
 * chart mirror, at the operator's own resync unless `resyncSeconds` says. Its output accumulates in
 * `output()`. Without leader election unless `leaderElect`: suites run side by side on one plane, each with
 * an operator of its own, and one leader Lease for all would keep every operator but one waiting.
 */
export function startOperatorProcess(options: OperatorProcessOptions = {}): {
  readonly process: ChildProcess;
  readonly output: () => string;
} {
  const tsx = join(process.cwd(), "node_modules", ".bin", "tsx");
  const cli = join(process.cwd(), "lib", "cli", "main.ts");
  let output = "";
  const operatorArgs = [
    cli,
    "operator",
    "--kubeconfig",
    options.kubeconfig ?? process.env.NAVIQUE_TEST_KUBECONFIG ?? "",
    "--chart-source",
    `dir:${FIXTURE_CHARTS}`,
    ...(options.resyncSeconds === undefined ? [] : ["--resync", String(options.resyncSeconds)]),
    `--leader-elect=${options.leaderElect ?? false}`,
    // A free port each, on loopback: suites run operators side by side, and two on the default ports (:8080,
    // :8081, :8082) would refuse to start. Each says where it listens (test/support/operator-endpoints.ts).
    "--metrics-bind-address=127.0.0.1:0",
    "--health-probe-bind-address=127.0.0.1:0",
    "--console-bind-address=127.0.0.1:0",
    ...(options.extraArgs ?? []),
  ];
  const env = options.podUid ? { ...process.env, [POD_UID_ENV]: options.podUid } : process.env;
  // Its own process group: tsx runs the operator in a child of its own, and a kill must reach both. In a pid
  // namespace, node runs the operator itself (tsx as a loader): one process, the namespace's init, so that
  // a SIGTERM to the group reaches it once.
  const child = options.ownPidNamespace
    ? spawn(
        "unshare",
        ["--pid", "--fork", "--mount-proc", "--kill-child", process.execPath, "--import", "tsx", ...operatorArgs],
        { stdio: ["ignore", "pipe", "pipe"], detached: true, env },
      )
    : spawn(tsx, operatorArgs, { stdio: ["ignore", "pipe", "pipe"], detached: true, env });
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
  };
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);
  return { process: child, output: () => output };
}

/** How long `navique operator` may take to stop after SIGTERM: its watches closed, its reconcile finished. */
const STOP_GRACE_MS = 30_000;

/**
 * Stops an operator started by `startOperatorProcess`: SIGTERM, then its exit awaited for at most
 * STOP_GRACE_MS. One that does not stop is killed, so that no suite waits on it, and the failure says so.
 */
export async function stopOperatorProcess(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  // unshare does not pass a signal on to the namespace it started: the group's processes get it.
  if (child.spawnfile === "unshare" && child.pid) process.kill(-child.pid, "SIGTERM");
  else child.kill("SIGTERM");
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<"late">((resolve) => {
    timer = setTimeout(() => resolve("late"), STOP_GRACE_MS);
  });
  const outcome = await Promise.race([exited, late]);
  clearTimeout(timer);
  if (outcome !== "late") return outcome;
  if (child.pid) process.kill(-child.pid, "SIGKILL");
  await exited;
  throw new Error(`navique operator did not stop within ${STOP_GRACE_MS / 1000} s of SIGTERM; it was killed`);
}
