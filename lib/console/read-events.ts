import { API_GROUP, OPERATOR_NAME } from "../api/group.js";
import type { KubeClient } from "../cluster/kube-client.js";

/** One Event the operator recorded, as the console shows it. */
export interface ConsoleEvent {
  /** When it happened (RFC 3339). */
  readonly time: string;
  readonly type: string;
  readonly reason: string;
  /** What it is about: `Kind namespace/name`, or `Kind name` for a cluster-scoped object. */
  readonly regarding: string;
  /** The resource of the product it concerns when it is about another object (a capability's CRD). */
  readonly related?: string;
  readonly note: string;
}

/** The controller name every Event of the product carries (lib/engine/report.ts). */
export const REPORTING_CONTROLLER = `${API_GROUP}/${OPERATOR_NAME}`;

/** The most Events a page lists: the newest. */
export const MOST_EVENTS = 200;

interface ObjectReference {
  readonly kind?: string;
  readonly namespace?: string;
  readonly name?: string;
}

function named(reference: ObjectReference | undefined): string | undefined {
  if (!reference?.name) return undefined;
  const where = reference.namespace ? `${reference.namespace}/${reference.name}` : reference.name;
  return `${reference.kind ?? "object"} ${where}`;
}

/**
 * The Events the operator recorded within the last `withinMinutes` before `now`, newest first, at most
 * MOST_EVENTS: selected by the apiserver on their reporting controller, every namespace.
 */
export async function readRecentEvents(
  client: KubeClient,
  options: { readonly now: Date; readonly withinMinutes: number },
): Promise<ConsoleEvent[]> {
  const list = await client.events.listEventForAllNamespaces({
    fieldSelector: `reportingController=${REPORTING_CONTROLLER}`,
  });
  const since = options.now.getTime() - options.withinMinutes * 60_000;
  return list.items
    .flatMap((event): ConsoleEvent[] => {
      const at = event.eventTime ?? event.deprecatedLastTimestamp ?? event.metadata?.creationTimestamp;
      const time = at ? new Date(at) : undefined;
      if (!time || Number.isNaN(time.getTime()) || time.getTime() < since) return [];
      const related = named(event.related);
      return [
        {
          time: time.toISOString(),
          type: event.type ?? "Normal",
          reason: event.reason ?? "",
          regarding: named(event.regarding) ?? "",
          ...(related ? { related } : {}),
          note: event.note ?? "",
        },
      ];
    })
    .sort((a, b) => b.time.localeCompare(a.time))
    .slice(0, MOST_EVENTS);
}
