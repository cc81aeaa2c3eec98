import * as z from "zod";
import { DEFAULT_CONSTANT_KEYWORD } from "../api/named-default.js";

/** A JSON Schema node, as zod's toJSONSchema writes it. */
export type JsonSchema = { readonly [keyword: string]: unknown };

/**
 * A part of a kind (its spec, its status) as JSON Schema, input side: what a user writes, a field with a
 * default optional. The same conversion the CRDs start from (lib/api/openapi.ts), so every document of
 * a field reads the one description the CRD carries.
 */
export function inputJsonSchema(schema: z.ZodType): JsonSchema {
  return z.toJSONSchema(schema, {
    io: "input",
    unrepresentable: "throw",
    reused: "inline",
    cycles: "throw",
  }) as JsonSchema;
}

/** One field of a kind, as its documents show it. */
export interface SchemaField {
  /** Where it is: `spec.managed.storage.size`; `[]` for an item of a list, `.*` for a value of a map. */
  readonly path: string;
  readonly schema: JsonSchema;
  /** Whether a user must write it (a field with a default never is). */
  readonly required: boolean;
  readonly description: string | undefined;
  /** Whether the schema fills it in when it is left out; then `defaultValue` is what it fills in. */
  readonly hasDefault: boolean;
  readonly defaultValue: unknown;
  /** The exported constant the default comes from, when the schema names it (lib/api/named-default.ts). */
  readonly defaultConstant: string | undefined;
}

export function isSchema(value: unknown): value is JsonSchema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The properties of an object node, by name. */
export function propertiesOf(schema: JsonSchema): [string, JsonSchema][] {
  const properties = isSchema(schema.properties) ? schema.properties : {};
  return Object.entries(properties).filter((entry): entry is [string, JsonSchema] => isSchema(entry[1]));
}

/** The names of an object node's required properties. */
export function requiredOf(schema: JsonSchema): ReadonlySet<string> {
  return new Set(Array.isArray(schema.required) ? schema.required.map(String) : []);
}

/** The node whose fields a field holds: itself for an object, its items for a list, its values for a map. */
function nested(schema: JsonSchema, path: string): [JsonSchema, string][] {
  if (isSchema(schema.items)) return [[schema.items, `${path}[]`]];
  if (isSchema(schema.additionalProperties) && schema.properties === undefined) {
    return [[schema.additionalProperties, `${path}.*`]];
  }
  return [[schema, path]];
}

/**
 * Every field under `schema`, depth first in the schema's order, each object's own fields after it: the
 * fields of list items (`spec.databases[].name`) and of map values (`status.caps.*`) included.
 */
export function schemaFields(schema: JsonSchema, root: string): SchemaField[] {
  const fields: SchemaField[] = [];
  const walk = (node: JsonSchema, path: string) => {
    const required = requiredOf(node);
    for (const [name, child] of propertiesOf(node)) {
      const childPath = `${path}.${name}`;
      fields.push({
        path: childPath,
        schema: child,
        required: required.has(name),
        description: typeof child.description === "string" ? child.description : undefined,
        hasDefault: "default" in child,
        defaultValue: child.default,
        defaultConstant:
          typeof child[DEFAULT_CONSTANT_KEYWORD] === "string" ? child[DEFAULT_CONSTANT_KEYWORD] : undefined,
      });
      for (const [inner, innerPath] of nested(child, childPath)) walk(inner, innerPath);
    }
  };
  for (const [inner, innerPath] of nested(schema, root)) walk(inner, innerPath);
  return fields;
}
