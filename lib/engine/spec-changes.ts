import { canonicalJson } from "../api/canonical-json.js";

/** A value as a decision line shows it: JSON, short. */
function shown(value: unknown): string {
  if (value === undefined) return "unset";
  const text = JSON.stringify(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/** The paths (`spec.managed.instances`) where two specs differ, each with its value before and after, in key order. */
function differences(before: unknown, after: unknown, path: string): string[] {
  const isObject = (value: unknown) => value !== null && typeof value === "object" && !Array.isArray(value);
  if (isObject(before) && isObject(after)) {
    const [b, a] = [before as Record<string, unknown>, after as Record<string, unknown>];
    const keys = [...new Set([...Object.keys(b), ...Object.keys(a)])].sort();
    return keys.flatMap((key) => differences(b[key], a[key], `${path}.${key}`));
  }
  if (canonicalJson(before) === canonicalJson(after)) return [];
  return [`${path} from ${shown(before)} to ${shown(after)}`];
}

/**
 * What a change of a live resource's spec changes, field by field: `spec.managed.instances from 3 to 1`.
 * Empty when the specs agree. Both are parsed specs (defaults written out), so a field left to its
 * default on one side and written on the other is no difference. A spec holds no secret (only the names
 * of the Secrets that do), so its values may be shown.
 */
export function specChanges(live: unknown, desired: unknown): string[] {
  return differences(live, desired, "spec");
}
