import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { V1MicroTime } from "@kubernetes/client-node";
import { SYSTEM_NAMESPACE } from "../../lib/api/group.js";
import {
  ensureSystemNamespace,
  type LeaseHolder,
  RENEW_EVERY_MS,
  withLeaseLock,
} from "../../lib/capabilities/lease-lock.js";
import { HOLDER_PROCESS_ANNOTATION, holderProcessGone } from "../../lib/cluster/holder-process.js";
import { orUndefined } from "../../lib/cluster/kube-client.js";
import { HOLDER_LEADERSHIP_ANNOTATION } from "../../lib/cluster/leader-election.js";
import { run } from "../../lib/cluster/process.js";
import { testClient } from "../support/capabilities.js";
import { eventually } from "../support/cluster.js";

// The install lock (docs/adr/0007-install-lock.md) on the real apiserver. Each test uses a lock name of
// its own, so suites running beside it (which lock capability-<name>) are never touched.
describe("withLeaseLock", () => {
  const client = testClient();
  const lockName = () => `test-lock-${randomBytes(3).toString("hex")}`;
  const names: string[] = [];

  beforeAll(async () => {
    await ensureSystemNamespace(client);
  });
  afterAll(async () => {
    for (const name of names)
      await orUndefined(client.coordination.deleteNamespacedLease({ name, namespace: SYSTEM_NAMESPACE }));
  });

  // GIVEN a Lease as a holder killed with -9 mid-install leaves it: held, renewed a moment ago, never again
  // WHEN another process wants the lock
  // THEN it says who holds it and until when, and takes the lock over once the lease has gone unrenewed for
  //      its duration — well within the 30 s the issue allows for a restarted operator to converge.
  it("takes over a dead holder's lease within the lease duration", async () => {
    const name = lockName();
    names.push(name);
    const now = new V1MicroTime();
    // The record's own duration is what a contender judges by: a short one here (the product's 15 s is
    // the SIGKILL test's below), so that the test waits 3 s, not 15.
    const deadLeaseSeconds = 3;
    await client.coordination.createNamespacedLease({
      namespace: SYSTEM_NAMESPACE,
      body: {
        metadata: { name, namespace: SYSTEM_NAMESPACE },
        spec: {
          holderIdentity: "dead-host-4242-0badf00d",
          leaseDurationSeconds: deadLeaseSeconds,
          acquireTime: now,
          renewTime: now,
        },
      },
    });
    const waits: LeaseHolder[] = [];
    const started = Date.now();
    const result = await withLeaseLock(
      client,
      name,
      async () => {
        const lease = await client.coordination.readNamespacedLease({ name, namespace: SYSTEM_NAMESPACE });
        return lease.spec?.holderIdentity;
      },
      { holder: "contender", onWait: (holder) => waits.push(holder) },
    );
    const waitedMs = Date.now() - started;
    expect(result).toBe("contender");
    expect(waits.map((holder) => holder.identity)).toEqual(["dead-host-4242-0badf00d"]);
    const until = waits[0]?.until.getTime() ?? 0;
    expect(until - started).toBeLessThanOrEqual(deadLeaseSeconds * 1000 + 1_000);
    // A behavioural bound from the issue (converge within 30 s), generous for a busy machine.
    expect(waitedMs).toBeLessThan(30_000);
    // Released when done.
    expect(await orUndefined(client.coordination.readNamespacedLease({ name, namespace: SYSTEM_NAMESPACE }))).toBe(
      undefined,
    );
  });

  // GIVEN a process holding the lock while its child command runs (the operator while helm installs)
  // WHEN both are killed with SIGKILL, leaving the lease held and nobody to release or renew it
  // THEN another process on the same machine sees from the lease that its holder's process has ended and
  //      takes the lock at once, without waiting out the lease.
  it("is taken at once after its holder, on this machine, and the holder's child were killed with -9", async () => {
    const name = lockName();
    names.push(name);
    const tsx = join(process.cwd(), "node_modules", ".bin", "tsx");
    const script = join(process.cwd(), "test", "fixtures", "lease-holder", "hold.ts");
    // Its own process group, so that one kill reaches the holder and its child, as kill -9 of a pod would.
    const holder = spawn(tsx, [script, process.env.NAVIQUE_TEST_KUBECONFIG ?? "", name], {
      detached: true,
      stdio: ["ignore", "pipe", "inherit"],
    });
    const exited = new Promise<void>((resolve) => holder.once("exit", () => resolve()));
    let heldBy = "";
    let annotations: Record<string, string> = {};
    try {
      await new Promise<void>((resolve, reject) => {
        holder.stdout?.on("data", (chunk: Buffer) => {
          if (chunk.toString().includes("holding")) resolve();
        });
        holder.once("exit", (code) => reject(new Error(`the holder exited (${code}) before taking the lock`)));
      });
      const held = await client.coordination.readNamespacedLease({ name, namespace: SYSTEM_NAMESPACE });
      heldBy = held.spec?.holderIdentity ?? "";
      expect(heldBy).not.toBe("");
      expect(heldBy).not.toBe("contender");
      annotations = held.metadata?.annotations ?? {};
      expect(Object.keys(annotations)).toContain(HOLDER_PROCESS_ANNOTATION);
    } finally {
      if (holder.pid) process.kill(-holder.pid, "SIGKILL");
    }
    await exited;
    // tsx exits first; its child, the holder, a moment later: a kill is delivered, not awaited.
    await eventually("the holder's process to end", async () => (holderProcessGone(annotations) ? true : undefined));

    const waits: LeaseHolder[] = [];
    const takeOvers: string[] = [];
    const result = await withLeaseLock(
      client,
      name,
      async () =>
        (await client.coordination.readNamespacedLease({ name, namespace: SYSTEM_NAMESPACE })).spec?.holderIdentity,
      {
        holder: "contender",
        onWait: (other) => waits.push(other),
        onTakeOver: (other, why) => takeOvers.push(`${other}: ${why}`),
      },
    );
    expect(result).toBe("contender");
    expect(takeOvers).toEqual([`${heldBy}: its process, on this machine, has ended`]);
    expect(waits).toEqual([]);
  });

  // GIVEN a lock taken by a leader (an operator replica), which then died: another replica leads now
  // WHEN a process anywhere wants the lock
  // THEN it takes it at once: a leader that lost the lead has exited (its renew deadline is shorter than
  //      the lease), so the lock's holder is dead. A holder that still leads is waited for.
  it("is taken at once from a holder that led and no longer does, and not from one that still leads", async () => {
    const leaderLease = lockName();
    const name = lockName();
    const stillLeading = lockName();
    names.push(leaderLease, name, stillLeading);
    const now = new V1MicroTime();
    await client.coordination.createNamespacedLease({
      namespace: SYSTEM_NAMESPACE,
      body: {
        metadata: { name: leaderLease, namespace: SYSTEM_NAMESPACE },
        spec: { holderIdentity: "replica-b_2", leaseDurationSeconds: 15, acquireTime: now, renewTime: now },
      },
    });
    const heldAsLeader = async (lock: string, identity: string) =>
      client.coordination.createNamespacedLease({
        namespace: SYSTEM_NAMESPACE,
        body: {
          metadata: {
            name: lock,
            namespace: SYSTEM_NAMESPACE,
            annotations: {
              [HOLDER_LEADERSHIP_ANNOTATION]: JSON.stringify({
                namespace: SYSTEM_NAMESPACE,
                name: leaderLease,
                identity,
              }),
            },
          },
          // A short lease, so that the live leader's lock is waited out in 3 s rather than 15.
          spec: { holderIdentity: `${identity}-pid-7`, leaseDurationSeconds: 3, acquireTime: now, renewTime: now },
        },
      });
    await heldAsLeader(name, "replica-a_1");
    await heldAsLeader(stillLeading, "replica-b_2");

    const takeOvers: string[] = [];
    const waits: string[] = [];
    const options = {
      holder: "contender",
      onWait: (other: LeaseHolder) => waits.push(other.identity),
      onTakeOver: (other: string, why: string) => takeOvers.push(`${other}: ${why}`),
    };
    await withLeaseLock(client, name, async () => undefined, options);
    expect(takeOvers).toEqual([
      `replica-a_1-pid-7: it led as replica-a_1 and the leader Lease ${SYSTEM_NAMESPACE}/${leaderLease} is now held by replica-b_2`,
    ]);
    expect(waits).toEqual([]);

    await withLeaseLock(client, stillLeading, async () => undefined, options);
    expect(takeOvers).toHaveLength(1);
    expect(waits).toEqual(["replica-b_2-pid-7"]);
  });

  // GIVEN a holder that is alive and renewing while its work — a child process, as a helm call is —
  //       outlasts the lease duration
  // WHEN a second process wants the lock meanwhile
  // THEN the second one waits until the first is done: renewals keep the lease from looking expired.
  it("is kept past its lease duration by a live holder that renews it", async () => {
    const name = lockName();
    names.push(name);
    const events: string[] = [];
    // A short lease of the holder's own (the record carries its duration): the rule is the same as with
    // the product's 15 s, the test waits a fifth of it.
    const lease = { leaseSeconds: 3, renewEveryMs: 1_000 };
    const holdMs = lease.leaseSeconds * 1000 + 2 * lease.renewEveryMs;
    const first = withLeaseLock(
      client,
      name,
      async () => {
        events.push("first in");
        await run("sleep", [String(holdMs / 1000)]);
        events.push("first out");
      },
      { holder: "first", ...lease },
    );
    await eventually("the first holder to hold the lock", async () => (events.includes("first in") ? true : undefined));
    const second = withLeaseLock(
      client,
      name,
      async () => {
        events.push("second in");
      },
      { holder: "second", ...lease },
    );
    await Promise.all([first, second]);
    expect(events).toEqual(["first in", "first out", "second in"]);
  });

  // GIVEN two callers in one process, as two reconciles of the operator's work queue needing the same
  //       capability at once: the same holder identity, for which the Lease alone would not exclude them
  // WHEN both want the lock
  // THEN the second runs only once the first is done; another lock's caller is not held back meanwhile.
  it("queues two callers of one process with the same holder, one after the other", async () => {
    const name = lockName();
    const other = lockName();
    names.push(name, other);
    const events: string[] = [];
    let finishFirst: () => void = () => {};
    const first = withLeaseLock(
      client,
      name,
      async () => {
        events.push("first in");
        await new Promise<void>((resolve) => (finishFirst = resolve));
        events.push("first out");
      },
      { holder: "one-process" },
    );
    await eventually("the first caller to hold the lock", async () => (events.includes("first in") ? true : undefined));
    const second = withLeaseLock(client, name, async () => void events.push("second in"), { holder: "one-process" });
    await withLeaseLock(client, other, async () => void events.push("other lock"), { holder: "one-process" });
    expect(events).toEqual(["first in", "other lock"]);
    finishFirst();
    await Promise.all([first, second]);
    expect(events).toEqual(["first in", "other lock", "first out", "second in"]);
  });

  // GIVEN a holder whose lease is taken from it (deleted here, as by an administrator)
  // WHEN its renewal timer fires
  // THEN the failure is reported and the holder's work goes on: a renewal never crashes the process.
  it("reports a failed renewal without failing the holder's work", async () => {
    const name = lockName();
    names.push(name);
    const failures: string[] = [];
    const result = await withLeaseLock(
      client,
      name,
      async () => {
        await client.coordination.deleteNamespacedLease({ name, namespace: SYSTEM_NAMESPACE });
        await eventually("a renewal to fail", async () => (failures.length > 0 ? true : undefined), {
          timeoutMs: RENEW_EVERY_MS * 4,
        });
        return "done";
      },
      {
        holder: "robbed",
        onRenewFailed: (error) => failures.push(error instanceof Error ? error.message : String(error)),
      },
    );
    expect(result).toBe("done");
    expect(failures[0]).toBe(`the lease ${SYSTEM_NAMESPACE}/${name} is no longer held by robbed (held by nobody)`);
  });
});
