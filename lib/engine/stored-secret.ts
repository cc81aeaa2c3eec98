/**
 * A Secret's `stringData` is written, never stored: the apiserver merges it into `data`, base64-encoded
 * (its values win over `data`'s under the same key), and a read returns `data` alone. The kinds write
 * their Secrets with `stringData`; whatever compares them with what is stored compares this form.
 */

/** Whether an object (desired or read) is a core Secret, the one kind with `stringData`. */
export function isCoreSecret(object: { readonly apiVersion?: string; readonly kind?: string }): boolean {
  return object.apiVersion === "v1" && object.kind === "Secret";
}

/** A Secret as the apiserver stores what it says: `stringData` encoded into `data`. Any other object as it is. */
export function storedForm<T extends object>(object: T): T {
  if (!isCoreSecret(object)) return object;
  const { stringData, ...rest } = object as { stringData?: Record<string, string>; data?: Record<string, string> };
  if (!stringData) return object;
  const encoded = Object.fromEntries(
    Object.entries(stringData).map(([key, value]) => [key, Buffer.from(value, "utf8").toString("base64")]),
  );
  return { ...rest, data: { ...rest.data, ...encoded } } as T;
}

/**
 * A FieldsV1 set of a Secret with the `stringData` keys a manager applied moved to where they are stored,
 * under `f:data`: the manager's `stringData` entries name the stored `data` keys, which hold their values.
 */
export function storedFieldSet(set: unknown): unknown {
  if (set === null || typeof set !== "object" || Array.isArray(set)) return set;
  const { "f:stringData": written, ...rest } = set as Record<string, unknown>;
  if (written === null || typeof written !== "object" || Array.isArray(written)) return set;
  const data = rest["f:data"];
  const merged = data !== null && typeof data === "object" && !Array.isArray(data) ? { ...data, ...written } : written;
  return { ...rest, "f:data": merged };
}
