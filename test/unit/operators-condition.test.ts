import type { CapabilityDecision } from "../../lib/capabilities/provenance.js";
import { OPERATOR_UNAVAILABLE } from "../../lib/engine/capabilities.js";
import { REDIS_INSTANCE_MODULE } from "../../lib/kinds/redis-instance/module.js";
import { operatorKindPlans, ownedCapability } from "../support/plans.js";

const {
  resource: redis,
  view,
  plan,
} = operatorKindPlans(
  REDIS_INSTANCE_MODULE,
  { name: "cache", namespace: "apps" },
  { capability: "redis-operator", namespace: "ot-operators" },
);

const CONTROLLER = "Deployment ot-operators/redis-operator";
const SCALED = `${CONTROLLER} has no available replica (scaled to 0)`;

/** The stored status of a RedisInstance that relied on the redis-operator, its OperatorsReady as given. */
function relied(
  operators: { status: "True" | "False"; reason: string; message: string },
  provenance: "owned" | "adopted" = "owned",
) {
  return {
    conditions: [
      { type: "Ready", ...operators },
      { type: "OperatorsReady", ...operators },
    ],
    capabilities: [{ name: "redis-operator", provenance, evidence: "release ot-operators/redis-operator" }],
  };
}

const WAS_READY = relied({ status: "True", reason: "Ready", message: "redis-operator owned, Ready" });

/** The redis-operator's Owned controller scaled to 0: the decision restores its release. */
const restoring: CapabilityDecision = ownedCapability("redis-operator", {
  action: "restore",
  summary: `restore redis-operator: ${CONTROLLER} scaled to 0 of the 1 replica its release declares; re-applying release ot-operators/redis-operator`,
  ready: false,
  waitingFor: ["restore redis-operator"],
  unavailable: [SCALED],
});

/** Its controller's pods not available: reported only. */
const crashing: CapabilityDecision = ownedCapability("redis-operator", {
  ready: false,
  waitingFor: [`${CONTROLLER} has no available replica`],
  unavailable: [`${CONTROLLER} has no available replica`],
});

const operatorsReady = (p: ReturnType<typeof plan>) => p.conditions.find((c) => c.type === "OperatorsReady");
const ready = (p: ReturnType<typeof plan>) => p.conditions.find((c) => c.type === "Ready");

// OperatorsReady and Ready say a capability the resource relied on that stopped serving, naming it and its
// workload, with one Warning Event; an Owned one is restored, an Adopted one only reported.
describe("OperatorsReady while a capability's controller serves nothing", () => {
  it("a controller scaled to 0 after Ready: OperatorUnavailable naming the capability and its Deployment, one Warning, the release restored", () => {
    const lost = plan(redis({}, WAS_READY), view({ capabilities: [restoring] }));
    const message = `redis-operator: ${SCALED}; ${restoring.summary}`;
    expect(operatorsReady(lost)).toMatchObject({ status: "False", reason: OPERATOR_UNAVAILABLE, message });
    expect(ready(lost)).toMatchObject({ status: "False", reason: OPERATOR_UNAVAILABLE, message });
    expect(lost.events).toEqual([
      { type: "Warning", reason: OPERATOR_UNAVAILABLE, message, cause: "OperatorUnavailable:redis-operator" },
    ]);
    expect(lost.steps).toEqual([
      { kind: "ensure-capability", capability: "redis-operator", description: restoring.summary },
    ]);
    expect(lost.requeue).toBe(true);
  });

  it("a controller scaled to 0 before its status says so: the restore alone is the loss", () => {
    const early = { ...restoring, unavailable: [] };
    const lost = plan(redis({}, WAS_READY), view({ capabilities: [early] }));
    expect(operatorsReady(lost)).toMatchObject({
      reason: OPERATOR_UNAVAILABLE,
      message: `redis-operator: ${restoring.summary}`,
    });
    expect(lost.events.map((e) => e.reason)).toEqual([OPERATOR_UNAVAILABLE]);
  });

  it("the loss reported already: the reason stays until the capability is Ready again, and no second Event", () => {
    const reported = relied({ status: "False", reason: OPERATOR_UNAVAILABLE, message: "…" });
    const again = plan(redis({}, reported), view({ capabilities: [crashing] }));
    expect(operatorsReady(again)).toMatchObject({
      reason: OPERATOR_UNAVAILABLE,
      message: `redis-operator: ${CONTROLLER} has no available replica`,
    });
    expect(again.events).toEqual([]);
    const back = plan(redis({}, reported), view());
    expect(operatorsReady(back)).toMatchObject({ status: "True", reason: "Ready" });
  });

  it("an Adopted controller scaled to 0: reported, the product leaves it to whoever installed it", () => {
    const adopted = ownedCapability("redis-operator", {
      state: "Adopted",
      summary: "adopt redis-operator, leave its lifecycle alone",
      ready: false,
      waitingFor: [SCALED],
      unavailable: [SCALED],
    });
    const wasReady = relied({ status: "True", reason: "Ready", message: "redis-operator adopted, Ready" }, "adopted");
    const lost = plan(redis({}, wasReady), view({ capabilities: [adopted] }));
    expect(ready(lost)).toMatchObject({
      status: "False",
      reason: OPERATOR_UNAVAILABLE,
      message: `redis-operator: ${SCALED}; adopted: the product leaves it to whoever installed it`,
    });
    expect(lost.events.map((e) => e.reason)).toEqual([OPERATOR_UNAVAILABLE]);
  });

  it("a release uninstalled by hand: OperatorUnavailable while it is installed again", () => {
    const gone = ownedCapability("redis-operator", {
      state: "Absent",
      action: "install",
      summary:
        "install redis-operator 0.26.1 as release ot-operators/redis-operator (no release ot-operators/redis-operator)",
      ready: false,
      waitingFor: ["install redis-operator"],
    });
    const lost = plan(redis({}, WAS_READY), view({ capabilities: [gone] }));
    expect(ready(lost)).toMatchObject({ reason: OPERATOR_UNAVAILABLE, message: `redis-operator: ${gone.summary}` });
    expect(lost.events.map((e) => e.reason)).toEqual([OPERATOR_UNAVAILABLE]);
  });

  it("a first install, its controller not available yet: no loss, no Event", () => {
    const fresh = plan(redis({}), view({ capabilities: [crashing] }));
    expect(operatorsReady(fresh)).toMatchObject({
      reason: "WaitingForOperators",
      message: `redis-operator: ${CONTROLLER} has no available replica`,
    });
    expect(fresh.events).toEqual([]);
  });

  it("an upgrade to a new pin after Ready: Installing, no loss", () => {
    const upgrading = ownedCapability("redis-operator", {
      action: "upgrade",
      summary: "upgrade redis-operator from 0.25.0 to the pinned 0.26.1",
      ready: false,
      waitingFor: ["upgrade redis-operator"],
    });
    const upgraded = plan(redis({}, WAS_READY), view({ capabilities: [upgrading] }));
    expect(operatorsReady(upgraded)).toMatchObject({
      reason: "Installing",
      message: `redis-operator: ${upgrading.summary}`,
    });
    expect(upgraded.events).toEqual([]);
  });
});
