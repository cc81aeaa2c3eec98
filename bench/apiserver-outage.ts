/**
 * The apiserver away for 30 s, as two `navique operator` processes run it under the chart (leader election
 * on, each in a pid namespace of its own), beside `stress-ng --cpu 2` (two busy cores; apt-get install
 * stress-ng): both reach the apiserver through a relay that the bench takes down (test/support/api-outage.ts),
 * so only they are cut off. Each round: a PostgresCluster created while the apiserver is away; the time
 * from the apiserver's return to that resource being Ready, and whether either process exited. Prints each
 * round and the median / min / max; asserts nothing. Usage:
 *
 *   npx tsx bench/apiserver-outage.ts --kubeconfig PATH [--rounds 5] [--outage 30] [--no-stress]
 *
 * The leader Lease is cluster-wide: the bench takes the plane's capability lock, as the test suites do.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { SYSTEM_NAMESPACE } from "../lib/api/group.js";
import { ensureNaviqueCrds } from "../lib/apply/navique-crds.js";
import { ensureSystemNamespace } from "../lib/capabilities/lease-lock.js";
import { KubeClient, orUndefined, statusOf } from "../lib/cluster/kube-client.js";
import { LEADER_LEASE_NAME } from "../lib/cluster/leader-election.js";
import { acquireDirectoryLock } from "../lib/local-plane/lock.js";
import { apiOutageRelay } from "../test/support/api-outage.js";
import { emptyNamespace } from "../test/support/namespace-content.js";
import { startOperatorProcess, stopOperatorProcess } from "../test/support/operator-process.js";
import {
  createConnectionSecret,
  createPostgresCluster,
  deletePostgresCluster,
  readPostgresCluster,
} from "../test/support/postgres.js";
import { outputContains } from "../test/support/two-operators.js";

const { values: flags } = parseArgs({
  options: {
    kubeconfig: { type: "string" },
    rounds: { type: "string", default: "5" },
    outage: { type: "string", default: "30" },
    "no-stress": { type: "boolean", default: false },
  },
});
const kubeconfig = flags.kubeconfig ?? process.env.KUBECONFIG;
if (!kubeconfig)
  throw new Error("--kubeconfig PATH: the plane to run on, e.g. ~/.cache/navique-ai-core/planes/local/kubeconfig");
if (!flags["no-stress"] && spawnSync("stress-ng", ["--version"]).error)
  throw new Error("stress-ng is not on PATH: install it (apt-get install stress-ng) or pass --no-stress");
process.env.NAVIQUE_TEST_KUBECONFIG = kubeconfig;
const ROUNDS = Number(flags.rounds);
const OUTAGE_MS = Number(flags.outage) * 1000;
const NAMESPACE = "bench-outage";
const EXTERNAL = { mode: "external" as const, external: { connectionSecretRef: { name: "pg" } } };
/** Issue 30's bound: what changed during the outage reconciled within 5 s of the apiserver's return. */
const GOAL_MS = 5_000;

const plane = process.env.NAVIQUE_TEST_PLANE;
const unlock = await acquireDirectoryLock(
  join(
    tmpdir(),
    plane && plane !== "local" ? `navique-test-capabilities-${plane}.lock` : "navique-test-capabilities.lock",
  ),
  (line) => process.stderr.write(`${line}\n`),
);
const client = KubeClient.fromFile(kubeconfig);
const relay = await apiOutageRelay(kubeconfig);
const deleteLeaderLease = () =>
  orUndefined(client.coordination.deleteNamespacedLease({ name: LEADER_LEASE_NAME, namespace: SYSTEM_NAMESPACE }));
const stress: ChildProcess | undefined = flags["no-stress"]
  ? undefined
  : spawn("stress-ng", ["--cpu", "2", "--quiet"], { stdio: "ignore", detached: true });
const operators: ReturnType<typeof startOperatorProcess>[] = [];
try {
  await ensureNaviqueCrds(client);
  await ensureSystemNamespace(client);
  await deleteLeaderLease();
  await client.core.createNamespace({ body: { metadata: { name: NAMESPACE } } }).catch((error: unknown) => {
    if (statusOf(error) !== 409) throw error;
  });
  await createConnectionSecret(client, NAMESPACE).catch((error: unknown) => {
    if (statusOf(error) !== 409) throw error;
  });
  for (let i = 0; i < 2; i++) {
    operators.push(startOperatorProcess({ leaderElect: true, ownPidNamespace: true, kubeconfig: relay.kubeconfig }));
  }
  const [first] = operators;
  if (first) await outputContains(first.process, first.output, "[operator] started", 60_000).catch(() => undefined);
  const times: number[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    await relay.down();
    const downAt = Date.now();
    const name = `during-outage-${round}`;
    await createPostgresCluster(client, NAMESPACE, name, EXTERNAL);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, downAt + OUTAGE_MS - Date.now())));
    await relay.up();
    const back = Date.now();
    for (;;) {
      const resource = await readPostgresCluster(client, NAMESPACE, name);
      if (resource?.status?.conditions.find((c) => c.type === "Ready")?.status === "True") break;
      if (Date.now() - back > 120_000) {
        for (const [i, operator] of operators.entries())
          process.stderr.write(
            `--- operator ${i + 1}, its output's end:\n${operator
              .output()
              .split("\n")
              .filter((line) => !line.includes("trying to acquire"))
              .slice(-40)
              .join("\n")}\n`,
          );
        throw new Error(`${name} not Ready 120 s after the apiserver's return`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    times.push(Date.now() - back);
    const exited = operators.filter((o) => o.process.exitCode !== null || o.process.signalCode !== null).length;
    process.stdout.write(
      `round ${round}: apiserver away ${OUTAGE_MS / 1000} s; the resource created meanwhile Ready ${times.at(-1)} ms after its return; operator processes exited: ${exited}\n`,
    );
    // Gone before the next round (Community admits two PostgresClusters), finalized by the leader.
    await deletePostgresCluster(client, NAMESPACE, name);
    while (await readPostgresCluster(client, NAMESPACE, name)) await new Promise((resolve) => setTimeout(resolve, 200));
    await new Promise((resolve) => setTimeout(resolve, 2_000));
  }
  const sorted = [...times].sort((x, y) => x - y);
  process.stdout.write(
    `apiserver outage of ${OUTAGE_MS / 1000} s, ${ROUNDS} rounds, two operators with election${stress ? ", beside stress-ng --cpu 2" : ""}: median ${sorted[Math.floor(sorted.length / 2)]} ms, min ${sorted[0]} ms, max ${sorted.at(-1)} ms after the return (goal: within ${GOAL_MS.toLocaleString("en")} ms, no process exiting)\n`,
  );
  await emptyNamespace(client, NAMESPACE);
} finally {
  for (const operator of operators) await stopOperatorProcess(operator.process).catch(() => undefined);
  if (stress?.pid) process.kill(-stress.pid, "SIGKILL");
  await relay.close();
  await orUndefined(client.core.deleteNamespace({ name: NAMESPACE }));
  await deleteLeaderLease();
  await unlock();
}
