import { OWNERSHIP_MARKS } from "../../lib/api/group.js";
import type { CapabilityObservation, WorkloadState } from "../../lib/capabilities/observation.js";
import { decideCapability } from "../../lib/capabilities/provenance.js";
import { REDIS_OPERATOR } from "../../lib/catalog/redis-operator.js";

const { name: RELEASE, namespace: NAMESPACE } = REDIS_OPERATOR.release;
const CONTROLLER = `Deployment ${NAMESPACE}/redis-operator`;

/** The release's controller Deployment as observed: 1 replica declared and available unless told otherwise. */
function controller(state: Partial<WorkloadState> = {}): WorkloadState {
  return {
    kind: "Deployment",
    name: "redis-operator",
    namespace: NAMESPACE,
    declaredReplicas: 1,
    exists: true,
    ready: true,
    replicas: 1,
    availableReplicas: 1,
    ...state,
  };
}

/** The redis-operator's release at the pinned chart, deployed, marked as the product's (or not), with its controller. */
function released(workload: WorkloadState, marked = true): CapabilityObservation {
  return {
    name: REDIS_OPERATOR.name,
    release: {
      name: RELEASE,
      namespace: NAMESPACE,
      revision: 1,
      status: "deployed",
      labels: { owner: "helm", ...(marked ? OWNERSHIP_MARKS : {}) },
      chart: { name: "redis-operator", version: REDIS_OPERATOR.chart.version },
      workloads: [workload],
    },
    crds: REDIS_OPERATOR.crds.names.map((name) => ({ name, exists: true, established: true })),
    controllers: [],
    releaseWorkloads: [workload],
  };
}

// A capability is Ready only while its controller serves: a rollout is complete for a Deployment scaled to
// 0, so readiness also asks for an available replica. What drifted of an Owned release is restored by
// re-applying it; an Adopted one is only reported.
describe("a capability's controller that stops serving", () => {
  it("serving: Owned, kept, Ready", () => {
    const decision = decideCapability(REDIS_OPERATOR, released(controller()));
    expect(decision).toMatchObject({ state: "Owned", action: "none", ready: true, waitingFor: [], unavailable: [] });
  });

  it("scaled to 0: not Ready though its rollout is complete; the Owned release is restored", () => {
    const decision = decideCapability(REDIS_OPERATOR, released(controller({ replicas: 0, availableReplicas: 0 })));
    expect(decision).toMatchObject({
      state: "Owned",
      action: "restore",
      ready: false,
      waitingFor: ["restore redis-operator"],
    });
    expect(decision.unavailable).toEqual([`${CONTROLLER} has no available replica (scaled to 0)`]);
    expect(decision.summary).toBe(
      `restore redis-operator: ${CONTROLLER} scaled to 0 of the 1 replica its release declares; re-applying release ${NAMESPACE}/${RELEASE} ${REDIS_OPERATOR.chart.version} with the product's values (${decision.evidence})`,
    );
  });

  it("scaled to 0 before its status says so: restored all the same, the drift is in its spec", () => {
    const decision = decideCapability(REDIS_OPERATOR, released(controller({ replicas: 0, ready: false })));
    expect(decision).toMatchObject({ action: "restore", ready: false, unavailable: [] });
  });

  it("deleted: missing; the Owned release is restored", () => {
    const decision = decideCapability(
      REDIS_OPERATOR,
      released(controller({ exists: false, ready: false, replicas: 0, availableReplicas: 0 })),
    );
    expect(decision).toMatchObject({ action: "restore", ready: false, unavailable: [`${CONTROLLER} is missing`] });
    expect(decision.summary).toContain(`restore redis-operator: ${CONTROLLER} is missing; re-applying release`);
  });

  it("its pods not available at its declared replicas (crashing, unschedulable): reported, not restored — re-applying mends nothing", () => {
    const decision = decideCapability(REDIS_OPERATOR, released(controller({ ready: false, availableReplicas: 0 })));
    expect(decision).toMatchObject({ action: "none", ready: false });
    expect(decision.unavailable).toEqual([`${CONTROLLER} has no available replica`]);
    expect(decision.waitingFor).toEqual([`${CONTROLLER} has no available replica`]);
  });

  it("mid-rollout with a replica available: not Ready, but serving", () => {
    const decision = decideCapability(REDIS_OPERATOR, released(controller({ ready: false })));
    expect(decision).toMatchObject({
      action: "none",
      ready: false,
      unavailable: [],
      waitingFor: [`${CONTROLLER} not Ready`],
    });
  });

  it("a workload its release declares with 0 replicas is off by the chart's choice: Ready", () => {
    const off = controller({ declaredReplicas: 0, replicas: 0, availableReplicas: 0 });
    expect(decideCapability(REDIS_OPERATOR, released(off))).toMatchObject({
      action: "none",
      ready: true,
      unavailable: [],
    });
  });

  it("Adopted, scaled to 0 or deleted: reported, never restored", () => {
    const scaled = decideCapability(REDIS_OPERATOR, released(controller({ replicas: 0, availableReplicas: 0 }), false));
    expect(scaled).toMatchObject({ state: "Adopted", action: "none", ready: false });
    expect(scaled.unavailable).toEqual([`${CONTROLLER} has no available replica (scaled to 0)`]);
    const deleted = decideCapability(
      REDIS_OPERATOR,
      released(controller({ exists: false, ready: false, replicas: 0, availableReplicas: 0 }), false),
    );
    expect(deleted).toMatchObject({
      state: "Adopted",
      action: "none",
      ready: false,
      unavailable: [`${CONTROLLER} is missing`],
    });
  });

  it("Adopted through a controller found by its labels, scaled to 0: not Ready", () => {
    const observation: CapabilityObservation = {
      name: REDIS_OPERATOR.name,
      crds: REDIS_OPERATOR.crds.names.map((name) => ({ name, exists: true, established: true })),
      controllers: [
        {
          name: "redis-operator",
          namespace: "theirs",
          matchedBy: "label app.kubernetes.io/name=redis-operator",
          ready: true,
          replicas: 0,
          availableReplicas: 0,
        },
      ],
      releaseWorkloads: [],
    };
    const decision = decideCapability(REDIS_OPERATOR, observation);
    expect(decision).toMatchObject({ state: "Adopted", action: "none", ready: false });
    expect(decision.unavailable).toEqual(["Deployment theirs/redis-operator has no available replica (scaled to 0)"]);
  });

  it("an Owned release at another chart version is upgraded, whatever drifted", () => {
    const observation = released(controller({ replicas: 0, availableReplicas: 0 }));
    const older = { ...observation, release: { ...observation.release, chart: { version: "0.1.0" } } };
    expect(decideCapability(REDIS_OPERATOR, older as CapabilityObservation)).toMatchObject({ action: "upgrade" });
  });
});
