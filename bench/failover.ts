/**
 * Two `navique operator` processes, as the chart's two replicas, on a running plane: the License writes
 * between two operators that trust different keys in a window (with leader election, and with
 * `--leader-elect=false` to show the loop it prevents), then the failover time — from a `kill -9` of the
 * leader's process group to a PostgresCluster created at that instant being Ready — as the median of N
 * kills. Usage:
 *
 * Beside `stress-ng --cpu 2` (two busy cores; apt-get install stress-ng) unless --no-stress.
 *
 *   NAVIQUE_TEST_PLANE=helpers npx tsx bench/failover.ts --kubeconfig PATH [--kills 5] [--window 30] [--no-stress]
 *
 * The License and the leader Lease are cluster-wide: the bench takes the plane's capability lock, as the
 * test suites do, and removes both when done.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { KubeConfig } from "@kubernetes/client-node";
import { SYSTEM_NAMESPACE } from "../lib/api/group.js";
import { ensureNaviqueCrds } from "../lib/apply/navique-crds.js";
import { ensureSystemNamespace } from "../lib/capabilities/lease-lock.js";
import { KubeClient, orUndefined, statusOf } from "../lib/cluster/kube-client.js";
import { LEADER_LEASE_NAME } from "../lib/cluster/leader-election.js";
import { acquireDirectoryLock } from "../lib/local-plane/lock.js";
import { applyLicence, removeLicence } from "../test/support/licence.js";
import { emptyNamespace } from "../test/support/namespace-content.js";
import { startOperatorProcess, stopOperatorProcess } from "../test/support/operator-process.js";
import { createConnectionSecret, createPostgresCluster, readPostgresCluster } from "../test/support/postgres.js";
import { countLicenceWrites, killGroup, outputContains, vendorKey } from "../test/support/two-operators.js";

const { values: flags } = parseArgs({
  options: {
    kubeconfig: { type: "string" },
    kills: { type: "string", default: "5" },
    window: { type: "string", default: "30" },
    "same-namespace": { type: "boolean", default: false },
    "no-stress": { type: "boolean", default: false },
  },
});
const kubeconfig = flags.kubeconfig ?? process.env.KUBECONFIG;
if (!kubeconfig)
  throw new Error("--kubeconfig PATH: the plane to run on, e.g. ~/.cache/navique-ai-core/planes/helpers/kubeconfig");
// The operators' helper reads the plane from here, as under jest.
process.env.NAVIQUE_TEST_KUBECONFIG = kubeconfig;
const KILLS = Number(flags.kills);
const WINDOW_MS = Number(flags.window) * 1000;
const NAMESPACE = "bench-failover";
const EXTERNAL = { mode: "external" as const, external: { connectionSecretRef: { name: "pg" } } };
type Operator = ReturnType<typeof startOperatorProcess>;

const plane = process.env.NAVIQUE_TEST_PLANE;
const lockPath = join(
  tmpdir(),
  plane && plane !== "local" ? `navique-test-capabilities-${plane}.lock` : "navique-test-capabilities.lock",
);
if (!flags["no-stress"] && spawnSync("stress-ng", ["--version"]).error)
  throw new Error("stress-ng is not on PATH: install it (apt-get install stress-ng) or pass --no-stress");
const unlock = await acquireDirectoryLock(lockPath, (line) => process.stderr.write(`${line}\n`));
const stress: ChildProcess | undefined = flags["no-stress"]
  ? undefined
  : spawn("stress-ng", ["--cpu", "2", "--quiet"], { stdio: "ignore", detached: true });
const client = KubeClient.fromFile(kubeconfig);
const config = new KubeConfig();
config.loadFromFile(kubeconfig);
const work = await mkdtemp(join(tmpdir(), "navique-bench-failover-"));
const running: Operator[] = [];
// Each in a pid namespace of its own, as two Pods, unless --same-namespace: then a standby sees at once
// that the leader's process has ended (the same-machine shortcut of docs/adr/0027-leader-election.md).
const start = (trust: readonly string[], leaderElect: boolean) => {
  const operator = startOperatorProcess({ leaderElect, extraArgs: trust, ownPidNamespace: !flags["same-namespace"] });
  running.push(operator);
  return operator;
};
const deleteLeaderLease = () =>
  orUndefined(client.coordination.deleteNamespacedLease({ name: LEADER_LEASE_NAME, namespace: SYSTEM_NAMESPACE }));

try {
  await ensureNaviqueCrds(client);
  await ensureSystemNamespace(client);
  await deleteLeaderLease();
  const exists = (error: unknown) => {
    if (statusOf(error) !== 409) throw error;
  };
  await client.core.createNamespace({ body: { metadata: { name: NAMESPACE } } }).catch(exists);
  await createConnectionSecret(client, NAMESPACE).catch(exists);
  const a = await vendorKey(work, "vendor-a");
  const b = await vendorKey(work, "vendor-b");
  await applyLicence(client, a.licence({ PostgresCluster: 100 }));

  // Writes between two operators that disagree on the License.
  for (const leaderElect of [false, true]) {
    const first = start(a.trustArgs, leaderElect);
    await outputContains(first.process, first.output, "[operator] started");
    const second = start(b.trustArgs, leaderElect);
    await outputContains(second.process, second.output, leaderElect ? "waits as a standby" : "[operator] started");
    const counted = await countLicenceWrites(config, WINDOW_MS);
    process.stdout.write(
      `two operators trusting different keys, ${WINDOW_MS / 1000} s, leader election ${leaderElect ? "on" : "off"}: ${counted.writes} License writes, ${counted.events} Events about it\n`,
    );
    for (const operator of [first, second]) await stopOperatorProcess(operator.process);
  }

  // Failover: each round kills the leader; the standby leads, and a new standby is started for the next.
  const failovers: number[] = [];
  let leader = start(a.trustArgs, true);
  await outputContains(leader.process, leader.output, "[operator] started");
  for (let round = 0; round < KILLS; round++) {
    // Trusting the same key: a leader that found the License untrusted would cap new resources at Community's 2.
    const standby = start(a.trustArgs, true);
    await outputContains(standby.process, standby.output, "waits as a standby");
    // Renewed a moment ago or up to a retry period ago: a random instant, as a crash is.
    await new Promise((resolve) => setTimeout(resolve, Math.random() * 2_000));
    await killGroup(leader.process);
    const died = Date.now();
    const name = `after-kill-${round}`;
    await createPostgresCluster(client, NAMESPACE, name, EXTERNAL);
    for (;;) {
      const resource = await readPostgresCluster(client, NAMESPACE, name);
      if (resource?.status?.conditions.find((c) => c.type === "Ready")?.status === "True") break;
      if (Date.now() - died > 120_000) throw new Error(`${name} not Ready 120 s after the leader's kill`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    failovers.push(Date.now() - died);
    process.stdout.write(
      `kill ${round + 1}: the new resource Ready ${failovers.at(-1)} ms after the leader's kill -9\n`,
    );
    leader = standby;
  }
  const sorted = [...failovers].sort((x, y) => x - y);
  const median = sorted[Math.floor(sorted.length / 2)] ?? 0;
  process.stdout.write(
    `failover over ${KILLS} kills${flags["same-namespace"] ? " (one pid namespace)" : " (a pid namespace each)"}${stress ? ", beside stress-ng --cpu 2" : ""}: median ${median} ms, min ${sorted[0]} ms, max ${sorted.at(-1)} ms (goal: within 20,000 ms)\n`,
  );
  // The leader finalizes the PostgresClusters as they go.
  await emptyNamespace(client, NAMESPACE);
} finally {
  for (const operator of running) await stopOperatorProcess(operator.process).catch(() => undefined);
  await orUndefined(client.core.deleteNamespace({ name: NAMESPACE }));
  await removeLicence(client);
  await deleteLeaderLease();
  await rm(work, { recursive: true, force: true });
  if (stress?.pid) process.kill(-stress.pid, "SIGKILL");
  await unlock();
}
