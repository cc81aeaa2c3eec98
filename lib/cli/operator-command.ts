import {
  type BindAddress,
  DEFAULT_CONSOLE_BIND_ADDRESS,
  DEFAULT_HEALTH_PROBE_BIND_ADDRESS,
  DEFAULT_METRICS_BIND_ADDRESS,
  parseBindAddress,
} from "../../providers/operator/bind-address.js";
import { serveConsole } from "../../providers/operator/console-server.js";
import { keepConsoleStatus } from "../../providers/operator/console-status.js";
import { NaviqueOperator } from "../../providers/operator/operator.js";
import { serveOperatorEndpoints } from "../../providers/operator/operator-endpoints.js";
import { OperatorMetrics } from "../../providers/operator/operator-metrics.js";
import { namespaceName } from "../api/refs.js";
import { parseInput } from "../api/validation.js";
import { ensureSystemNamespace } from "../capabilities/lease-lock.js";
import { CATALOG } from "../catalog/catalog.js";
import { parseChartSource } from "../catalog/chart-source.js";
import { NO_RETRY } from "../cluster/api-retry.js";
import { HelmCli } from "../cluster/helm-cli.js";
import { KubeClient } from "../cluster/kube-client.js";
import { LEADER_RETRY_PERIOD_MS, LeaderElector } from "../cluster/leader-election.js";
import { killRunningCommands } from "../cluster/process.js";
import { clusterAuthenticator } from "../console/console-auth.js";
import { clusterSnapshots } from "../console/console-snapshot.js";
import { REGISTRY } from "../kinds/registry.js";
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

/** `--metrics-bind-address ADDR`: where GET /metrics is served; `0` turns metrics off. @default DEFAULT_METRICS_BIND_ADDRESS */
export function parseMetricsBindAddress(flag: string | undefined): BindAddress | undefined {
  return parseBindAddress("--metrics-bind-address", flag ?? DEFAULT_METRICS_BIND_ADDRESS, "metrics");
}

/**
 * `--health-probe-bind-address ADDR`: where GET /healthz and /readyz are served; `0` turns them off.
 * @default DEFAULT_HEALTH_PROBE_BIND_ADDRESS
 */
export function parseHealthProbeBindAddress(flag: string | undefined): BindAddress | undefined {
  return parseBindAddress(
    "--health-probe-bind-address",
    flag ?? DEFAULT_HEALTH_PROBE_BIND_ADDRESS,
    "the health probes",
  );
}

/** `--console-bind-address ADDR`: where the console is served; `0` turns it off. @default DEFAULT_CONSOLE_BIND_ADDRESS */
export function parseConsoleBindAddress(flag: string | undefined): BindAddress | undefined {
  return parseBindAddress("--console-bind-address", flag ?? DEFAULT_CONSOLE_BIND_ADDRESS, "the console");
}

/**
 * `navique operator`: with leader election (the default), watches at once and waits as a standby until it
 * holds the leader Lease, then runs passes; runs until SIGINT/SIGTERM, then stops its watches, lets the
 * reconcile under way finish, releases the Lease so that a standby takes over at once, and returns. A
 * leader that cannot renew the Lease within the renew deadline stands by again without exiting
 * (leadWhileElected). A second signal while it stops exits at once, as a second Ctrl-C is meant to.
 * Its metrics and health probes (docs/operator.md) are served before it connects to the cluster, and
 * until it has stopped: /healthz and /readyz answer 503 from the first signal on.
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
  /** `--metrics-bind-address`, parsed by parseMetricsBindAddress. @default DEFAULT_METRICS_BIND_ADDRESS */
  readonly metricsBindAddress?: string;
  /** `--health-probe-bind-address`, parsed by parseHealthProbeBindAddress. @default DEFAULT_HEALTH_PROBE_BIND_ADDRESS */
  readonly healthProbeBindAddress?: string;
  /** `--console-bind-address`, parsed by parseConsoleBindAddress. @default DEFAULT_CONSOLE_BIND_ADDRESS */
  readonly consoleBindAddress?: string;
}): Promise<number> {
  const metricsAddress = parseMetricsBindAddress(options.metricsBindAddress);
  const healthAddress = parseHealthProbeBindAddress(options.healthProbeBindAddress);
  const consoleAddress = parseConsoleBindAddress(options.consoleBindAddress);
  const source = parseChartSource(options.chartSource);
  const metrics = new OperatorMetrics({
    kinds: [...REGISTRY.kinds.map((m) => m.definition.kind), REGISTRY.singleton.definition.kind],
    capabilities: [...CATALOG.keys()],
  });
  const stopping = new AbortController();
  let operator: NaviqueOperator | undefined;
  const endpoints = await serveOperatorEndpoints({
    metrics: { address: metricsAddress, metrics },
    health: {
      address: healthAddress,
      health: {
        stopping: () => stopping.signal.aborted,
        readiness: () =>
          operator?.readiness() ?? {
            ready: false,
            reason: "connecting to the cluster: its watches have not started yet",
          },
      },
    },
    report: stderrReporter,
  });
  let consoleServer: { close(): Promise<void> } | undefined;
  try {
    const target = await resolveClusterTarget({ kubeconfig: options.kubeconfig, report: stderrReporter });
    const helmBinary = await cliHelm(options.helm);
    const client = KubeClient.fromFile(target.kubeconfig);
    // Its own clients: the operator's is fenced while it does not lead, and every replica serves the console.
    const trusted = options.trust && options.trust.length > 0 ? await trustedKeys(options.trust) : undefined;
    consoleServer = consoleAddress
      ? await serveConsole({
          address: consoleAddress,
          authenticator: clusterAuthenticator(KubeClient.fromFile(target.kubeconfig)),
          snapshots: clusterSnapshots(target.kubeconfig, trusted),
          report: stderrReporter,
        })
      : undefined;
    const running = new NaviqueOperator({
      client,
      helm: new HelmCli({ binary: helmBinary, kubeconfig: target.kubeconfig }),
      source,
      observer: metrics,
      ...(options.resyncSeconds ? { resyncMs: options.resyncSeconds * 1000 } : {}),
      ...(options.watchNamespaces ? { watchNamespaces: options.watchNamespaces } : {}),
      ...(trusted ? { trustedKeys: trusted } : {}),
    });
    operator = running;
    metrics.watchQueue(() => running.queueDepth);
    return await operate(running, {
      client,
      kubeconfig: target.kubeconfig,
      leaderElect: options.leaderElect ?? true,
      metrics,
      stopping,
      console: consoleAddress ? { address: consoleAddress.value } : undefined,
    });
  } finally {
    await consoleServer?.close();
    await endpoints.close();
  }
}

/** Runs `operator` until `stopping` aborts (a signal), electing a leader when `leaderElect`; then stops it. */
async function operate(
  operator: NaviqueOperator,
  how: {
    readonly client: KubeClient;
    readonly kubeconfig: string;
    readonly leaderElect: boolean;
    readonly metrics: OperatorMetrics;
    readonly stopping: AbortController;
    /** Where this process serves the console, which the leader writes in the status of the console's settings. */
    readonly console: { readonly address: string } | undefined;
  },
): Promise<number> {
  const { client, kubeconfig, leaderElect, metrics, stopping } = how;
  const stop = () => stopping.abort();
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  const stopped = new Promise<void>((resolve) => stopping.signal.addEventListener("abort", () => resolve()));

  let elector: LeaderElector | undefined;
  let term: Promise<void> = Promise.resolve();
  if (leaderElect) {
    await ensureSystemNamespace(client);
    // Its own client: the operator's is fenced while it does not lead, and the Lease is what it writes then.
    // Without retries, as client-go's elector: the retry period is its retry, and a renewal that waited in
    // a backoff would only come after the renew deadline.
    const electing = KubeClient.fromFile(kubeconfig, { retry: NO_RETRY });
    elector = new LeaderElector({ client: electing, report: stderrReporter });
    term = leadWhileElected(elector, operator, client, stopping.signal, (leads) => metrics.leading(leads));
  } else {
    // Alone, it leads from the start.
    metrics.leading(true);
    await operator.start();
  }
  const leading = elector;
  keepConsoleStatus({
    client,
    served: how.console,
    leads: () => leading?.isLeader ?? true,
    signal: stopping.signal,
    report: stderrReporter,
  });
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
  metrics.leading(false);
  stderrReporter("[operator] stopped");
  return 0;
}

/**
 * The terms of one operator process: its watches started at once (a standby's caches are warm when it
 * takes over), passes run while it holds the Lease. When the lead is lost — no renewal within the renew
 * deadline (an apiserver away), or the Lease taken — it does at once what an exit would do, without
 * exiting (docs/adr/0027-leader-election.md, "Amended"): its writes are fenced, its connections dropped
 * (requests under way fail), its helm commands killed, its queue paused; the watches go on. Then it waits
 * as a standby again, and leads again when it holds the Lease. Resolves once `signal` aborts. `leading`
 * is told each time it takes the lead or gives it up (the navique_leader gauge).
 */
async function leadWhileElected(
  elector: LeaderElector,
  operator: NaviqueOperator,
  client: KubeClient,
  signal: AbortSignal,
  leading: (leads: boolean) => void,
): Promise<void> {
  client.fenceWrites(() => (elector.isLeader ? undefined : "this operator does not hold the leader lease"));
  operator.watchAll();
  while (!signal.aborted) {
    if (!(await elector.acquire(signal))) return;
    leading(true);
    try {
      await operator.lead();
    } catch (error) {
      // Its CRDs not applied (an apiserver going away again): the term is given up, and tried again.
      stderrReporter(
        `[operator] could not start leading, giving the lead up: ${error instanceof Error ? error.message : String(error)}`,
      );
      await elector.release().catch(() => undefined);
      leading(false);
      await operator.standBy();
      await new Promise((resolve) => setTimeout(resolve, LEADER_RETRY_PERIOD_MS));
      continue;
    }
    const lost = await new Promise<string | undefined>((resolve) => {
      elector.keepRenewing(resolve);
      signal.addEventListener("abort", () => resolve(undefined), { once: true });
    });
    if (lost === undefined) return;
    leading(false);
    client.dropConnections();
    const killed = killRunningCommands();
    stderrReporter(
      `[operator] lost the leadership (${lost}): writes stopped${killed > 0 ? `, ${killed} helm command(s) killed` : ""}; standing by to lead again`,
    );
    await operator.standBy();
  }
}
