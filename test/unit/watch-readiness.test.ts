import { ApiException } from "@kubernetes/client-node";
import { WatchReadiness } from "../../providers/operator/watch-readiness.js";

describe("WatchReadiness", () => {
  let now = 0;
  const readiness = () => new WatchReadiness(1_000, () => now);

  beforeEach(() => {
    now = 1_000_000;
  });

  it("is not ready before any watch starts", () => {
    expect(readiness().readiness()).toEqual({ ready: false, reason: "its watches have not started yet" });
  });

  // GIVEN three watches started
  // THEN it is ready only once each has listed, and says how many have not and which
  it("is ready once every watch has listed", () => {
    const watches = readiness();
    const a = watches.track("/apis/core.navique.com/v1alpha1/stacks");
    const b = watches.track("/api/v1/secrets");
    const c = watches.track("/api/v1/secrets");
    a.listed();
    expect(watches.readiness()).toEqual({
      ready: false,
      reason: "2 of 3 watches have not listed yet (/api/v1/secrets, …)",
    });
    b.listed();
    expect(watches.readiness()).toEqual({
      ready: false,
      reason: "1 of 3 watches have not listed yet (/api/v1/secrets)",
    });
    c.listed();
    expect(watches.readiness()).toEqual({ ready: true });
  });

  // GIVEN every watch listed
  // WHEN one fails (an apiserver away), and fails again on each restart
  // THEN it is not ready, naming the watch, since when (its first failure) and why, until it has listed again
  it("is not ready while a failed watch restores, until it lists again", () => {
    const watches = readiness();
    const a = watches.track("/apis/apps/v1/namespaces/cnpg-system/deployments");
    const b = watches.track("/api/v1/secrets");
    a.listed();
    b.listed();
    a.failed(new Error("connect ECONNREFUSED 127.0.0.1:16443"));
    now += 5_000;
    a.failed(new Error("connect ECONNREFUSED 127.0.0.1:16443 again"));
    now += 2_000;
    expect(watches.readiness()).toEqual({
      ready: false,
      reason:
        "watch /apis/apps/v1/namespaces/cnpg-system/deployments failed 7 s ago (connect ECONNREFUSED 127.0.0.1:16443) and is restoring: started again every 1 s until it lists",
    });
    b.failed(new Error("socket hang up"));
    expect(watches.readiness()).toMatchObject({
      ready: false,
      reason: expect.stringMatching(
        /^watch \/apis\/apps\/v1\/.* failed 7 s ago .*; 1 other watch\(es\) not synced either$/,
      ),
    });
    a.listed();
    b.listed();
    expect(watches.readiness()).toEqual({ ready: true });
  });

  it("says a watch that never listed could not list", () => {
    const watches = readiness();
    watches.track("/api/v1/secrets").failed(new Error("HTTP-Code: 403\nMessage: Forbidden"));
    expect(watches.readiness()).toEqual({
      ready: false,
      reason:
        "watch /api/v1/secrets could not list 0 s ago (HTTP-Code: 403 Message: Forbidden) and is restoring: started again every 1 s until it lists",
    });
  });

  // GIVEN a watch of a kind the apiserver does not serve (a capability's CRD not installed yet)
  // THEN it counts as synced: there is nothing of it to miss
  it("counts a watch of a kind not served (404) as synced", () => {
    const watches = readiness();
    watches.track("/apis/postgresql.cnpg.io/v1/clusters").failed(new ApiException(404, "Not Found", "", {}));
    expect(watches.readiness()).toEqual({ ready: true });
  });
});
