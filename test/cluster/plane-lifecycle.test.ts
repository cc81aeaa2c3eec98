import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFile, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { CoreV1Api, KubeConfig, VersionApi } from "@kubernetes/client-node";
import { fakeNodeName } from "../../lib/local-plane/fake-nodes.js";
import { processAlive } from "../../lib/local-plane/lock.js";
import { LocalControlPlane, type PlaneState } from "../../lib/local-plane/plane.js";
import { portFree } from "../../lib/local-plane/ports.js";
import { processesMentioning } from "../../lib/local-plane/processes.js";
import { silentReporter } from "../../lib/local-plane/progress.js";
import { KUBERNETES_VERSION } from "../../lib/local-plane/toolchain.js";
import { eventually } from "../support/cluster.js";

/** Reads the plane's recorded state (pids and ports). */
async function state(plane: LocalControlPlane): Promise<PlaneState> {
  return JSON.parse(await readFile(join(plane.dir, "state.json"), "utf8")) as PlaneState;
}

async function nodeReady(kubeconfigPath: string): Promise<boolean> {
  const kubeconfig = new KubeConfig();
  kubeconfig.loadFromFile(kubeconfigPath);
  const node = await kubeconfig.makeApiClient(CoreV1Api).readNode({ name: fakeNodeName(0) });
  return node.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True") ?? false;
}

function listen(port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve(server));
  });
}

// A plane of its own (not the shared one the other suites use), so that stopping and killing it
// disturbs nobody.
describe("the local control plane's lifecycle", () => {
  const plane = new LocalControlPlane({ name: `lifecycle-${randomBytes(3).toString("hex")}`, report: silentReporter });

  afterAll(async () => {
    await plane.stop({ purge: true });
    await rm(plane.dir, { recursive: true, force: true });
  });

  it("starts Ready with a Ready fake node, and a second start reuses the running plane", async () => {
    const first = await plane.ensureRunning();
    expect(first.started).toBe(true);
    expect(await nodeReady(first.kubeconfig)).toBe(true);
    const kubeconfig = new KubeConfig();
    kubeconfig.loadFromFile(first.kubeconfig);
    expect((await kubeconfig.makeApiClient(VersionApi).getCode()).gitVersion).toBe(KUBERNETES_VERSION);
    const pids = (await state(plane)).pids;

    const second = await plane.ensureRunning();
    expect(second.started).toBe(false);
    expect(second.server).toBe(first.server);
    expect((await state(plane)).pids).toEqual(pids);
  });

  it("recovers when a component died, and when its recorded port is taken by someone else", async () => {
    const before = await state(plane);
    const apiserverPid = before.pids["kube-apiserver"] ?? 0;
    process.kill(apiserverPid, "SIGKILL");
    await eventually("the killed apiserver to release its port", async () =>
      (await portFree(before.ports.apiserver)) ? true : undefined,
    );
    const squatter = await listen(before.ports.apiserver);
    try {
      const recovered = await plane.ensureRunning();
      expect(recovered.started).toBe(true);
      expect(recovered.server).not.toBe(`https://127.0.0.1:${before.ports.apiserver}`);
      expect(await nodeReady(recovered.kubeconfig)).toBe(true);
      const after = await state(plane);
      // Every process of the previous run was replaced, none left over beside the new ones.
      for (const pid of Object.values(before.pids)) expect(processAlive(pid)).toBe(false);
      expect((await processesMentioning(plane.dir)).sort()).toEqual(Object.values(after.pids).sort());
    } finally {
      squatter.close();
    }
  });

  it("ignores a stale state file whose pids now belong to unrelated processes", async () => {
    await plane.stop();
    const bystander = spawn("sleep", ["60"], { stdio: "ignore" });
    try {
      await writeFile(
        join(plane.dir, "state.json"),
        JSON.stringify({
          name: plane.name,
          ports: { etcdClient: 1, etcdPeer: 2, apiserver: 3 },
          pids: { etcd: bystander.pid, "kube-apiserver": bystander.pid },
          startedAt: "2020-01-01T00:00:00Z",
          readyAfterMs: 0,
        }),
      );
      const restarted = await plane.ensureRunning();
      expect(restarted.started).toBe(true);
      expect(processAlive(bystander.pid ?? 0)).toBe(true);
      expect(await nodeReady(restarted.kubeconfig)).toBe(true);
    } finally {
      bystander.kill();
    }
  });

  it("stops every process it started", async () => {
    const running = await state(plane);
    await plane.stop();
    for (const pid of Object.values(running.pids)) expect(processAlive(pid)).toBe(false);
    expect(await processesMentioning(plane.dir)).toEqual([]);
    expect(await plane.status()).toBeUndefined();
  });
});
