import { deploymentRollout, statefulSetRollout } from "../capabilities/workload-readiness.js";
import {
  decodeReleaseSecret,
  HELM_NAME_LABEL,
  HELM_OWNER_LABEL,
  latestReleaseSecret,
} from "../cluster/helm-release-record.js";
import { type KubeClient, orUndefined } from "../cluster/kube-client.js";
import { type ObservedRelease, type ObservedWorkload, RELEASE_API_VERSION, RELEASE_KIND } from "./workload-release.js";

/** One rendered workload's rollout, read now; a workload not there yet is waited for. */
async function workloadRollout(
  client: KubeClient,
  workload: { readonly kind: "Deployment" | "StatefulSet"; readonly name: string; readonly namespace: string },
): Promise<ObservedWorkload> {
  const { kind, name, namespace } = workload;
  const rollout =
    kind === "Deployment"
      ? await orUndefined(client.apps.readNamespacedDeployment({ name, namespace })).then((d) =>
          d ? deploymentRollout(d) : undefined,
        )
      : await orUndefined(client.apps.readNamespacedStatefulSet({ name, namespace })).then((s) =>
          s ? statefulSetRollout(s) : undefined,
        );
  return { kind, name, namespace, ...(rollout ?? { done: false, failed: false, message: `${kind} not created yet` }) };
}

/**
 * A Helm release as the engine's view holds it, read from helm's records (the Secrets of its revisions,
 * the latest decoded) and its rendered Deployments and StatefulSets: undefined when there is none.
 */
export async function observeWorkloadRelease(
  client: KubeClient,
  name: string,
  namespace: string,
): Promise<ObservedRelease | undefined> {
  const secrets = await client.core.listNamespacedSecret({
    namespace,
    labelSelector: `${HELM_OWNER_LABEL}=helm,${HELM_NAME_LABEL}=${name}`,
  });
  const latest = latestReleaseSecret(secrets.items ?? []);
  if (!latest) return undefined;
  const record = decodeReleaseSecret(latest);
  const workloads = await Promise.all(record.workloads.map((w) => workloadRollout(client, w)));
  return {
    apiVersion: RELEASE_API_VERSION,
    kind: RELEASE_KIND,
    metadata: { name, namespace, labels: { ...record.labels } },
    spec: { chart: { ...record.chart }, values: record.values ?? {} },
    status: { revision: record.revision, status: record.status, workloads },
  };
}
