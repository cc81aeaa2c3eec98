import * as z from "zod";
import { DEFAULT_CONSTANT_KEYWORD } from "./named-default.js";

/** A JSON value, as JSON Schema and Kubernetes' JSONSchemaProps hold them. */
type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

/** The subset of Kubernetes' JSONSchemaProps this project emits; anything else is a generation error. */
const PASSED_THROUGH = new Set([
  "type",
  "description",
  "default",
  "enum",
  "minimum",
  "maximum",
  "minLength",
  "maxLength",
  "pattern",
  "minItems",
  "maxItems",
  "format",
  "x-kubernetes-validations",
  "x-kubernetes-preserve-unknown-fields",
  "x-kubernetes-list-type",
  "x-kubernetes-list-map-keys",
  "x-kubernetes-map-type",
]);

const UNBOUNDED_INTEGER = Number.MAX_SAFE_INTEGER;

function isObject(value: Json | undefined): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A union of string literals (zod emits `anyOf` of `const`) becomes a string `enum`. */
function literalUnion(schema: JsonObject): Json[] | undefined {
  const options = schema.anyOf;
  if (!Array.isArray(options)) return undefined;
  const values: Json[] = [];
  for (const option of options) {
    if (!isObject(option) || option.const === undefined) return undefined;
    values.push(option.const);
  }
  return values;
}

type KeywordHandler = (value: Json, out: JsonObject, path: string) => void;

/** Keywords that need translating; every other keyword must be in PASSED_THROUGH. */
const TRANSLATED: Record<string, KeywordHandler> = {
  $schema: () => {},
  // Which exported constant a default comes from: for the declarations and reference pages, not the apiserver.
  [DEFAULT_CONSTANT_KEYWORD]: () => {},
  const: (value, out) => {
    out.enum = [value];
  },
  // Structural schemas prune unknown fields; `false` is not accepted, a schema is (maps).
  additionalProperties: (value, out, path) => {
    if (isObject(value)) out.additionalProperties = convert(value, `${path}.*`);
  },
  properties: (value, out, path) => {
    if (!isObject(value)) return;
    const properties: JsonObject = {};
    for (const [name, child] of Object.entries(value)) {
      if (isObject(child)) properties[name] = convert(child, `${path}.${name}`);
    }
    out.properties = properties;
  },
  required: (value, out) => {
    if (Array.isArray(value) && value.length > 0) out.required = value;
  },
  items: (value, out, path) => {
    if (isObject(value)) out.items = convert(value, `${path}[]`);
  },
  // zod bounds every integer to the safe range; the apiserver needs no such bound.
  maximum: (value, out) => {
    if (value !== UNBOUNDED_INTEGER) out.maximum = value;
  },
  minimum: (value, out) => {
    if (value !== -UNBOUNDED_INTEGER) out.minimum = value;
  },
};

/**
 * A record keyed by an enum (zod's partialRecord) becomes an object with one optional property per key:
 * structural schemas have no `propertyNames`, and the apiserver then prunes any other key.
 */
function enumKeyedRecord(schema: JsonObject, path: string): JsonObject | undefined {
  const names = isObject(schema.propertyNames) ? schema.propertyNames.enum : undefined;
  if (!Array.isArray(names) || !isObject(schema.additionalProperties)) return undefined;
  const valueSchema = schema.additionalProperties;
  const { propertyNames: _names, additionalProperties: _values, ...rest } = schema;
  const properties: JsonObject = {};
  for (const name of names) properties[String(name)] = valueSchema;
  return convert({ ...rest, properties }, path);
}

function convert(schema: JsonObject, path: string): JsonObject {
  const record = enumKeyedRecord(schema, path);
  if (record) return record;
  const out: JsonObject = {};
  const literals = literalUnion(schema);
  if (literals) {
    out.type = typeof literals[0] === "string" ? "string" : "integer";
    out.enum = literals;
  }
  for (const [key, value] of Object.entries(schema)) {
    if (key === "anyOf" && literals) continue;
    const handler = TRANSLATED[key];
    if (handler) handler(value, out, path);
    else if (PASSED_THROUGH.has(key)) out[key] = value;
    else
      throw new Error(`cannot express JSON Schema keyword "${key}" at ${path || "<root>"} in a structural CRD schema`);
  }
  return out;
}

/**
 * Converts a zod schema into a structural OpenAPI v3 schema for a CustomResourceDefinition: the zod
 * schema stays the single source of truth, descriptions feed `kubectl explain`, defaults and bounds are
 * enforced by the apiserver too, and CEL rules given as `x-kubernetes-validations` metadata pass through.
 */
export function structuralSchema(schema: z.ZodType): JsonObject {
  const jsonSchema = z.toJSONSchema(schema, {
    io: "input",
    unrepresentable: "throw",
    reused: "inline",
    cycles: "throw",
  });
  return convert(jsonSchema as JsonObject, "");
}
