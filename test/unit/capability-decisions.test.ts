import type { CapabilityObservation } from "../../lib/capabilities/observation.js";
import type { CapabilityDecision } from "../../lib/capabilities/provenance.js";
import { CapabilityDecisions } from "../../providers/operator/capability-decisions.js";

const WATCHED = new Set(["litellm-operator-system"]);

/** An Owned release whose controller is a Deployment of `namespace`. */
function released(namespace = "litellm-operator-system", kind: "Deployment" | "StatefulSet" = "Deployment") {
  return {
    name: "litellm-operator",
    release: { revision: 1 },
    crds: [{ name: "litellminstances.litellm.ai", exists: true, established: true }],
    controllers: [],
    releaseWorkloads: [{ kind, name: "controller", namespace, exists: true, ready: true }],
  } as unknown as CapabilityObservation;
}

/** A detection that counts its calls and answers `observation`, or what `answer` says at the time. */
function detection(answer: () => CapabilityObservation | Promise<CapabilityObservation>) {
  const calls: string[] = [];
  const detect = async (capability: string) => {
    calls.push(capability);
    const observation = await answer();
    return { observation, decision: { capability, state: "Owned", ready: true } as unknown as CapabilityDecision };
  };
  return { calls, detect };
}

/** Decisions whose watches are all complete. */
function synced(detect: ConstructorParameters<typeof CapabilityDecisions>[0]) {
  const decisions = new CapabilityDecisions(detect, WATCHED);
  const records = decisions.source("release records");
  const crds = decisions.source("CRDs");
  records(true);
  crds(true);
  return { decisions, records, crds };
}

describe("CapabilityDecisions (the operator's, kept between watch events)", () => {
  it("keeps a decision until something it is decided from changes", async () => {
    const { calls, detect } = detection(() => released());
    const { decisions } = synced(detect);
    await decisions.decide("litellm-operator");
    await decisions.decide("litellm-operator");
    expect(calls).toEqual(["litellm-operator"]);
    decisions.changed();
    await decisions.decide("litellm-operator");
    expect(calls).toEqual(["litellm-operator", "litellm-operator"]);
  });

  it("keeps nothing while a watch it depends on is not complete, and forgets everything when one stops", async () => {
    const { calls, detect } = detection(() => released());
    const decisions = new CapabilityDecisions(detect, WATCHED);
    const records = decisions.source("release records");
    await decisions.decide("litellm-operator");
    await decisions.decide("litellm-operator");
    expect(calls).toHaveLength(2);
    records(true);
    await decisions.decide("litellm-operator");
    await decisions.decide("litellm-operator");
    expect(calls).toHaveLength(3);
    records(false);
    expect(decisions.size).toBe(0);
    await decisions.decide("litellm-operator");
    expect(calls).toHaveLength(4);
  });

  it("never keeps one without watches at all", async () => {
    const { calls, detect } = detection(() => released());
    const decisions = new CapabilityDecisions(detect, WATCHED);
    await decisions.decide("litellm-operator");
    await decisions.decide("litellm-operator");
    expect(calls).toHaveLength(2);
  });

  it("does not keep a detection under way when a change comes, though those asking get its answer", async () => {
    let finish: (observation: CapabilityObservation) => void = () => {};
    const { calls, detect } = detection(() => new Promise((resolve) => (finish = resolve)));
    const { decisions } = synced(detect);
    const first = decisions.decide("litellm-operator");
    const sharing = decisions.decide("litellm-operator");
    decisions.changed();
    finish(released());
    expect((await first).capability).toBe("litellm-operator");
    expect(await sharing).toBe(await first);
    expect(calls).toHaveLength(1);
    const after = decisions.decide("litellm-operator");
    finish(released());
    await after;
    expect(calls).toHaveLength(2);
  });

  it("keeps only what every read of is watched: not a controller found by the cluster-wide search, nor workloads elsewhere", async () => {
    const searched = {
      name: "litellm-operator",
      crds: [{ name: "litellminstances.litellm.ai", exists: true, established: true }],
      controllers: [{ name: "theirs", namespace: "ops", matchedBy: "label x=y", ready: true }],
      releaseWorkloads: [],
    } as unknown as CapabilityObservation;
    const absent = { ...searched, crds: [{ ...searched.crds[0], exists: false }], controllers: [] };
    for (const [observation, kept] of [
      [searched, false],
      [{ ...searched, controllers: [] }, false],
      [released("elsewhere"), false],
      [released("litellm-operator-system", "StatefulSet"), false],
      [absent, true],
      [released(), true],
    ] as const) {
      const { detect } = detection(() => observation as CapabilityObservation);
      const { decisions } = synced(detect);
      await decisions.decide("litellm-operator");
      expect([observation, decisions.size]).toEqual([observation, kept ? 1 : 0]);
    }
  });

  it("forgets a detection that failed, and passes the failure on", async () => {
    let fail = true;
    const { calls, detect } = detection(() => {
      if (fail) throw new Error("apiserver unavailable");
      return released();
    });
    const { decisions } = synced(detect);
    await expect(decisions.decide("litellm-operator")).rejects.toThrow("apiserver unavailable");
    fail = false;
    await decisions.decide("litellm-operator");
    await decisions.decide("litellm-operator");
    expect(calls).toHaveLength(2);
  });
});
