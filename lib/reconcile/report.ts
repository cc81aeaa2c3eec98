import { V1MicroTime } from "@kubernetes/client-node";
import type { Condition } from "../api/conditions.js";
import { API_GROUP, API_GROUP_VERSION, API_VERSION, OPERATOR_NAME } from "../api/group.js";
import { HOLDER_IDENTITY } from "../apply/lease-lock.js";
import type { KubeClient } from "../cluster/kube-client.js";
import type { Reporter } from "../local-plane/progress.js";
import type { PlannedEvent } from "../plan/postgres-cluster.js";

/** A namespaced navique resource, as much of it as reporting on it needs. */
export interface ReportedResource {
  readonly kind: string;
  readonly metadata: { readonly name: string; readonly namespace: string; readonly uid?: string | undefined };
  readonly status?: { readonly conditions?: readonly Condition[] } | undefined;
}

/** Records an Event about a navique resource (events.k8s.io/v1), as `kubectl describe` shows them. */
export async function recordEvent(
  client: KubeClient,
  resource: ReportedResource,
  event: PlannedEvent,
  now: Date,
): Promise<void> {
  await client.events.createNamespacedEvent({
    namespace: resource.metadata.namespace,
    body: {
      metadata: { generateName: `${resource.metadata.name}-`, namespace: resource.metadata.namespace },
      // MicroTime: the apiserver refuses fewer than six fractional digits.
      eventTime: new V1MicroTime(now.getTime()),
      type: event.type,
      reason: event.reason,
      note: event.message.slice(0, 1024),
      action: "Reconcile",
      reportingController: `${API_GROUP}/${OPERATOR_NAME}`,
      reportingInstance: HOLDER_IDENTITY.slice(0, 128),
      regarding: {
        apiVersion: API_GROUP_VERSION,
        kind: resource.kind,
        name: resource.metadata.name,
        namespace: resource.metadata.namespace,
        uid: resource.metadata.uid ?? "",
      },
    },
  });
}

/**
 * Records the planned Events. They are best effort, as in every Kubernetes controller: one that cannot be
 * recorded is reported, never a reason to leave the status unwritten.
 */
export async function recordEvents(
  client: KubeClient,
  resource: ReportedResource,
  events: readonly PlannedEvent[],
  now: Date,
  report: Reporter,
): Promise<void> {
  for (const event of events) {
    await recordEvent(client, resource, event, now).catch((error: unknown) => {
      report(
        `[${resource.metadata.namespace}/${resource.metadata.name}] could not record Event ${event.reason}: ${error instanceof Error ? error.message : String(error)}`,
      );
    });
  }
}

/**
 * Writes a resource's status, keeping each condition's lastTransitionTime while its status is unchanged.
 * A JSON patch `add` creates the status on the first write and replaces it after.
 */
export async function writeStatus(
  client: KubeClient,
  plural: string,
  resource: ReportedResource,
  status: { readonly conditions: readonly Condition[] },
  now: Date,
): Promise<void> {
  const previous = new Map((resource.status?.conditions ?? []).map((c) => [c.type, c]));
  const conditions = status.conditions.map((c) => {
    const before = previous.get(c.type);
    const unchanged = before && before.status === c.status;
    return {
      ...c,
      lastTransitionTime: unchanged && before.lastTransitionTime ? before.lastTransitionTime : now.toISOString(),
    };
  });
  await client.custom.patchNamespacedCustomObjectStatus(
    {
      group: API_GROUP,
      version: API_VERSION,
      plural,
      namespace: resource.metadata.namespace,
      name: resource.metadata.name,
      body: [{ op: "add", path: "/status", value: { ...status, conditions } }],
    },
    undefined,
  );
}
