import { type Condition, STALLED } from "../api/conditions.js";
import type { EngineResource } from "./kind-module.js";
import { REFERENCE_NOT_PERMITTED } from "./reference-grants.js";

/** A condition about `resource`, at its current generation. */
export function condition(
  resource: EngineResource,
  type: string,
  ok: boolean,
  reason: string,
  message: string,
): Condition {
  return {
    type,
    status: ok ? "True" : "False",
    reason,
    message,
    observedGeneration: resource.metadata.generation ?? 0,
  };
}

/** The Stalled condition, True, with Ready's reason and message: the resource cannot go on without a change by someone. */
export function stalledCondition(resource: EngineResource, reason: string, message: string): Condition {
  return condition(resource, STALLED, true, reason, message);
}

/** `Kind namespace/name` of a resource, for messages and reference counts. */
export function resourceLabel(resource: EngineResource): string {
  return `${resource.kind} ${resource.metadata.namespace}/${resource.metadata.name}`;
}

/** What front ends put before a stalled resource's message, by its reason; other reasons' messages say it themselves. */
const STALLED_PREFIX: Readonly<Record<string, string>> = {
  FeatureNotLicensed: "skipped by the licence",
  InstanceCapExceeded: "refused by the licence",
  [REFERENCE_NOT_PERMITTED]: "reference not permitted",
};

/**
 * One line for a stalled resource, the same in `pulumi preview`, `navique plan` and the error that stops
 * `pulumi up`: `PostgresCluster apps/db: refused by the licence: …`.
 */
export function stalledLine(subject: string, stalled: Condition): string {
  const prefix = STALLED_PREFIX[stalled.reason];
  return `${subject}: ${prefix ? `${prefix}: ` : ""}${stalled.message}`;
}
