import type { V1Deployment, V1DeploymentStatus, V1StatefulSet, V1StatefulSetStatus } from "@kubernetes/client-node";

/**
 * Where a workload's rollout stands, as `kubectl rollout status` reports it: `done` only when the rollout
 * is complete, `failed` when it can no longer complete by waiting, and kubectl's own wording of why.
 */
export interface RolloutStatus {
  readonly done: boolean;
  readonly failed: boolean;
  readonly message: string;
}

/** The reason the deployment controller puts on Progressing once spec.progressDeadlineSeconds has passed. */
export const PROGRESS_DEADLINE_EXCEEDED = "ProgressDeadlineExceeded";

const waiting = (message: string): RolloutStatus => ({ done: false, failed: false, message });

/**
 * A Deployment's rollout, by the conditions of kubectl's DeploymentStatusViewer
 * (kubernetes/kubectl pkg/polymorphichelpers/rollout_status.go), in its order: the latest spec observed;
 * not past its progress deadline; every wanted replica updated; no old replica left (status.replicas counts
 * old and new pods alike); every updated replica available. Ready and available counts alone are not
 * enough: mid-rollout with surge, the old pods are the ready ones.
 */
export function deploymentRollout(deployment: V1Deployment): RolloutStatus {
  const name = deployment.metadata?.name ?? "";
  const status: V1DeploymentStatus = deployment.status ?? {};
  if ((deployment.metadata?.generation ?? 0) > (status.observedGeneration ?? 0))
    return waiting("Waiting for deployment spec update to be observed...");
  const progressing = status.conditions?.find((c) => c.type === "Progressing");
  if (progressing?.reason === PROGRESS_DEADLINE_EXCEEDED)
    return { done: false, failed: true, message: `deployment "${name}" exceeded its progress deadline` };
  // The apiserver defaults spec.replicas to 1; kubectl skips the check only for an unset (never-stored) value.
  const wanted = wantedReplicas(deployment);
  const updated = status.updatedReplicas ?? 0;
  if (updated < wanted)
    return waiting(
      `Waiting for deployment "${name}" rollout to finish: ${updated} out of ${wanted} new replicas have been updated...`,
    );
  const total = status.replicas ?? 0;
  if (total > updated)
    return waiting(
      `Waiting for deployment "${name}" rollout to finish: ${total - updated} old replicas are pending termination...`,
    );
  const available = status.availableReplicas ?? 0;
  if (available < updated)
    return waiting(
      `Waiting for deployment "${name}" rollout to finish: ${available} of ${updated} updated replicas are available...`,
    );
  return { done: true, failed: false, message: `deployment "${name}" successfully rolled out` };
}

/**
 * A StatefulSet's rollout, by the conditions of kubectl's StatefulSetStatusViewer (same file): the latest
 * spec observed; every wanted replica ready; with a RollingUpdate partition, the pods at or above it
 * updated; otherwise the update revision become the current one. kubectl reports no rollout for the
 * OnDelete strategy (pods change only when someone deletes them); here such a set is done once observed
 * and every replica is ready, since waiting longer could never change the answer.
 */
export function statefulSetRollout(statefulSet: V1StatefulSet): RolloutStatus {
  const status: Partial<V1StatefulSetStatus> = statefulSet.status ?? {};
  const observed = status.observedGeneration ?? 0;
  if (observed === 0 || (statefulSet.metadata?.generation ?? 0) > observed)
    return waiting("Waiting for statefulset spec update to be observed...");
  const wanted = wantedReplicas(statefulSet);
  const ready = status.readyReplicas ?? 0;
  if (ready < wanted) return waiting(`Waiting for ${wanted - ready} pods to be ready...`);
  const strategy = statefulSet.spec?.updateStrategy;
  if (strategy?.type === "OnDelete")
    return { done: true, failed: false, message: `statefulset uses OnDelete: ${ready} pods ready` };
  const updated = status.updatedReplicas ?? 0;
  if (strategy?.rollingUpdate) {
    const partition = strategy.rollingUpdate.partition;
    if (partition !== undefined && updated < wanted - partition)
      return waiting(
        `Waiting for partitioned roll out to finish: ${updated} out of ${wanted - partition} new pods have been updated...`,
      );
    return {
      done: true,
      failed: false,
      message: `partitioned roll out complete: ${updated} new pods have been updated...`,
    };
  }
  if (status.updateRevision !== status.currentRevision)
    return waiting(
      `waiting for statefulset rolling update to complete ${updated} pods at revision ${status.updateRevision ?? ""}...`,
    );
  return {
    done: true,
    failed: false,
    message: `statefulset rolling update complete ${status.currentReplicas ?? 0} pods at revision ${status.currentRevision ?? ""}...`,
  };
}

/** The replicas a workload asks for (`spec.replicas`), which the apiserver defaults to 1. */
export function wantedReplicas(workload: V1Deployment | V1StatefulSet): number {
  return workload.spec?.replicas ?? 1;
}

/**
 * The replicas a workload serves with now (`status.availableReplicas`: ready for minReadySeconds). A
 * rollout can be complete with none — a Deployment scaled to 0 — so readiness alone does not say that
 * something answers.
 */
export function availableReplicas(workload: V1Deployment | V1StatefulSet): number {
  return workload.status?.availableReplicas ?? 0;
}

/** Ready as `kubectl rollout status` means it (see deploymentRollout). */
export function deploymentReady(deployment: V1Deployment): boolean {
  return deploymentRollout(deployment).done;
}

/** Ready as `kubectl rollout status` means it (see statefulSetRollout). */
export function statefulSetReady(statefulSet: V1StatefulSet): boolean {
  return statefulSetRollout(statefulSet).done;
}
