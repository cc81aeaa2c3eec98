import type { Condition } from "../api/conditions.js";
import type { EngineResource } from "./kind-module.js";

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

/** `Kind namespace/name` of a resource, for messages and reference counts. */
export function resourceLabel(resource: EngineResource): string {
  return `${resource.kind} ${resource.metadata.namespace}/${resource.metadata.name}`;
}
