import { KubeConfig } from "@kubernetes/client-node";
import { OPERATOR_REPLICAS } from "../../constructs/navique-operator.js";
import { parseLeaderElect } from "../../lib/cli/operator-command.js";
import { KubeClient } from "../../lib/cluster/kube-client.js";
import { LeaderElector } from "../../lib/cluster/leader-election.js";

describe("--leader-elect", () => {
  it("is on unless turned off with false; anything else is named", () => {
    expect(parseLeaderElect(undefined)).toBe(true);
    expect(parseLeaderElect("true")).toBe(true);
    expect(parseLeaderElect("false")).toBe(false);
    expect(() => parseLeaderElect("no")).toThrow(
      "--leader-elect=no: expected true or false, e.g. --leader-elect=false to run a single operator without election",
    );
  });

  it("is run by two replicas in the chart: one leads, one waits", () => {
    expect(OPERATOR_REPLICAS).toBe(2);
  });
});

describe("LeaderElector", () => {
  // No request is made: the check is in the constructor.
  it("refuses a renew deadline not shorter than the lease, under which two leaders could act at once", () => {
    const config = new KubeConfig();
    config.loadFromOptions({
      clusters: [{ name: "unused", server: "https://127.0.0.1:1" }],
      users: [{ name: "unused" }],
      contexts: [{ name: "unused", cluster: "unused", user: "unused" }],
      currentContext: "unused",
    });
    const client = new KubeClient(config);
    expect(() => new LeaderElector({ client, leaseDurationMs: 10_000, renewDeadlineMs: 10_000 })).toThrow(
      "leader election: the renew deadline (10000 ms) must be shorter than the lease duration (10000 ms), or two leaders could act at once",
    );
  });
});
