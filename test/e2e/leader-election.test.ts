import type { ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SYSTEM_NAMESPACE } from "../../lib/api/group.js";
import { ensureNaviqueCrds } from "../../lib/apply/navique-crds.js";
import { ensureSystemNamespace } from "../../lib/capabilities/lease-lock.js";
import { type KubeClient, orUndefined } from "../../lib/cluster/kube-client.js";
import { LEADER_LEASE_DURATION_MS, LEADER_LEASE_NAME } from "../../lib/cluster/leader-election.js";
import { apiOutageRelay } from "../support/api-outage.js";
import { CAPABILITY_SUITE_SETUP_MS, lockCapabilities, testClient } from "../support/capabilities.js";
import { condition, createTestNamespace, eventually, testKubeConfig } from "../support/cluster.js";
import { applyLicence, removeLicence } from "../support/licence.js";
import { discardNamespace } from "../support/namespace-content.js";
import { startOperatorProcess, stopOperatorProcess } from "../support/operator-process.js";
import { createConnectionSecret, createPostgresCluster, readPostgresCluster } from "../support/postgres.js";
import { countLicenceWrites, killGroup, outputContains, vendorKey } from "../support/two-operators.js";

const EXTERNAL = { mode: "external" as const, external: { connectionSecretRef: { name: "pg" } } };
const ACQUIRED = "acquired the leader lease";
const STANDBY = "waits as a standby";

// Two `navique operator` processes, as two Pods of the chart's Deployment, that trust different licence
// keys — a rolling update that adds one. Without election they judged the License differently and rewrote
// it 1,204 times in 30 s, with 602 Events. With it, one leads, the other waits on the leader Lease
// (docs/adr/0027-leader-election.md). The Lease and the License are cluster-wide: under the capability lock.
describe("leader election between two operator processes", () => {
  let client: KubeClient;
  let unlock: () => Promise<void>;
  let work = "";
  let ns = "";
  const operators: { readonly process: ChildProcess; readonly output: () => string }[] = [];
  let trustA: readonly string[] = [];
  let trustB: readonly string[] = [];

  const deleteLeaderLease = () =>
    orUndefined(client.coordination.deleteNamespacedLease({ name: LEADER_LEASE_NAME, namespace: SYSTEM_NAMESPACE }));

  // Each in a pid namespace of its own, as two Pods: a standby cannot tell from the leader's pid that it
  // died (the same-machine shortcut, docs/adr/0027-leader-election.md), and waits out its lease.
  const start = (trust: readonly string[]) => {
    const operator = startOperatorProcess({ leaderElect: true, extraArgs: trust, ownPidNamespace: true });
    operators.push(operator);
    return operator;
  };

  beforeAll(async () => {
    unlock = await lockCapabilities();
    client = testClient();
    await ensureNaviqueCrds(client);
    await ensureSystemNamespace(client);
    await deleteLeaderLease();
    work = await mkdtemp(join(tmpdir(), "navique-leader-"));
    const a = await vendorKey(work, "vendor-a");
    const b = await vendorKey(work, "vendor-b");
    trustA = a.trustArgs;
    trustB = b.trustArgs;
    // Signed by A: the operator trusting A finds it Licensed, the one trusting B finds an unknown key.
    await applyLicence(client, a.licence({ PostgresCluster: 10 }));
    ns = (await createTestNamespace("leader")).name;
    await createConnectionSecret(client, ns);
  }, CAPABILITY_SUITE_SETUP_MS);

  afterAll(async () => {
    try {
      // The leader still running finalizes the namespace's PostgresCluster as the namespace goes.
      if (ns) await discardNamespace(client, ns);
    } finally {
      for (const operator of operators) await stopOperatorProcess(operator.process).catch(() => undefined);
      if (client) {
        await removeLicence(client);
        await deleteLeaderLease();
      }
      if (work) await rm(work, { recursive: true, force: true });
      await unlock?.();
    }
  });

  // GIVEN two operators that disagree on the License, the second started while the first leads
  // WHEN both run for 20 s (ten resyncs of 2 s)
  // THEN the License and its Events are written a bounded number of times: only the leader reconciles.
  it("lets only the leader write: the License is not rewritten in a loop", async () => {
    const first = start(trustA);
    await outputContains(first.process, first.output, ACQUIRED);
    await outputContains(first.process, first.output, "[operator] started");
    const second = start(trustB);
    await outputContains(second.process, second.output, STANDBY);

    const counted = await countLicenceWrites(testKubeConfig(), 20_000);
    process.stdout.write(
      `two operators trusting different keys, 20 s: ${counted.writes} License writes, ${counted.events} Events about it\n`,
    );
    // The leader's first pass may land in the window; a loop writes hundreds.
    expect(counted.writes).toBeLessThanOrEqual(2);
    expect(counted.events).toBeLessThanOrEqual(1);
    expect(second.output()).not.toContain("[operator] started");
  }, 120_000);

  // GIVEN the leader and a standby
  // WHEN the leader's process group is killed with -9 (its Lease left held, never released)
  // THEN the standby takes the Lease once it has gone unrenewed for its duration, starts, and reconciles a
  //      resource created after the death: within 20 s of it.
  it("takes over within 20 s of the leader's kill -9 and reconciles a new resource", async () => {
    const [first, second] = operators;
    if (!first || !second) throw new Error("the first test starts the two operators");
    await killGroup(first.process);
    const died = Date.now();
    await createPostgresCluster(client, ns, "after-failover", EXTERNAL);
    await eventually(
      "the PostgresCluster created after the leader's death to be Ready",
      async () => {
        const resource = await readPostgresCluster(client, ns, "after-failover");
        return condition(resource, "Ready")?.status === "True" ? resource : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 100 },
    );
    const failoverMs = Date.now() - died;
    process.stdout.write(`failover: a resource created at the leader's kill -9 Ready ${failoverMs} ms later\n`);
    expect(second.output()).toContain(ACQUIRED);
    expect(failoverMs).toBeLessThan(20_000);
  }, 120_000);

  // GIVEN a leader and a standby
  // WHEN the leader is stopped with SIGTERM, as a Pod is deleted
  // THEN it releases the Lease, and the standby takes over at its next retry, not a lease duration later.
  it("releases the Lease on SIGTERM, and a standby takes over at once", async () => {
    const leader = operators[1];
    if (!leader) throw new Error("the second test leaves the second operator leading");
    const standby = start(trustA);
    await outputContains(standby.process, standby.output, STANDBY);
    const code = await stopOperatorProcess(leader.process);
    const stopped = Date.now();
    expect(code).toBe(0);
    expect(leader.output()).toContain(`[operator] released the leader lease ${SYSTEM_NAMESPACE}/${LEADER_LEASE_NAME}`);
    await outputContains(standby.process, standby.output, ACQUIRED, LEADER_LEASE_DURATION_MS);
    const tookOverMs = Date.now() - stopped;
    process.stdout.write(`after a graceful stop, the standby led ${tookOverMs} ms later\n`);
    // The retry period is 2 s: a standby that waited out the lease would take 15 s.
    expect(tookOverMs).toBeLessThan(LEADER_LEASE_DURATION_MS / 2);
  }, 120_000);

  // GIVEN a leader whose every connection to the apiserver goes through a relay (only it is cut off)
  // WHEN the relay is down for 30 s — three renew deadlines — and a resource is created meanwhile
  // THEN the leader stands by without exiting, writes nothing while it does not lead, leads again once
  //      the apiserver is back, and reconciles what changed during the outage.
  it("rides out a 30 s apiserver outage without exiting, and reconciles what changed once it is back", async () => {
    for (const operator of operators) await stopOperatorProcess(operator.process).catch(() => undefined);
    const relay = await apiOutageRelay(process.env.NAVIQUE_TEST_KUBECONFIG ?? "");
    try {
      const leader = startOperatorProcess({
        leaderElect: true,
        extraArgs: trustA,
        ownPidNamespace: true,
        kubeconfig: relay.kubeconfig,
      });
      operators.push(leader);
      await outputContains(leader.process, leader.output, "[operator] started");
      await relay.down();
      const downAt = Date.now();
      await createPostgresCluster(client, ns, "during-outage", EXTERNAL);
      await outputContains(leader.process, leader.output, "lost the leadership", 30_000);
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, downAt + 30_000 - Date.now())));
      expect(leader.process.exitCode).toBeNull();
      expect(leader.process.signalCode).toBeNull();
      // Nothing of it reached the apiserver: the resource created meanwhile has no status yet.
      expect((await readPostgresCluster(client, ns, "during-outage"))?.status).toBeUndefined();

      await relay.up();
      const back = Date.now();
      await eventually(
        "the PostgresCluster created during the outage to be Ready",
        async () => {
          const resource = await readPostgresCluster(client, ns, "during-outage");
          return condition(resource, "Ready")?.status === "True" ? resource : undefined;
        },
        { timeoutMs: 60_000, intervalMs: 100 },
      );
      process.stdout.write(
        `after a 30 s outage, the change made during it reconciled ${Date.now() - back} ms after the apiserver's return\n`,
      );
      expect(leader.process.exitCode).toBeNull();
      expect(leader.output()).toMatch(/lost the leadership \(no renewal of the leader lease .* succeeded for \d+ ms/);
      expect(leader.output()).toContain("standing by to lead again");
    } finally {
      // Its Lease released, then a leader reaching the apiserver directly: it finalizes what afterAll deletes.
      for (const operator of operators) await stopOperatorProcess(operator.process).catch(() => undefined);
      await relay.close();
      const last = start(trustA);
      await outputContains(last.process, last.output, "[operator] started", 60_000);
    }
  }, 240_000);
});
