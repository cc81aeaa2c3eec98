import { NaviqueOperator } from "../../providers/operator/operator.js";
import { namespaceName } from "../api/refs.js";
import { parseInput } from "../api/validation.js";
import { ensureSystemNamespace } from "../capabilities/lease-lock.js";
import { parseChartSource } from "../catalog/chart-source.js";
import { HelmCli } from "../cluster/helm-cli.js";
import { KubeClient } from "../cluster/kube-client.js";
import { LeaderElector } from "../cluster/leader-election.js";
import { stderrReporter } from "../reporter.js";
import { cliHelm } from "./helm-binary.js";
import { trustedKeys } from "./license-command.js";
import { resolveClusterTarget } from "./target.js";

/** `--watch-namespaces a,b`: each a namespace name; empty (the chart's default) means every namespace. */
export function parseWatchNamespaces(flag: string | undefined): string[] | undefined {
  const names = (flag ?? "")
    .split(",")
    .map((n) => n.trim())
    .filter((n) => n.length > 0);
  if (names.length === 0) return undefined;
  return names.map((name, index) => parseInput(namespaceName, name, "--watch-namespaces", `[${index}]`));
}

/** `--leader-elect[=true|false]`: whether the operator elects a leader among its replicas. @default true */
export function parseLeaderElect(flag: string | undefined): boolean {
  if (flag === undefined || flag === "true") return true;
  if (flag === "false") return false;
  throw new Error(
    `--leader-elect=${flag}: expected true or false, e.g. --leader-elect=false to run a single operator without election`,
  );
}

/**
 * `navique operator`: with leader election (the default), waits as a standby until it holds the leader
 * Lease, then starts; runs until SIGINT/SIGTERM, then stops its watches, lets the reconcile under way
 * finish, releases the Lease so that a standby takes over at once, and returns. A leader that cannot renew
 * the Lease within the renew deadline exits with 1 (as controller-runtime's manager does), so that its Pod
 * restarts as a standby. A second signal while it stops exits at once, as a second Ctrl-C is meant to.
 */
export async function runOperator(options: {
  readonly kubeconfig: string | undefined;
  readonly chartSource: string | undefined;
  readonly resyncSeconds: number | undefined;
  readonly helm: string | undefined;
  readonly watchNamespaces: readonly string[] | undefined;
  /** @default true */
  readonly leaderElect?: boolean;
  /** `--trust ID=PUBFILE`: keys trusted besides the product's, as a new version that adds a key does. */
  readonly trust?: readonly string[];
}): Promise<number> {
  const source = parseChartSource(options.chartSource);
  const target = await resolveClusterTarget({ kubeconfig: options.kubeconfig, report: stderrReporter });
  const helmBinary = await cliHelm(options.helm);
  const client = KubeClient.fromFile(target.kubeconfig);
  const operator = new NaviqueOperator({
    client,
    helm: new HelmCli({ binary: helmBinary, kubeconfig: target.kubeconfig }),
    source,
    ...(options.resyncSeconds ? { resyncMs: options.resyncSeconds * 1000 } : {}),
    ...(options.watchNamespaces ? { watchNamespaces: options.watchNamespaces } : {}),
    ...(options.trust && options.trust.length > 0 ? { trustedKeys: await trustedKeys(options.trust) } : {}),
  });
  const stopping = new AbortController();
  const stop = () => stopping.abort();
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  const stopped = new Promise<void>((resolve) => stopping.signal.addEventListener("abort", () => resolve()));

  let elector: LeaderElector | undefined;
  if (options.leaderElect ?? true) {
    await ensureSystemNamespace(client);
    elector = new LeaderElector({ client, report: stderrReporter });
    if (!(await elector.acquire(stopping.signal))) {
      stderrReporter("[operator] stopped as a standby");
      return 0;
    }
    elector.keepRenewing((reason) => {
      stderrReporter(`[operator] lost the leadership (${reason}): exiting, to start again as a standby`);
      process.exit(1);
    });
  }
  await operator.start();
  await stopped;
  const again = () => {
    stderrReporter("[operator] stopped by a second signal before its reconcile finished");
    process.exit(1);
  };
  process.once("SIGINT", again);
  process.once("SIGTERM", again);
  await operator.stop();
  if (elector) {
    await elector.release().then(
      () => stderrReporter(`[operator] released the leader lease ${elector.namespace}/${elector.leaseName}`),
      (error: unknown) =>
        stderrReporter(
          `[operator] releasing the leader lease failed (a standby takes over when it expires): ${error instanceof Error ? error.message : String(error)}`,
        ),
    );
  }
  stderrReporter("[operator] stopped");
  return 0;
}
