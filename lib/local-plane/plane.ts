import { existsSync } from "node:fs";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { ensureCredentials, type PlaneCredentials } from "./credentials.js";
import { ensureFakeNodesReady } from "./fake-nodes.js";
import { probe } from "./http-probe.js";
import { withDirectoryLock } from "./lock.js";
import { planeDir } from "./paths.js";
import { PlaneStartError } from "./plane-errors.js";
import { freePort, portFree } from "./ports.js";
import { ownsProcess, processesMentioning, spawnDetached, terminate } from "./processes.js";
import { formatDuration, type Reporter, stderrReporter } from "./progress.js";
import { ensureToolchain, type Toolchain } from "./toolchain-paths.js";

/** Component names in start order; they are stopped in the reverse order. */
const COMPONENTS = ["etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler", "kwok"] as const;
type Component = (typeof COMPONENTS)[number];

/** The recipes the plane itself runs; helm and pulumi are built by `ensureToolchain` without `only`. */
const PLANE_RECIPES = ["etcd", "kubernetes", "kwok"];

/** Preferred loopback ports, so that a kubeconfig stays valid across restarts; any free port if taken. */
const PREFERRED_PORTS = { etcdClient: 23790, etcdPeer: 23800, apiserver: 16443 } as const;

export const SERVICE_CIDR = "10.96.0.0/16";
export const POD_CIDR = "10.244.0.0/16";

export interface PlaneState {
  readonly name: string;
  readonly ports: { readonly etcdClient: number; readonly etcdPeer: number; readonly apiserver: number };
  readonly pids: Partial<Record<Component, number>>;
  readonly startedAt: string;
  readonly readyAfterMs: number;
}

/** What a caller needs to use a running plane. */
export interface PlaneConnection {
  readonly name: string;
  readonly dir: string;
  readonly kubeconfig: string;
  readonly server: string;
  /** Whether this call started the plane (false: an already running plane was reused). */
  readonly started: boolean;
  readonly readyAfterMs: number;
  readonly toolchain: Toolchain;
}

export interface PlaneOptions {
  /** Several planes may coexist on one machine, each in its own directory. @default "local" */
  readonly name?: string;
  /** Fake nodes kwok keeps Ready. @default 1 */
  readonly nodes?: number;
  readonly report?: Reporter;
  readonly env?: NodeJS.ProcessEnv;
}

/**
 * A real Kubernetes control plane on loopback: etcd, kube-apiserver, kube-controller-manager,
 * kube-scheduler, and kwok keeping fake Nodes (and the Pods bound to them) Ready. Used by the tests and
 * by the main command when no cluster is configured.
 */
export class LocalControlPlane {
  readonly name: string;
  readonly dir: string;
  private readonly report: Reporter;
  private readonly env: NodeJS.ProcessEnv;
  private readonly nodes: number;

  constructor(options: PlaneOptions = {}) {
    this.name = options.name ?? "local";
    this.env = options.env ?? process.env;
    this.dir = planeDir(this.name, this.env);
    this.report = options.report ?? stderrReporter;
    this.nodes = options.nodes ?? 1;
  }

  get kubeconfigPath(): string {
    return join(this.dir, "kubeconfig");
  }

  private get statePath(): string {
    return join(this.dir, "state.json");
  }

  private log(component: Component): string {
    return join(this.dir, "logs", `${component}.log`);
  }

  /**
   * Returns a Ready plane: reuses the running one when every component is alive and the API answers,
   * otherwise clears whatever a previous run left (stale pids, half-started components) and starts anew.
   * Two processes calling this at once start one plane.
   */
  async ensureRunning(): Promise<PlaneConnection> {
    const toolchain = await ensureToolchain({ report: this.report, env: this.env, only: PLANE_RECIPES });
    await mkdir(this.dir, { recursive: true });
    return withDirectoryLock(join(this.dir, ".lock"), this.report, async () => {
      const credentials = await ensureCredentials(join(this.dir, "pki"));
      const running = await this.reusable(credentials);
      if (running) {
        return this.connection(running, toolchain, false);
      }
      await this.clearLeftovers();
      const state = await this.start(toolchain, credentials);
      return this.connection(state, toolchain, true);
    });
  }

  /** Stops every component of this plane, including leftovers of a run whose state file was lost. */
  async stop(options: { readonly purge?: boolean } = {}): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    await withDirectoryLock(join(this.dir, ".lock"), this.report, async () => {
      await this.clearLeftovers();
      if (options.purge) {
        for (const entry of ["etcd", "pki", "kubeconfig", "logs"]) {
          await rm(join(this.dir, entry), { recursive: true, force: true });
        }
      }
    });
  }

  /** The recorded state when every component is alive and the apiserver is ready; undefined otherwise. */
  async status(): Promise<PlaneState | undefined> {
    if (!existsSync(join(this.dir, "pki", "admin.token"))) return undefined;
    const credentials = await ensureCredentials(join(this.dir, "pki"));
    return this.reusable(credentials);
  }

  private async readState(): Promise<PlaneState | undefined> {
    if (!existsSync(this.statePath)) return undefined;
    try {
      return JSON.parse(await readFile(this.statePath, "utf8")) as PlaneState;
    } catch {
      return undefined;
    }
  }

  private async reusable(credentials: PlaneCredentials): Promise<PlaneState | undefined> {
    const state = await this.readState();
    if (!state) return undefined;
    for (const component of COMPONENTS) {
      const pid = state.pids[component];
      if (pid === undefined || !(await ownsProcess(pid, this.dir))) return undefined;
    }
    const ready = await probe(`https://127.0.0.1:${state.ports.apiserver}/readyz`, {
      ca: await readFile(join(credentials.pkiDir, "apiserver.crt")).catch(() => undefined),
      token: credentials.adminToken,
    });
    return ready.status === 200 ? state : undefined;
  }

  /** Terminates every process of this plane still alive: recorded pids first, then any other that names our directory. */
  private async clearLeftovers(): Promise<void> {
    const state = await this.readState();
    const recorded = COMPONENTS.map((c) => state?.pids[c]).filter((pid): pid is number => pid !== undefined);
    for (const pid of recorded.reverse()) {
      if (await ownsProcess(pid, this.dir)) await terminate(pid);
    }
    for (const pid of await processesMentioning(this.dir)) await terminate(pid);
    await rm(this.statePath, { force: true });
  }

  private async choosePort(preferred: number, taken: Set<number>): Promise<number> {
    let port = preferred;
    if (taken.has(port) || !(await portFree(port))) {
      do port = await freePort();
      while (taken.has(port));
    }
    taken.add(port);
    return port;
  }

  private async start(toolchain: Toolchain, credentials: PlaneCredentials): Promise<PlaneState> {
    const started = Date.now();
    await mkdir(join(this.dir, "logs"), { recursive: true });
    for (const component of COMPONENTS) await writeFile(this.log(component), "");
    const taken = new Set<number>();
    const ports = {
      etcdClient: await this.choosePort(PREFERRED_PORTS.etcdClient, taken),
      etcdPeer: await this.choosePort(PREFERRED_PORTS.etcdPeer, taken),
      apiserver: await this.choosePort(PREFERRED_PORTS.apiserver, taken),
    };
    const pids: Partial<Record<Component, number>> = {};
    const save = () =>
      writeFile(
        this.statePath,
        `${JSON.stringify({ name: this.name, ports, pids, startedAt: new Date(started).toISOString(), readyAfterMs: Date.now() - started }, null, 2)}\n`,
      );
    this.report(`[plane ${this.name}] starting etcd on 127.0.0.1:${ports.etcdClient}`);

    pids.etcd = await this.startEtcd(toolchain, ports);
    await save();

    this.report(`[plane ${this.name}] starting kube-apiserver on https://127.0.0.1:${ports.apiserver}`);
    pids["kube-apiserver"] = spawnDetached(
      toolchain.kubeApiserver,
      this.apiserverArgs(ports, credentials),
      this.log("kube-apiserver"),
    );
    await save();
    const apiserverCa = join(credentials.pkiDir, "apiserver.crt");
    await this.waitFor("kube-apiserver", pids["kube-apiserver"], 120_000, async () => {
      if (!existsSync(apiserverCa)) return false;
      const ready = await probe(`https://127.0.0.1:${ports.apiserver}/readyz`, {
        ca: await readFile(apiserverCa),
        token: credentials.adminToken,
      });
      return ready.status === 200;
    });
    await this.writeKubeconfig(ports.apiserver, await readFile(apiserverCa), credentials.adminToken);

    this.report(`[plane ${this.name}] starting kube-controller-manager, kube-scheduler and kwok`);
    pids["kube-controller-manager"] = spawnDetached(
      toolchain.kubeControllerManager,
      this.controllerManagerArgs(credentials),
      this.log("kube-controller-manager"),
    );
    pids["kube-scheduler"] = spawnDetached(
      toolchain.kubeScheduler,
      ["--kubeconfig", this.kubeconfigPath, "--leader-elect=false", "--secure-port=0"],
      this.log("kube-scheduler"),
    );
    pids.kwok = spawnDetached(
      toolchain.kwok,
      [
        "--kubeconfig",
        this.kubeconfigPath,
        "--manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake",
        `--cidr=${POD_CIDR}`,
        "--node-ip=127.0.0.1",
        "--node-lease-duration-seconds=40",
        ...toolchain.kwokStages.flatMap((stage) => ["-c", stage]),
      ],
      this.log("kwok"),
    );
    await save();

    await ensureFakeNodesReady(this.kubeconfigPath, this.nodes, {
      report: this.report,
      stillRunning: async () => {
        for (const component of COMPONENTS) {
          const pid = pids[component];
          if (pid === undefined || !(await ownsProcess(pid, this.dir))) return component;
        }
        return undefined;
      },
      logTail: (component) => this.logTail(component as Component),
    });
    await save();
    this.report(
      `[plane ${this.name}] Ready in ${formatDuration(Date.now() - started)}; KUBECONFIG=${this.kubeconfigPath}`,
    );
    const state = await this.readState();
    if (!state) throw new Error(`local control plane: state file ${this.statePath} vanished while starting`);
    return state;
  }

  /**
   * Starts etcd on the kept data directory; if that data cannot be served (a previous etcd died while
   * writing without fsync), the data is discarded and etcd started once more on an empty directory.
   */
  private async startEtcd(toolchain: Toolchain, ports: PlaneState["ports"]): Promise<number> {
    const dataDir = join(this.dir, "etcd");
    const args = [
      "--name=navique-local",
      `--data-dir=${dataDir}`,
      `--listen-client-urls=http://127.0.0.1:${ports.etcdClient}`,
      `--advertise-client-urls=http://127.0.0.1:${ports.etcdClient}`,
      `--listen-peer-urls=http://127.0.0.1:${ports.etcdPeer}`,
      `--initial-advertise-peer-urls=http://127.0.0.1:${ports.etcdPeer}`,
      `--initial-cluster=navique-local=http://127.0.0.1:${ports.etcdPeer}`,
      "--unsafe-no-fsync=true",
      "--quota-backend-bytes=4294967296",
      "--log-level=warn",
    ];
    const healthy = async () => {
      const health = await probe(`http://127.0.0.1:${ports.etcdClient}/health`);
      return health.status === 200 && health.body.includes('"health":"true"');
    };
    for (let attempt = 1; ; attempt++) {
      const pid = spawnDetached(toolchain.etcd, args, this.log("etcd"));
      try {
        await this.waitFor("etcd", pid, 30_000, healthy);
        return pid;
      } catch (error) {
        if (attempt > 1 || !existsSync(dataDir)) throw error;
        this.report(
          `[plane ${this.name}] etcd could not serve its kept data; discarding ${dataDir} and starting empty`,
        );
        await terminate(pid);
        await rm(dataDir, { recursive: true, force: true });
      }
    }
  }

  private apiserverArgs(ports: PlaneState["ports"], credentials: PlaneCredentials): string[] {
    return [
      `--etcd-servers=http://127.0.0.1:${ports.etcdClient}`,
      `--cert-dir=${credentials.pkiDir}`,
      "--bind-address=127.0.0.1",
      "--advertise-address=127.0.0.1",
      `--secure-port=${ports.apiserver}`,
      `--service-cluster-ip-range=${SERVICE_CIDR}`,
      "--service-account-issuer=https://kubernetes.default.svc.cluster.local",
      `--service-account-key-file=${credentials.serviceAccountPub}`,
      `--service-account-signing-key-file=${credentials.serviceAccountKey}`,
      `--token-auth-file=${credentials.tokenFile}`,
      "--authorization-mode=RBAC",
      "--allow-privileged=true",
      "--profiling=false",
      "--v=1",
    ];
  }

  private controllerManagerArgs(credentials: PlaneCredentials): string[] {
    return [
      "--kubeconfig",
      this.kubeconfigPath,
      "--leader-elect=false",
      "--secure-port=0",
      "--use-service-account-credentials=false",
      `--service-account-private-key-file=${credentials.serviceAccountKey}`,
      `--root-ca-file=${join(credentials.pkiDir, "apiserver.crt")}`,
      `--service-cluster-ip-range=${SERVICE_CIDR}`,
      `--cluster-cidr=${POD_CIDR}`,
      "--allocate-node-cidrs=false",
      // Controllers that need a cloud or real kubelets have nothing to do here.
      "--controllers=*,-nodeipam,-cloud-node-lifecycle,-service-lb-controller,-node-route-controller",
    ];
  }

  private async writeKubeconfig(port: number, ca: Buffer, token: string): Promise<void> {
    const context = `navique-${this.name}`;
    const kubeconfig = {
      apiVersion: "v1",
      kind: "Config",
      clusters: [
        {
          name: context,
          cluster: { server: `https://127.0.0.1:${port}`, "certificate-authority-data": ca.toString("base64") },
        },
      ],
      users: [{ name: `${context}-admin`, user: { token } }],
      contexts: [{ name: context, context: { cluster: context, user: `${context}-admin`, namespace: "default" } }],
      "current-context": context,
      preferences: {},
    };
    // JSON is valid YAML; every kubeconfig reader accepts it.
    await writeFile(this.kubeconfigPath, `${JSON.stringify(kubeconfig, null, 2)}\n`, { mode: 0o600 });
  }

  private async waitFor(
    component: Component,
    pid: number,
    timeoutMs: number,
    ready: () => Promise<boolean>,
  ): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (!(await ownsProcess(pid, this.dir))) {
        throw new PlaneStartError(component, "exited while starting", await this.logTail(component));
      }
      if (await ready()) return;
      await sleep(250);
    }
    throw new PlaneStartError(
      component,
      `was not ready after ${formatDuration(timeoutMs)}`,
      await this.logTail(component),
    );
  }

  async logTail(component: Component, lines = 20): Promise<string> {
    const text = await readFile(this.log(component), "utf8").catch(() => "(no log)");
    return text.trim().split("\n").slice(-lines).join("\n");
  }

  private connection(state: PlaneState, toolchain: Toolchain, started: boolean): PlaneConnection {
    return {
      name: this.name,
      dir: this.dir,
      kubeconfig: this.kubeconfigPath,
      server: `https://127.0.0.1:${state.ports.apiserver}`,
      started,
      readyAfterMs: state.readyAfterMs,
      toolchain,
    };
  }
}
