import { V1MicroTime } from "@kubernetes/client-node";
import { canonicalJson } from "../api/canonical-json.js";
import type { Condition } from "../api/conditions.js";
import { API_GROUP, API_GROUP_VERSION, API_VERSION, OPERATOR_NAME } from "../api/group.js";
import { HOLDER_IDENTITY } from "../capabilities/lease-lock.js";
import { type KubeClient, statusOf } from "../cluster/kube-client.js";
import type { Reporter } from "../reporter.js";
import { eventName } from "./event-name.js";
import type { PlannedEvent } from "./steps.js";

/** A resource reported on: namespaced (a PostgresCluster, a Stack) or cluster-scoped (the License). */
export interface ReportedResource {
  readonly kind: string;
  readonly metadata: {
    readonly name: string;
    readonly namespace?: string | undefined;
    readonly uid?: string | undefined;
    readonly resourceVersion?: string | undefined;
  };
  readonly status?: { readonly conditions?: readonly Condition[] } | undefined;
}

/** Events about a cluster-scoped resource are recorded in this namespace, as Kubernetes does for Nodes. */
const CLUSTER_EVENT_NAMESPACE = "default";

/**
 * Records an Event about a navique resource (events.k8s.io/v1), as `kubectl describe` shows them — or
 * about the cluster-scoped object the planned Event names (`regarding`), the resource related. True
 * when this call recorded it; false when it was recorded already (by this or another process).
 */
export async function recordEvent(
  client: KubeClient,
  resource: ReportedResource,
  event: PlannedEvent,
  now: Date,
  action = "Reconcile",
): Promise<boolean> {
  const namespace = event.regarding
    ? CLUSTER_EVENT_NAMESPACE
    : (resource.metadata.namespace ?? CLUSTER_EVENT_NAMESPACE);
  const about = {
    apiVersion: API_GROUP_VERSION,
    kind: resource.kind,
    name: resource.metadata.name,
    ...(resource.metadata.namespace ? { namespace: resource.metadata.namespace } : {}),
    uid: resource.metadata.uid ?? "",
  };
  try {
    await client.events.createNamespacedEvent({
      namespace,
      body: {
        metadata: { name: eventName(resource, event), namespace },
        // MicroTime: the apiserver refuses fewer than six fractional digits.
        eventTime: new V1MicroTime(now.getTime()),
        type: event.type,
        reason: event.reason,
        note: event.message.slice(0, 1024),
        action,
        reportingController: `${API_GROUP}/${OPERATOR_NAME}`,
        reportingInstance: HOLDER_IDENTITY.slice(0, 128),
        // About a cluster-scoped object when the planned Event says so: the resource is then the related one.
        ...(event.regarding ? { regarding: event.regarding, related: about } : { regarding: about }),
      },
    });
    return true;
  } catch (error) {
    if (statusOf(error) === 409) return false;
    throw error;
  }
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
        `[${resource.metadata.namespace}/${resource.metadata.name}] could not record Event ${event.reason}: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`,
      );
    });
  }
}

/** Whether two statuses say the same thing, member for member (nothing ignored). */
export function sameStatus(a: unknown, b: unknown): boolean {
  return canonicalJson(a) === canonicalJson(b);
}

/** Each condition keeps its stored lastTransitionTime while its status is unchanged; a new status gets `now`. */
export function withTransitionTimes(
  previous: readonly Condition[] | undefined,
  conditions: readonly Condition[],
  now: Date,
): Condition[] {
  const before = new Map((previous ?? []).map((c) => [c.type, c]));
  return conditions.map((c) => {
    const stored = before.get(c.type);
    const unchanged = stored && stored.status === c.status && stored.lastTransitionTime;
    return { ...c, lastTransitionTime: unchanged ? stored.lastTransitionTime : now.toISOString() };
  });
}

/**
 * What became of a status write: made (with the resourceVersion it made), not needed (nothing changed),
 * refused because the resource changed meanwhile, or not made because the resource is gone (deleted
 * meanwhile: nothing left to report on).
 */
export type StatusWrite =
  | {
      readonly outcome: "written";
      readonly resourceVersion: string | undefined;
      /** The status as written: its conditions with their transition times. */
      readonly status: { readonly conditions: readonly Condition[] };
    }
  | { readonly outcome: "unchanged" | "conflict" | "gone" };

/**
 * Writes a resource's status when it differs from the stored one, keeping each condition's
 * lastTransitionTime while its status is unchanged; a status that changes nothing is not written (a
 * write would wake every watcher, this operator's own included). The write is conditional on the
 * resourceVersion read: when another process changed the resource meanwhile it is refused ("conflict")
 * and the next pass decides again from what that process wrote, so that two operators never overwrite
 * each other's lastTransitionTime. A JSON patch `add` creates the status on the first write and replaces
 * it after.
 */
export async function writeStatus(
  client: KubeClient,
  plural: string,
  resource: ReportedResource & { readonly metadata: { readonly namespace: string } },
  status: { readonly conditions: readonly Condition[] },
  now: Date,
): Promise<StatusWrite> {
  const value = { ...status, conditions: withTransitionTimes(resource.status?.conditions, status.conditions, now) };
  if (resource.status && sameStatus(value, resource.status)) return { outcome: "unchanged" };
  const { resourceVersion } = resource.metadata;
  try {
    const patched = (await client.custom.patchNamespacedCustomObjectStatus(
      {
        group: API_GROUP,
        version: API_VERSION,
        plural,
        namespace: resource.metadata.namespace,
        name: resource.metadata.name,
        body: [
          // A resourceVersion in the patch makes the write conditional on it (409 Conflict otherwise).
          ...(resourceVersion ? [{ op: "replace", path: "/metadata/resourceVersion", value: resourceVersion }] : []),
          { op: "add", path: "/status", value },
        ],
      },
      undefined,
    )) as { metadata?: { resourceVersion?: string } } | undefined;
    return { outcome: "written", resourceVersion: patched?.metadata?.resourceVersion, status: value };
  } catch (error) {
    if (statusOf(error) === 409) return { outcome: "conflict" };
    // Deleted meanwhile (another front end finalized it): success, as for every vanished resource.
    if (statusOf(error) === 404) return { outcome: "gone" };
    throw error;
  }
}
