/**
 * Whether a server-side apply would change nothing, judged from what the product's field manager last
 * applied — not from whether the object holds what is desired. A subset check ("every desired field is
 * there with its value") misses a field removed from the desired state: the object still holds it, every
 * field desired is there, yet the apply must run to remove it. The managed fields (`metadata.managedFields`,
 * the manager's FieldsV1 set) say which fields the manager set by its last apply; their values are the
 * object's own, since another writer that changes one takes it over (the field leaves the manager's set).
 * An apply changes nothing exactly when the desired object is that applied configuration.
 *
 * A Secret is compared as stored (lib/engine/stored-secret.ts): the `stringData` the manager applied is
 * never returned by a read, its keys are read where the apiserver put them, in `data`.
 *
 * Anything this cannot read for certain — no entry of the manager, another version, a path the object
 * no longer holds (a Secret seen without its data), a key form it does not know — answers "may change".
 */

import { isCoreSecret, storedFieldSet, storedForm } from "./stored-secret.js";

/** One entry of `metadata.managedFields`, as the apiserver returns it. */
interface ManagedFieldsEntry {
  readonly manager?: string;
  readonly operation?: string;
  readonly apiVersion?: string;
  readonly subresource?: string;
  readonly fieldsType?: string;
  readonly fieldsV1?: unknown;
}

/** A FieldsV1 set: `f:<field>`, `k:<keys JSON>`, `v:<value JSON>`, `i:<index>` or `.` (the node itself). */
type FieldSet = Readonly<Record<string, unknown>>;

/** Raised inside extraction when the set names something the object does not hold as expected. */
const UNREADABLE = Symbol("unreadable");

function isMap(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** JSON equality: maps whatever their key order, lists in order. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((item, i) => jsonEqual(item, b[i]));
  }
  if (isMap(a) || isMap(b)) {
    if (!isMap(a) || !isMap(b)) return false;
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((key) => key in b && jsonEqual(a[key], b[key]));
  }
  return a === b;
}

/** Whether a list element is the one a `k:` key names: each key field equal. */
function matchesKeys(element: unknown, keys: Record<string, unknown>): boolean {
  return isMap(element) && Object.entries(keys).every(([field, value]) => jsonEqual(element[field], value));
}

/** The index of the list member a `k:`, `v:` or `i:` key names; -1 when none, UNREADABLE for another form. */
function memberIndex(list: readonly unknown[], member: string): number | typeof UNREADABLE {
  const body = member.slice(2);
  try {
    switch (member.slice(0, 2)) {
      case "k:": {
        const keys = JSON.parse(body) as unknown;
        return isMap(keys) ? list.findIndex((element) => matchesKeys(element, keys)) : UNREADABLE;
      }
      case "v:": {
        const value = JSON.parse(body) as unknown;
        return list.findIndex((element) => jsonEqual(element, value));
      }
      case "i:":
        return /^\d+$/.test(body) && Number(body) < list.length ? Number(body) : -1;
      default:
        return UNREADABLE;
    }
  } catch {
    return UNREADABLE;
  }
}

/** The members of a list the set names, in the list's own order; UNREADABLE if one named is not there. */
function extractList(list: readonly unknown[], set: FieldSet): unknown[] | typeof UNREADABLE {
  const chosen = new Map<number, unknown>();
  for (const [member, sub] of Object.entries(set)) {
    if (member === ".") continue;
    const index = memberIndex(list, member);
    if (index === UNREADABLE || index < 0 || chosen.has(index)) return UNREADABLE;
    // A set member is its value; a keyed or indexed one, the part of it the set names.
    const element = member.startsWith("v:") ? list[index] : extract(list[index], sub);
    if (element === UNREADABLE) return UNREADABLE;
    chosen.set(index, element);
  }
  return [...chosen.entries()].sort(([a], [b]) => a - b).map(([, element]) => element);
}

/**
 * The part of `value` the set names. A set with nothing under it names the whole value (an atomic list,
 * a scalar, a map set whole).
 */
function extract(value: unknown, set: unknown): unknown {
  if (!isMap(set)) return UNREADABLE;
  const members = Object.keys(set).filter((member) => member !== ".");
  if (members.length === 0) return value;
  if (Array.isArray(value)) return extractList(value, set);
  if (!isMap(value)) return UNREADABLE;
  const out: Record<string, unknown> = {};
  for (const member of members) {
    if (!member.startsWith("f:")) return UNREADABLE;
    const field = member.slice(2);
    if (!(field in value)) return UNREADABLE;
    const part = extract(value[field], set[member]);
    if (part === UNREADABLE) return UNREADABLE;
    out[field] = part;
  }
  return out;
}

/**
 * What an apply sends beyond the object's identity, as JSON (undefined members dropped): apiVersion, kind,
 * name and namespace say which object, and are not among the fields a manager owns.
 */
function appliedContent(desired: object): Record<string, unknown> {
  const {
    apiVersion: _apiVersion,
    kind: _kind,
    metadata,
    ...rest
  } = JSON.parse(JSON.stringify(desired)) as Record<string, unknown>;
  const { name: _name, namespace: _namespace, ...meta } = (isMap(metadata) ? metadata : {}) as Record<string, unknown>;
  return Object.keys(meta).length > 0 ? { ...rest, metadata: meta } : rest;
}

/**
 * The configuration `manager` last applied to `live` (its fields, with the object's values), or undefined
 * when it cannot be read for certain: no Apply entry of the manager for the object's main resource in
 * `apiVersion`, or a set the object does not match. Of a Secret (`kind`), as stored: what the manager
 * applied as `stringData` is read in `data`.
 */
export function lastApplied(
  live: object,
  manager: string,
  apiVersion: string,
  kind?: string,
): Record<string, unknown> | undefined {
  const metadata = (live as { metadata?: { managedFields?: readonly ManagedFieldsEntry[] } }).metadata;
  const entries = (metadata?.managedFields ?? []).filter(
    (entry) => entry.manager === manager && entry.operation === "Apply" && !entry.subresource,
  );
  const [entry, ...others] = entries;
  if (!entry || others.length > 0) return undefined;
  if (entry.apiVersion !== apiVersion || (entry.fieldsType ?? "FieldsV1") !== "FieldsV1") return undefined;
  const set = isCoreSecret({ apiVersion, kind }) ? storedFieldSet(entry.fieldsV1) : entry.fieldsV1;
  const applied = extract(JSON.parse(JSON.stringify(live)) as unknown, set);
  return applied === UNREADABLE || !isMap(applied) ? undefined : applied;
}

/**
 * Whether a server-side apply of `desired` by `manager` would change nothing on `live`: the manager's last
 * applied configuration is exactly `desired` (a Secret's, as stored). False whenever that cannot be known
 * (see lastApplied).
 */
export function applyChangesNothing(desired: object, live: object | undefined, manager: string): boolean {
  if (!live) return false;
  const { apiVersion = "", kind } = desired as { apiVersion?: string; kind?: string };
  const applied = lastApplied(live, manager, apiVersion, kind);
  return applied !== undefined && jsonEqual(applied, appliedContent(storedForm(desired)));
}
