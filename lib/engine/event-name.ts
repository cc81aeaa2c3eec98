import { createHash } from "node:crypto";
import type { PlannedEvent } from "./steps.js";

/** What naming an Event needs of the resource it regards. */
export interface EventSubject {
  readonly metadata: { readonly name: string; readonly uid?: string | undefined };
  readonly status?:
    | { readonly conditions?: readonly { readonly type: string; readonly lastTransitionTime?: string | undefined }[] }
    | undefined;
}

/** Hex digits of the cause's hash in an Event's name. */
const EVENT_HASH_LENGTH = 16;
/** Longest Kubernetes object name. */
const MAX_OBJECT_NAME = 253;

/**
 * The name of the one Event recording `event` about `resource`: `<resource>.<hash>`, the hash of the
 * resource's uid, the Ready condition's last transition as stored (so that the same cause after a
 * recovery is a new Event) and the event's reason and cause. Every process that plans the same Event
 * from the same stored state computes the same name, and the apiserver keeps only the first: an Event
 * is once per cluster, not once per operator.
 */
export function eventName(resource: EventSubject, event: PlannedEvent): string {
  const since = resource.status?.conditions?.find((c) => c.type === "Ready")?.lastTransitionTime ?? "";
  const hash = createHash("sha256")
    .update([resource.metadata.uid ?? "", since, event.reason, event.cause ?? event.message].join("\u0000"))
    .digest("hex")
    .slice(0, EVENT_HASH_LENGTH);
  const prefix = resource.metadata.name.slice(0, MAX_OBJECT_NAME - EVENT_HASH_LENGTH - 1).replace(/[-.]+$/, "");
  return `${prefix}.${hash}`;
}
