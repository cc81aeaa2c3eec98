import type { V1Lease } from "@kubernetes/client-node";
import { OPERATOR_NAME, SYSTEM_NAMESPACE } from "../api/group.js";
import { type KubeClient, orUndefined } from "../cluster/kube-client.js";
import { LEADER_LEASE_DURATION_MS, LEADER_LEASE_NAME } from "../cluster/leader-election.js";
import type { OperatorState } from "../reports/status-report.js";

/**
 * The label the operator's chart puts on its Deployment (constructs/navique-operator.ts), whatever the
 * release is called or the namespace it runs in: what finds it.
 */
export const OPERATOR_SELECTOR = `app.kubernetes.io/name=${OPERATOR_NAME}`;

/**
 * Whether a leader Lease is held and was renewed within its duration, at `now`. One reading, unlike the
 * election's own judgement (lib/cluster/lease-observer.ts), which watches the record go unchanged for a
 * lease duration so that skewed clocks cannot fool it: a report cannot wait that long. So this one reads
 * renewTime against this machine's clock, and a clock off by more than the lease's duration (15 s by
 * default) misjudges it — which the report says (docs/status-and-doctor.md).
 */
function live(lease: V1Lease, now: Date): boolean {
  const holder = lease.spec?.holderIdentity;
  const renewed = lease.spec?.renewTime;
  if (!holder || !renewed) return false;
  const duration = (lease.spec?.leaseDurationSeconds ?? LEADER_LEASE_DURATION_MS / 1000) * 1000;
  return new Date(renewed).getTime() + duration >= now.getTime();
}

/**
 * The operator as the cluster shows it: the Deployments its chart makes, in any namespace, and the leader
 * Lease — in the system namespace, where the operator elects its leader, else in a namespace one of its
 * Deployments runs in. An operator run by hand with --leader-elect=false leaves neither.
 */
export async function readOperator(client: KubeClient, now: Date): Promise<OperatorState> {
  const found = await client.apps.listDeploymentForAllNamespaces({ labelSelector: OPERATOR_SELECTOR });
  const deployments = found.items.map((d) => ({
    namespace: d.metadata?.namespace ?? "",
    name: d.metadata?.name ?? "",
    replicas: d.spec?.replicas ?? 1,
    availableReplicas: d.status?.availableReplicas ?? 0,
  }));
  const namespaces = [...new Set([SYSTEM_NAMESPACE, ...deployments.map((d) => d.namespace)])];
  for (const namespace of namespaces) {
    const lease = await orUndefined(client.coordination.readNamespacedLease({ name: LEADER_LEASE_NAME, namespace }));
    if (!lease) continue;
    const { holderIdentity, renewTime, leaseDurationSeconds } = lease.spec ?? {};
    return {
      deployments,
      lease: {
        namespace,
        name: LEADER_LEASE_NAME,
        exists: true,
        ...(holderIdentity ? { holder: holderIdentity } : {}),
        ...(renewTime ? { renewTime: new Date(renewTime).toISOString() } : {}),
        ...(leaseDurationSeconds !== undefined ? { leaseDurationSeconds } : {}),
        live: live(lease, now),
      },
    };
  }
  return { deployments, lease: { namespace: SYSTEM_NAMESPACE, name: LEADER_LEASE_NAME, exists: false, live: false } };
}
