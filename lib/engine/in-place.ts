import { keyOf } from "./objects.js";
import type { PlanStep } from "./steps.js";
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

/** A Secret's `stringData` as the apiserver stores it: base64 in `data`. */
function stored(object: object): object {
  const { stringData, ...rest } = object as { stringData?: Record<string, string>; data?: Record<string, string> };
  if (!stringData) return object;
  const encoded = Object.fromEntries(
    Object.entries(stringData).map(([key, value]) => [key, Buffer.from(value, "utf8").toString("base64")]),
  );
  return { ...rest, data: { ...rest.data, ...encoded } };
}

/**
 * Whether a step would change nothing in the cluster as observed: an apply whose object is there with
 * every field it sets, or a generated Secret already there (never overwritten). Deletions, releases,
 * installs and the finalizer's removal always change something. The preview leaves such steps out, so
 * that it shows decisions only where something would change.
 */
export function changesNothing(step: PlanStep, view: EngineView): boolean {
  switch (step.kind) {
    case "apply": {
      const live = view.objects.get(keyOf(step.object));
      return live !== undefined && holds(live, stored(step.object));
    }
    case "generate-secret":
      return view.objects.has(keyOf(step.object));
    default:
      return false;
  }
}
