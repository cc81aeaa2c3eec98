import { NaviqueOperator } from "../../providers/operator/operator.js";
import { namespaceName } from "../api/refs.js";
import { parseInput } from "../api/validation.js";
import { ensureSystemNamespace } from "../capabilities/lease-lock.js";
import { parseChartSource } from "../catalog/chart-source.js";
import { NO_RETRY } from "../cluster/api-retry.js";
import { HelmCli } from "../cluster/helm-cli.js";
import { KubeClient } from "../cluster/kube-client.js";
import { LEADER_RETRY_PERIOD_MS, LeaderElector } from "../cluster/leader-election.js";
import { killRunningCommands } from "../cluster/process.js";
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
 * `navique operator`: with leader election (the default), watches at once and waits as a standby until it
 * holds the leader Lease, then runs passes; runs until SIGINT/SIGTERM, then stops its watches, lets the
 * reconcile under way finish, releases the Lease so that a standby takes over at once, and returns. A
 * leader that cannot renew the Lease within the renew deadline stands by again without exiting
 * (leadWhileElected). A second signal while it stops exits at once, as a second Ctrl-C is meant to.
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
  let term: Promise<void> = Promise.resolve();
  if (options.leaderElect ?? true) {
    await ensureSystemNamespace(client);
    // Its own client: the operator's is fenced while it does not lead, and the Lease is what it writes then.
    // Without retries, as client-go's elector: the retry period is its retry, and a renewal that waited in
    // a backoff would only come after the renew deadline.
    const electing = KubeClient.fromFile(target.kubeconfig, { retry: NO_RETRY });
    elector = new LeaderElector({ client: electing, report: stderrReporter });
    term = leadWhileElected(elector, operator, client, stopping.signal);
  } else {
    await operator.start();
  }
  await stopped;
  const again = () => {
    stderrReporter("[operator] stopped by a second signal before its reconcile finished");
    process.exit(1);
  };
  process.once("SIGINT", again);
  process.once("SIGTERM", again);
  await operator.stop();
  await term;
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

/**
 * The terms of one operator process: its watches started at once (a standby's caches are warm when it
 * takes over), passes run while it holds the Lease. When the lead is lost — no renewal within the renew
 * deadline (an apiserver away), or the Lease taken — it does at once what an exit would do, without
 * exiting (docs/adr/0027-leader-election.md, "Amended"): its writes are fenced, its connections dropped
 * (requests under way fail), its helm commands killed, its queue paused; the watches go on. Then it waits
 * as a standby again, and leads again when it holds the Lease. Resolves once `signal` aborts.
 */
async function leadWhileElected(
  elector: LeaderElector,
  operator: NaviqueOperator,
  client: KubeClient,
  signal: AbortSignal,
): Promise<void> {
  client.fenceWrites(() => (elector.isLeader ? undefined : "this operator does not hold the leader lease"));
  operator.watchAll();
  while (!signal.aborted) {
    if (!(await elector.acquire(signal))) return;
    try {
      await operator.lead();
    } catch (error) {
      // Its CRDs not applied (an apiserver going away again): the term is given up, and tried again.
      stderrReporter(
        `[operator] could not start leading, giving the lead up: ${error instanceof Error ? error.message : String(error)}`,
      );
      await elector.release().catch(() => undefined);
      await operator.standBy();
      await new Promise((resolve) => setTimeout(resolve, LEADER_RETRY_PERIOD_MS));
      continue;
    }
    const lost = await new Promise<string | undefined>((resolve) => {
      elector.keepRenewing(resolve);
      signal.addEventListener("abort", () => resolve(undefined), { once: true });
    });
    if (lost === undefined) return;
    client.dropConnections();
    const killed = killRunningCommands();
    stderrReporter(
      `[operator] lost the leadership (${lost}): writes stopped${killed > 0 ? `, ${killed} helm command(s) killed` : ""}; standing by to lead again`,
    );
    await operator.standBy();
  }
}
