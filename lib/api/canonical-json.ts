/**
 * JSON with object keys sorted and undefined members left out: equal for equal content, whatever the
 * order the keys were written in (the apiserver's, zod's, a program's).
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, member: unknown) =>
    member && typeof member === "object" && !Array.isArray(member)
      ? Object.fromEntries(Object.entries(member).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : member,
  );
}
