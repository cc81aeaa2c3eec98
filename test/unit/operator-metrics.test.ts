import { OperatorMetrics } from "../../providers/operator/operator-metrics.js";

/** The sample lines of one metric in the text format, without its HELP and TYPE lines. */
function samples(text: string, name: string): string[] {
  return text.split("\n").filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `));
}

describe("OperatorMetrics", () => {
  // GIVEN the metrics of an operator serving two kinds and one capability
  // WHEN passes, installs, a lead and a queue depth are recorded
  // THEN the Prometheus text holds each metric by name, with its labels and the values recorded
  it("exports every metric by name and label, with the values recorded", async () => {
    const metrics = new OperatorMetrics({ kinds: ["PostgresCluster", "License"], capabilities: ["cloudnative-pg"] });
    metrics.reconciled("PostgresCluster", "success", 0.2);
    metrics.reconciled("PostgresCluster", "success", 0.02);
    metrics.reconciled("PostgresCluster", "requeue", 3);
    metrics.reconciled("PostgresCluster", "error", 40);
    metrics.reconciled("License", "success", 0.001);
    metrics.capabilityInstall("cloudnative-pg", "installed");
    metrics.capabilityInstall("cloudnative-pg", "failed");
    metrics.capabilityInstall("cloudnative-pg", "failed");
    metrics.leading(true);
    let depth = 3;
    metrics.watchQueue(() => depth);

    const text = await metrics.text();
    expect(samples(text, "navique_reconcile_total")).toEqual([
      'navique_reconcile_total{kind="PostgresCluster",result="success"} 2',
      'navique_reconcile_total{kind="PostgresCluster",result="error"} 1',
      'navique_reconcile_total{kind="PostgresCluster",result="requeue"} 1',
      'navique_reconcile_total{kind="License",result="success"} 1',
      'navique_reconcile_total{kind="License",result="error"} 0',
      'navique_reconcile_total{kind="License",result="requeue"} 0',
    ]);
    expect(text).toContain("# TYPE navique_reconcile_duration_seconds histogram");
    expect(samples(text, "navique_reconcile_duration_seconds_bucket")).toEqual(
      expect.arrayContaining([
        'navique_reconcile_duration_seconds_bucket{le="0.025",kind="PostgresCluster"} 1',
        'navique_reconcile_duration_seconds_bucket{le="0.25",kind="PostgresCluster"} 2',
        'navique_reconcile_duration_seconds_bucket{le="5",kind="PostgresCluster"} 3',
        'navique_reconcile_duration_seconds_bucket{le="30",kind="PostgresCluster"} 3',
        'navique_reconcile_duration_seconds_bucket{le="60",kind="PostgresCluster"} 4',
        'navique_reconcile_duration_seconds_bucket{le="+Inf",kind="PostgresCluster"} 4',
        'navique_reconcile_duration_seconds_bucket{le="0.005",kind="License"} 1',
      ]),
    );
    expect(samples(text, "navique_reconcile_duration_seconds_count")).toEqual([
      'navique_reconcile_duration_seconds_count{kind="PostgresCluster"} 4',
      'navique_reconcile_duration_seconds_count{kind="License"} 1',
    ]);
    expect(samples(text, "navique_reconcile_duration_seconds_sum")).toEqual([
      'navique_reconcile_duration_seconds_sum{kind="PostgresCluster"} 43.22',
      'navique_reconcile_duration_seconds_sum{kind="License"} 0.001',
    ]);
    expect(samples(text, "navique_capability_installs_total")).toEqual([
      'navique_capability_installs_total{capability="cloudnative-pg",result="installed"} 1',
      'navique_capability_installs_total{capability="cloudnative-pg",result="upgraded"} 0',
      'navique_capability_installs_total{capability="cloudnative-pg",result="restored"} 0',
      'navique_capability_installs_total{capability="cloudnative-pg",result="failed"} 2',
    ]);
    expect(samples(text, "navique_workqueue_depth")).toEqual(["navique_workqueue_depth 3"]);
    expect(samples(text, "navique_leader")).toEqual(["navique_leader 1"]);
    // prom-client's default process metrics, in the same registry.
    expect(text).toContain("# TYPE process_cpu_user_seconds_total counter");
    expect(text).toContain("# TYPE process_resident_memory_bytes gauge");
    expect(text).toContain("# TYPE nodejs_heap_size_used_bytes gauge");
    expect(metrics.contentType).toBe("text/plain; version=0.0.4; charset=utf-8");

    // The queue is read at each scrape; the lead given up shows at once.
    depth = 0;
    metrics.leading(false);
    const after = await metrics.text();
    expect(samples(after, "navique_workqueue_depth")).toEqual(["navique_workqueue_depth 0"]);
    expect(samples(after, "navique_leader")).toEqual(["navique_leader 0"]);
  });

  // GIVEN a new operator's metrics, nothing recorded yet
  // THEN every series of its kinds and capabilities is there at 0, and it does not lead
  it("exports every series at 0 from the start, not leading", async () => {
    const text = await new OperatorMetrics({ kinds: ["Stack"], capabilities: ["cert-manager"] }).text();
    expect(samples(text, "navique_reconcile_total")).toEqual([
      'navique_reconcile_total{kind="Stack",result="success"} 0',
      'navique_reconcile_total{kind="Stack",result="error"} 0',
      'navique_reconcile_total{kind="Stack",result="requeue"} 0',
    ]);
    expect(samples(text, "navique_reconcile_duration_seconds_count")).toEqual([
      'navique_reconcile_duration_seconds_count{kind="Stack"} 0',
    ]);
    expect(samples(text, "navique_capability_installs_total")).toEqual([
      'navique_capability_installs_total{capability="cert-manager",result="installed"} 0',
      'navique_capability_installs_total{capability="cert-manager",result="upgraded"} 0',
      'navique_capability_installs_total{capability="cert-manager",result="restored"} 0',
      'navique_capability_installs_total{capability="cert-manager",result="failed"} 0',
    ]);
    expect(samples(text, "navique_workqueue_depth")).toEqual(["navique_workqueue_depth 0"]);
    expect(samples(text, "navique_leader")).toEqual(["navique_leader 0"]);
  });

  // GIVEN two operators' metrics in one process (a test's)
  // THEN each counts its own: no registry is shared, and the second is not refused as a duplicate
  it("keeps two operators in one process apart", async () => {
    const first = new OperatorMetrics({ kinds: ["Stack"], capabilities: [] });
    const second = new OperatorMetrics({ kinds: ["Stack"], capabilities: [] });
    first.reconciled("Stack", "success", 0.1);
    expect(samples(await first.text(), "navique_reconcile_total")).toContain(
      'navique_reconcile_total{kind="Stack",result="success"} 1',
    );
    expect(samples(await second.text(), "navique_reconcile_total")).toContain(
      'navique_reconcile_total{kind="Stack",result="success"} 0',
    );
  });
});
