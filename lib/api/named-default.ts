import type * as z from "zod";

/**
 * The JSON Schema keyword that names the exported constant a field's default comes from. It never reaches
 * a CRD (lib/api/openapi.ts drops it); the generated declarations' `@default` and the reference pages read it.
 */
export const DEFAULT_CONSTANT_KEYWORD = "x-navique-default-constant";

/**
 * `schema` defaulting to the value of an exported constant, given by name and value at once:
 * `withDefault(quantity, { DEFAULT_POSTGRES_STORAGE_SIZE })`. Defaults are defined once, as exported
 * constants; this records which one, so that every document of the field names it beside the value.
 */
export function withDefault<T extends z.ZodType>(schema: T, constant: Readonly<Record<string, z.output<T>>>) {
  const [entry, ...more] = Object.entries(constant);
  if (!entry || more.length > 0) {
    throw new Error(`withDefault takes one constant, as { NAME }; received ${Object.keys(constant).length}`);
  }
  const [name, value] = entry;
  return schema.default(value as never).meta({ [DEFAULT_CONSTANT_KEYWORD]: name });
}
