import type { ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SYSTEM_NAMESPACE } from "../../lib/api/group.js";
import { ensureNaviqueCrds } from "../../lib/apply/navique-crds.js";
import { ensureSystemNamespace } from "../../lib/capabilities/lease-lock.js";
import { type KubeClient, orUndefined } from "../../lib/cluster/kube-client.js";
import { LEADER_LEASE_NAME } from "../../lib/cluster/leader-election.js";
import { type ApiOutage, apiOutageRelay } from "../support/api-outage.js";
import { CAPABILITY_SUITE_SETUP_MS, lockCapabilities, testClient } from "../support/capabilities.js";
import { condition, createTestNamespace, eventually } from "../support/cluster.js";
import { applyLicence, removeLicence } from "../support/licence.js";
import { discardNamespace } from "../support/namespace-content.js";
import { httpGet, operatorEndpoints, sampleValue } from "../support/operator-endpoints.js";
import { startOperatorProcess, stopOperatorProcess } from "../support/operator-process.js";
import { createConnectionSecret, createPostgresCluster, readPostgresCluster } from "../support/postgres.js";
import { outputContains, vendorKey } from "../support/two-operators.js";

const EXTERNAL = { mode: "external" as const, external: { connectionSecretRef: { name: "pg" } } };
const SUCCESS = 'navique_reconcile_total{kind="PostgresCluster",result="success"}';

// `navique operator` as the chart runs it, probed and scraped over HTTP: /healthz, /readyz and /metrics on
// free loopback ports (docs/operator.md). Two operators with election on share the leader Lease, and the
// License is cluster-wide: under the capability lock, as test/e2e/leader-election.test.ts.
describe("the operator's health, readiness and metrics endpoints", () => {
  let client: KubeClient;
  let unlock: (() => Promise<void>) | undefined;
  let work = "";
  let ns = "";
  let trust: readonly string[] = [];
  let relay: ApiOutage | undefined;
  const operators: { readonly process: ChildProcess; readonly output: () => string }[] = [];

  const deleteLeaderLease = () =>
    orUndefined(client.coordination.deleteNamespacedLease({ name: LEADER_LEASE_NAME, namespace: SYSTEM_NAMESPACE }));

  beforeAll(async () => {
    unlock = await lockCapabilities();
    client = testClient();
    await ensureNaviqueCrds(client);
    await ensureSystemNamespace(client);
    await deleteLeaderLease();
    work = await mkdtemp(join(tmpdir(), "navique-endpoints-"));
    // A licence of our own with room for the PostgresCluster whatever other suites hold of the Community seats.
    const key = await vendorKey(work, "vendor-endpoints");
    trust = key.trustArgs;
    await applyLicence(client, key.licence({ PostgresCluster: 10 }));
    ns = (await createTestNamespace("endpoints")).name;
    await createConnectionSecret(client, ns);
  }, CAPABILITY_SUITE_SETUP_MS);

  afterAll(async () => {
    try {
      if (ns) await discardNamespace(client, ns);
    } finally {
      for (const operator of operators) await stopOperatorProcess(operator.process).catch(() => undefined);
      await relay?.close();
      if (client) {
        await removeLicence(client);
        await deleteLeaderLease();
      }
      if (work) await rm(work, { recursive: true, force: true });
      await unlock?.();
    }
  });

  // GIVEN an operator whose apiserver cannot be reached yet (a relay the test holds down)
  // WHEN the apiserver comes back, then goes away again, then comes back
  // THEN /healthz answers 200 throughout; /readyz answers 503 with the reason until every watch has listed,
  //      200 after, 503 naming a watch that is restoring while the apiserver is away, and 200 once it relisted
  it("is live at once, ready once its watches have listed, and unready while one restores", async () => {
    relay = await apiOutageRelay(process.env.NAVIQUE_TEST_KUBECONFIG ?? "");
    const outage = relay;
    await outage.down();
    const operator = startOperatorProcess({
      kubeconfig: outage.kubeconfig,
      extraArgs: [...trust, "--watch-namespaces", ns],
    });
    operators.push(operator);
    const endpoints = await operatorEndpoints(operator.process, operator.output);

    // Nothing can list while the apiserver is away: its CRDs are being applied, no watch has started.
    expect(await httpGet(endpoints.healthz)).toEqual({ status: 200, body: "ok" });
    const before = await httpGet(endpoints.readyz);
    expect(before.status).toBe(503);
    expect(before.body).toMatch(/its watches have not started yet$/);

    await outage.up();
    await eventually("/readyz to answer 200 once every watch has listed", async () => {
      const ready = await httpGet(endpoints.readyz);
      return ready.status === 200 ? ready : undefined;
    }).then((ready) => expect(ready.body).toBe("ok"));
    await outputContains(operator.process, operator.output, "[operator] started");

    await outage.down();
    const restoring = await eventually("/readyz to answer 503 while a watch restores", async () => {
      const answer = await httpGet(endpoints.readyz);
      return answer.status === 503 ? answer : undefined;
    });
    process.stdout.write(
      `/readyz before the first list: 503 ${before.body}\n/readyz while the apiserver is away: 503 ${restoring.body}\n`,
    );
    expect(restoring.body).toMatch(
      /^watch \S+ failed \d+ s ago \(.+\) and is restoring: started again every 1 s until it lists(; \d+ other watch\(es\) not synced either)?$/,
    );
    // Live all the while: an apiserver away is not cured by restarting the operator.
    expect(await httpGet(endpoints.healthz)).toEqual({ status: 200, body: "ok" });

    await outage.up();
    await eventually("/readyz to answer 200 again once every watch has relisted", async () => {
      const ready = await httpGet(endpoints.readyz);
      return ready.status === 200 ? ready : undefined;
    });
    expect(await stopOperatorProcess(operator.process)).toBe(0);
  }, 240_000);

  // GIVEN two operators with election on: a leader and a standby
  // WHEN a PostgresCluster is created and the leader reconciles it
  // THEN both are ready (the standby's caches are warm), navique_leader is 1 on the leader and 0 on the
  //      standby, and the leader's navique_reconcile_total for PostgresCluster with result "success" has
  //      grown while the standby's stays 0, the resource waiting in its queue
  it("counts the leader's passes, and says which process leads", async () => {
    const leader = startOperatorProcess({ leaderElect: true, ownPidNamespace: true, extraArgs: trust });
    operators.push(leader);
    await outputContains(leader.process, leader.output, "acquired the leader lease");
    await outputContains(leader.process, leader.output, "[operator] started");
    const standby = startOperatorProcess({ leaderElect: true, ownPidNamespace: true, extraArgs: trust });
    operators.push(standby);
    await outputContains(standby.process, standby.output, "waits as a standby");
    const leading = await operatorEndpoints(leader.process, leader.output);
    const waiting = await operatorEndpoints(standby.process, standby.output);

    for (const [which, endpoints] of [
      ["the leader", leading],
      ["the standby", waiting],
    ] as const) {
      await eventually(`${which}'s /readyz to answer 200`, async () => {
        const ready = await httpGet(endpoints.readyz);
        return ready.status === 200 ? ready : undefined;
      });
      expect(await httpGet(endpoints.healthz)).toEqual({ status: 200, body: "ok" });
    }
    const leaderBefore = (await httpGet(leading.metrics)).body;
    expect(sampleValue(leaderBefore, "navique_leader")).toBe(1);
    expect(sampleValue((await httpGet(waiting.metrics)).body, "navique_leader")).toBe(0);
    const successBefore = sampleValue(leaderBefore, SUCCESS);
    expect(successBefore).toBeGreaterThanOrEqual(0);

    await createPostgresCluster(client, ns, "scraped", EXTERNAL);
    await eventually("the PostgresCluster to be Ready", async () => {
      const resource = await readPostgresCluster(client, ns, "scraped");
      return condition(resource, "Ready")?.status === "True" ? resource : undefined;
    });
    const after = await eventually("the leader to count the pass that made it Ready", async () => {
      const text = (await httpGet(leading.metrics)).body;
      return (sampleValue(text, SUCCESS) ?? 0) > (successBefore ?? 0) ? text : undefined;
    });
    expect(sampleValue(after, 'navique_reconcile_duration_seconds_count{kind="PostgresCluster"}')).toBeGreaterThan(0);
    expect(sampleValue(after, "navique_leader")).toBe(1);
    expect(after).toContain("# TYPE process_cpu_user_seconds_total counter");

    // The standby reconciled nothing; the resource's key waits in its queue for when it leads.
    const standbyText = (await httpGet(waiting.metrics)).body;
    for (const result of ["success", "error", "requeue"]) {
      expect(sampleValue(standbyText, `navique_reconcile_total{kind="PostgresCluster",result="${result}"}`)).toBe(0);
    }
    expect(sampleValue(standbyText, "navique_workqueue_depth")).toBeGreaterThan(0);
    expect(sampleValue(standbyText, "navique_leader")).toBe(0);
  }, 240_000);
});
