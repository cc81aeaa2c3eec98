import type {
  V1Deployment,
  V1DeploymentStatus,
  V1StatefulSet,
  V1StatefulSetSpec,
  V1StatefulSetStatus,
} from "@kubernetes/client-node";
import {
  deploymentReady,
  deploymentRollout,
  statefulSetReady,
  statefulSetRollout,
} from "../../lib/capabilities/workload-readiness.js";

// The cases of kubectl's rollout status (kubernetes/kubectl pkg/polymorphichelpers/rollout_status.go),
// each a Deployment or StatefulSet as the apiserver stores it, with kubectl's wording of the verdict.

function deployment(status: V1DeploymentStatus, generation = 2, replicas = 2): V1Deployment {
  return {
    metadata: { name: "web", generation },
    spec: { replicas, selector: {}, template: {} },
    status,
  };
}

const rolledOut: V1DeploymentStatus = {
  observedGeneration: 2,
  replicas: 2,
  updatedReplicas: 2,
  readyReplicas: 2,
  availableReplicas: 2,
};

describe("deploymentRollout", () => {
  it.each<[string, V1Deployment, boolean, string]>([
    ["every replica updated and available", deployment(rolledOut), true, 'deployment "web" successfully rolled out'],
    [
      "the latest spec not yet observed",
      deployment({ ...rolledOut, observedGeneration: 1 }),
      false,
      "Waiting for deployment spec update to be observed...",
    ],
    [
      "1 of 2 updated, the ready one old (no surge)",
      deployment({ ...rolledOut, updatedReplicas: 1, availableReplicas: 1, readyReplicas: 1 }),
      false,
      'Waiting for deployment "web" rollout to finish: 1 out of 2 new replicas have been updated...',
    ],
    [
      "2 new replicas surged beside 2 old ready ones (maxSurge 2, maxUnavailable 0)",
      deployment({ ...rolledOut, replicas: 4, updatedReplicas: 2, readyReplicas: 2, availableReplicas: 2 }),
      false,
      'Waiting for deployment "web" rollout to finish: 2 old replicas are pending termination...',
    ],
    [
      "every replica updated, one not yet available",
      deployment({ ...rolledOut, availableReplicas: 1, readyReplicas: 2 }),
      false,
      'Waiting for deployment "web" rollout to finish: 1 of 2 updated replicas are available...',
    ],
    [
      "no status written yet",
      { metadata: { name: "web", generation: 1 }, spec: { replicas: 1, selector: {}, template: {} } },
      false,
      "Waiting for deployment spec update to be observed...",
    ],
    ["scaled to zero", deployment({ observedGeneration: 2 }, 2, 0), true, 'deployment "web" successfully rolled out'],
  ])("%s", (_case, object, done, message) => {
    expect(deploymentRollout(object)).toEqual({ done, failed: false, message });
    expect(deploymentReady(object)).toBe(done);
  });

  it("reports a rollout past its progress deadline as failed, not waiting", () => {
    const object = deployment({
      ...rolledOut,
      updatedReplicas: 1,
      conditions: [{ type: "Progressing", status: "False", reason: "ProgressDeadlineExceeded" }],
    });
    expect(deploymentRollout(object)).toEqual({
      done: false,
      failed: true,
      message: 'deployment "web" exceeded its progress deadline',
    });
    expect(deploymentReady(object)).toBe(false);
  });

  it("is not failed by a Progressing condition with another reason", () => {
    const object = deployment({
      ...rolledOut,
      conditions: [{ type: "Progressing", status: "True", reason: "NewReplicaSetAvailable" }],
    });
    expect(deploymentRollout(object).done).toBe(true);
  });
});

function statefulSet(spec: Partial<V1StatefulSetSpec>, status: V1StatefulSetStatus, generation = 3): V1StatefulSet {
  return {
    metadata: { name: "db", generation },
    spec: { replicas: 3, selector: {}, serviceName: "db", template: {}, ...spec },
    status,
  };
}

const rolling = { updateStrategy: { type: "RollingUpdate" } };
const stsRolledOut: V1StatefulSetStatus = {
  replicas: 3,
  observedGeneration: 3,
  readyReplicas: 3,
  updatedReplicas: 3,
  currentReplicas: 3,
  currentRevision: "db-2",
  updateRevision: "db-2",
};

describe("statefulSetRollout", () => {
  it.each<[string, V1StatefulSet, boolean, string]>([
    [
      "every pod ready at the update revision",
      statefulSet(rolling, stsRolledOut),
      true,
      "statefulset rolling update complete 3 pods at revision db-2...",
    ],
    [
      "never observed (observedGeneration 0)",
      statefulSet(rolling, { ...stsRolledOut, observedGeneration: 0 }, 0),
      false,
      "Waiting for statefulset spec update to be observed...",
    ],
    [
      "the latest spec not yet observed",
      statefulSet(rolling, { ...stsRolledOut, observedGeneration: 2 }),
      false,
      "Waiting for statefulset spec update to be observed...",
    ],
    [
      "one pod not ready",
      statefulSet(rolling, { ...stsRolledOut, readyReplicas: 2 }),
      false,
      "Waiting for 1 pods to be ready...",
    ],
    [
      "every pod ready, update revision not yet current",
      statefulSet(rolling, { ...stsRolledOut, updatedReplicas: 1, currentReplicas: 2, updateRevision: "db-3" }),
      false,
      "waiting for statefulset rolling update to complete 1 pods at revision db-3...",
    ],
    [
      "partition 1: the two pods above it not yet both updated",
      statefulSet(
        { updateStrategy: { type: "RollingUpdate", rollingUpdate: { partition: 1 } } },
        { ...stsRolledOut, updatedReplicas: 1, updateRevision: "db-3" },
      ),
      false,
      "Waiting for partitioned roll out to finish: 1 out of 2 new pods have been updated...",
    ],
    [
      "partition 1: the two pods above it updated, the one below left old",
      statefulSet(
        { updateStrategy: { type: "RollingUpdate", rollingUpdate: { partition: 1 } } },
        { ...stsRolledOut, updatedReplicas: 2, updateRevision: "db-3" },
      ),
      true,
      "partitioned roll out complete: 2 new pods have been updated...",
    ],
    [
      "partition 0 (the apiserver's default): every pod updated",
      statefulSet({ updateStrategy: { type: "RollingUpdate", rollingUpdate: { partition: 0 } } }, stsRolledOut),
      true,
      "partitioned roll out complete: 3 new pods have been updated...",
    ],
    [
      "partition 0: one pod not yet updated",
      statefulSet(
        { updateStrategy: { type: "RollingUpdate", rollingUpdate: { partition: 0 } } },
        { ...stsRolledOut, updatedReplicas: 2, updateRevision: "db-3" },
      ),
      false,
      "Waiting for partitioned roll out to finish: 2 out of 3 new pods have been updated...",
    ],
    [
      "OnDelete: every pod ready, whatever their revision",
      statefulSet({ updateStrategy: { type: "OnDelete" } }, { ...stsRolledOut, updateRevision: "db-3" }),
      true,
      "statefulset uses OnDelete: 3 pods ready",
    ],
    [
      "OnDelete: one pod not ready",
      statefulSet({ updateStrategy: { type: "OnDelete" } }, { ...stsRolledOut, readyReplicas: 2 }),
      false,
      "Waiting for 1 pods to be ready...",
    ],
  ])("%s", (_case, object, done, message) => {
    expect(statefulSetRollout(object)).toEqual({ done, failed: false, message });
    expect(statefulSetReady(object)).toBe(done);
  });
});
