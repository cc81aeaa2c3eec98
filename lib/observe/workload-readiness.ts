import type { V1Deployment, V1StatefulSet } from "@kubernetes/client-node";

/** Ready as `kubectl rollout status` means it: the latest spec observed, every replica updated and available. */
export function deploymentReady(deployment: V1Deployment): boolean {
  const wanted = deployment.spec?.replicas ?? 1;
  const status = deployment.status;
  if (!status) return false;
  const observed = (status.observedGeneration ?? 0) >= (deployment.metadata?.generation ?? 0);
  return (
    observed &&
    (status.updatedReplicas ?? 0) >= wanted &&
    (status.availableReplicas ?? 0) >= wanted &&
    (status.readyReplicas ?? 0) >= wanted
  );
}

export function statefulSetReady(statefulSet: V1StatefulSet): boolean {
  const wanted = statefulSet.spec?.replicas ?? 1;
  const status = statefulSet.status;
  if (!status) return false;
  const observed = (status.observedGeneration ?? 0) >= (statefulSet.metadata?.generation ?? 0);
  const rolledOut = !status.updateRevision || status.currentRevision === status.updateRevision;
  return observed && rolledOut && (status.readyReplicas ?? 0) >= wanted;
}
