import fc from "fast-check";
import type * as z from "zod";
import { structuralSchema } from "../../lib/api/openapi.js";

/** The part of a CRD's OpenAPI schema the generator reads: what the apiserver judges a value by. */
interface OpenApiSchema {
  readonly type?: string;
  readonly properties?: Readonly<Record<string, OpenApiSchema>>;
  readonly items?: OpenApiSchema;
  readonly required?: readonly string[];
  readonly enum?: readonly unknown[];
  readonly minimum?: number;
  readonly maximum?: number;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly pattern?: string;
  readonly minItems?: number;
  readonly maxItems?: number;
  readonly "x-kubernetes-list-map-keys"?: readonly string[];
  readonly "x-kubernetes-list-type"?: string;
}

/** A spec that the kind's schema refuses for one reason, at one field. */
export interface MalformedSpec {
  readonly kind: string;
  /** What was broken, for the test's messages. */
  readonly what: string;
  /** The field every front end must name in its refusal (`spec.managed.instances`, `spec.databases[2]`). */
  readonly field: string;
  /** Whether the fault is a field the spec does not declare (a construct's props cannot always carry one). */
  readonly unknownField: boolean;
  readonly spec: Record<string, unknown>;
}

type Segment = string | number;

function pathText(segments: readonly Segment[]): string {
  return segments.reduce<string>(
    (text, segment) => (typeof segment === "number" ? `${text}[${segment}]` : `${text}.${segment}`),
    "spec",
  );
}

/** `base` with the value at `segments` replaced (undefined: removed); a deep copy, `base` untouched. */
function withValue(base: unknown, segments: readonly Segment[], value: unknown): Record<string, unknown> {
  const copy = structuredClone(base) as Record<string, unknown>;
  let holder = copy as Record<Segment, unknown>;
  for (const segment of segments.slice(0, -1)) holder = holder[segment] as Record<Segment, unknown>;
  const last = segments[segments.length - 1] as Segment;
  if (value === undefined) delete holder[last];
  else holder[last] = value;
  return copy;
}

/** Whether `value` breaks the string schema's own bounds or pattern: computed from the CRD, not from zod. */
function breaksString(schema: OpenApiSchema, value: string): boolean {
  const length = [...value].length;
  if (schema.enum) return !schema.enum.includes(value);
  if (schema.minLength !== undefined && length < schema.minLength) return true;
  if (schema.maxLength !== undefined && length > schema.maxLength) return true;
  return schema.pattern !== undefined && !new RegExp(schema.pattern, "u").test(value);
}

/** Strings a hostile or careless author writes: shell, line breaks, control and bidi characters, huge ones. */
function hostileStrings(schema: OpenApiSchema): fc.Arbitrary<string> {
  const longest = schema.maxLength ?? 200_000;
  return fc
    .oneof(
      fc.constantFrom(
        "a;rm -rf /",
        "$(reboot)",
        "line\nbreak",
        "tab\there",
        "\u202eevil",
        "nul\u0000byte",
        " ",
        "Ünïcode",
        "a".repeat(200_000),
      ),
      fc.string({ unit: "binary", minLength: 1, maxLength: 40 }),
      fc.constant("a".repeat(longest + 1)),
      fc.constant(""),
    )
    .filter((value) => breaksString(schema, value));
}

/** Values of another JSON type than the schema's. */
function wrongTypes(type: string | undefined): unknown[] {
  const all: Record<string, unknown> = { string: "text", integer: 1.5, boolean: "true", object: "text", array: "text" };
  const others = [42, true, ["x"], { x: 1 }, "text"];
  const wrong = others.filter((value) => {
    if (type === "string") return typeof value !== "string";
    if (type === "integer" || type === "number") return typeof value !== "number";
    if (type === "boolean") return typeof value !== "boolean";
    if (type === "array") return !Array.isArray(value);
    if (type === "object") return typeof value !== "object" || Array.isArray(value);
    return false;
  });
  return type === "integer" ? [all.integer, ...wrong] : wrong;
}

/** Where a value is broken: the kind, the valid spec it is broken in, its path, and how a case is made. */
interface Site {
  readonly kind: string;
  readonly base: Record<string, unknown>;
  readonly segments: readonly Segment[];
  /** A case: what was broken, the spec so broken, the field to name (this one unless said), whether unknown. */
  readonly at: (what: string, broken: Record<string, unknown>, named?: string, unknownField?: boolean) => MalformedSpec;
}

function siteOf(kind: string, base: Record<string, unknown>, segments: readonly Segment[]): Site {
  const field = pathText(segments);
  return {
    kind,
    base,
    segments,
    at: (what, broken, named = field, unknownField = false) => ({
      kind,
      what: `${field}: ${what}`,
      field: named,
      unknownField,
      spec: broken,
    }),
  };
}

function integerBreakages(site: Site, schema: OpenApiSchema): fc.Arbitrary<MalformedSpec>[] {
  const { base, segments, at } = site;
  const found: fc.Arbitrary<MalformedSpec>[] = [];
  if (schema.minimum !== undefined) {
    const minimum = schema.minimum;
    found.push(
      fc
        .integer({ min: minimum - 1000, max: minimum - 1 })
        .map((n) => at(`${n}, below ${minimum}`, withValue(base, segments, n))),
    );
  }
  if (schema.maximum !== undefined) {
    const maximum = schema.maximum;
    found.push(
      fc
        .integer({ min: maximum + 1, max: maximum + 1000 })
        .map((n) => at(`${n}, above ${maximum}`, withValue(base, segments, n))),
    );
  }
  return found;
}

function objectBreakages(
  site: Site,
  schema: OpenApiSchema,
  object: Record<string, unknown>,
): fc.Arbitrary<MalformedSpec>[] {
  const { kind, base, segments, at } = site;
  const properties = schema.properties ?? {};
  const found: fc.Arbitrary<MalformedSpec>[] = [
    fc
      .constantFrom("replicaz", "extra", "Name", `${Object.keys(object)[0] ?? "x"}s`)
      .filter((key) => properties[key] === undefined)
      .map((key) =>
        at(`unknown field ${key}`, withValue(base, [...segments, key], "x"), pathText([...segments, key]), true),
      ),
  ];
  for (const required of schema.required ?? []) {
    if (object[required] === undefined) continue;
    const missing = pathText([...segments, required]);
    found.push(
      fc.constant(at(`required ${missing} removed`, withValue(base, [...segments, required], undefined), missing)),
    );
  }
  for (const [key, child] of Object.entries(properties)) {
    if (object[key] !== undefined) found.push(...breakages(kind, base, child, object[key], [...segments, key]));
  }
  return found;
}

function arrayBreakages(site: Site, schema: OpenApiSchema, items: readonly unknown[]): fc.Arbitrary<MalformedSpec>[] {
  const { kind, base, segments, at } = site;
  const keys = schema["x-kubernetes-list-map-keys"];
  const found: fc.Arbitrary<MalformedSpec>[] = [];
  // A keyed list, or a set: an item written again is refused at the index of the repetition.
  if (keys || schema["x-kubernetes-list-type"] === "set") {
    const twice = withValue(base, segments, [...items, items[0]]);
    found.push(fc.constant(at(`item ${JSON.stringify(items[0])} twice`, twice, pathText([...segments, items.length]))));
  }
  if (schema.maxItems !== undefined) {
    const many = Array.from({ length: schema.maxItems + 1 }, (_, index) =>
      keys ? { ...(items[0] as object), ...Object.fromEntries(keys.map((key) => [key, `item_${index}`])) } : items[0],
    );
    found.push(fc.constant(at(`${many.length} items, above ${schema.maxItems}`, withValue(base, segments, many))));
  }
  if (schema.minItems !== undefined && schema.minItems > 0) {
    found.push(fc.constant(at("no item", withValue(base, segments, []))));
  }
  if (schema.items) found.push(...breakages(kind, base, schema.items, items[0], [...segments, 0]));
  return found;
}

/** Every way to break `value` at `segments`, by what its schema says, each an arbitrary of malformed specs. */
function breakages(
  kind: string,
  base: Record<string, unknown>,
  schema: OpenApiSchema,
  value: unknown,
  segments: readonly Segment[],
): fc.Arbitrary<MalformedSpec>[] {
  const site = siteOf(kind, base, segments);
  const found: fc.Arbitrary<MalformedSpec>[] = [];
  if (segments.length > 0) {
    found.push(
      fc
        .constantFrom(...wrongTypes(schema.type))
        .map((wrong) =>
          site.at(`${JSON.stringify(wrong)} where ${schema.type} belongs`, withValue(base, segments, wrong)),
        ),
    );
  }
  if (schema.type === "integer") found.push(...integerBreakages(site, schema));
  if (schema.type === "string") {
    found.push(
      hostileStrings(schema).map((text) =>
        site.at(
          `${JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text)} (${text.length} characters)`,
          withValue(base, segments, text),
        ),
      ),
    );
  }
  if (schema.type === "object" && typeof value === "object" && value !== null && !Array.isArray(value)) {
    found.push(...objectBreakages(site, schema, value as Record<string, unknown>));
  }
  if (schema.type === "array" && Array.isArray(value) && value.length > 0) {
    found.push(...arrayBreakages(site, schema, value));
  }
  return found;
}

/**
 * Malformed specs of `kind`, generated from its schema as the CRD states it (types, bounds, patterns,
 * enums, required and unknown fields, keyed lists) over valid `bases` (one per mode: a field is broken
 * where a valid spec has it): one arbitrary per way to break one field, so that a test samples each of them
 * rather than leaving a field to chance. Each case is refused for the reason it names, by the CRD's rules.
 */
export function malformedSpecs(
  kind: string,
  spec: z.ZodType,
  bases: readonly Record<string, unknown>[],
): fc.Arbitrary<MalformedSpec>[] {
  const schema = structuralSchema(spec) as OpenApiSchema;
  return bases.flatMap((base) => breakages(kind, base, schema, base, []));
}

/** The string fields of a spec schema that are free-form: neither an enum, nor both bounded and patterned. */
export function unjudgedStrings(spec: z.ZodType): string[] {
  const walk = (schema: OpenApiSchema, path: string): string[] => {
    if (schema.type === "string") {
      return schema.enum || (schema.maxLength !== undefined && schema.pattern !== undefined) ? [] : [path];
    }
    if (schema.type === "array" && schema.items) return walk(schema.items, `${path}[]`);
    return Object.entries(schema.properties ?? {}).flatMap(([key, child]) => walk(child, `${path}.${key}`));
  };
  return walk(structuralSchema(spec) as OpenApiSchema, "spec");
}
