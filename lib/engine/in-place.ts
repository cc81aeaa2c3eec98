import { keyOf } from "./objects.js";
import type { PlanStep } from "./steps.js";
import { storedForm } from "./stored-secret.js";
import type { EngineView } from "./view.js";

/**
 * Whether `live` already holds every field `desired` sets, with the same value: what a server-side apply
 * of `desired` would leave as it is. Fields the server or another manager added (defaults, status,
 * managedFields) do not count; lists compare element by element, as apply replaces an atomic list.
 */
function holds(live: unknown, desired: unknown): boolean {
  if (Array.isArray(desired)) {
    return (
      Array.isArray(live) && live.length === desired.length && desired.every((item, index) => holds(live[index], item))
    );
  }
  if (desired !== null && typeof desired === "object") {
    if (live === null || typeof live !== "object" || Array.isArray(live)) return false;
    const object = live as Record<string, unknown>;
    return Object.entries(desired).every(([key, value]) => value === undefined || holds(object[key], value));
  }
  return live === desired;
}

/**
 * Whether a step would change nothing in the cluster as observed: an apply whose object is there with
 * every field it sets, a generated Secret already there (never overwritten), or a workload release its
 * step found current (lib/engine/workload-release.ts: no helm is run, no revision written). Deletions,
 * retained objects, installs and the finalizer's removal always change something. The preview leaves
 * such steps out, so that it shows decisions only where something would change; the executor skips a
 * generated Secret and a workload release by this same rule (lib/engine/execute.ts). An apply it sends
 * unless it knows the apply changes nothing (lib/engine/applied-fields.ts), and the apiserver has the
 * last word on whether it changed anything.
 */
export function changesNothing(step: PlanStep, view: EngineView): boolean {
  switch (step.kind) {
    case "apply": {
      const live = view.objects.get(keyOf(step.object));
      return live !== undefined && holds(live, storedForm(step.object));
    }
    case "generate-secret":
      return view.objects.has(keyOf(step.object));
    case "workload-release":
      return step.current;
    default:
      return false;
  }
}
