import { DEFAULT_CONSTANT_KEYWORD } from "../api/named-default.js";
import { isSchema, type JsonSchema, propertiesOf, requiredOf } from "./schema-fields.js";

const INDENT = "  ";

/** A property name as TypeScript writes it: bare when an identifier, else quoted. */
function propertyName(name: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) ? name : JSON.stringify(name);
}

/** `text` as the body of a doc comment: a `*\/` in a description would end the comment early. */
function commentSafe(text: string): string {
  return text.replaceAll("*/", "*\\/");
}

/** A field's default as the `@default` tag writes it: the value, and the constant it comes from when named. */
export function defaultText(schema: JsonSchema): string | undefined {
  if (!("default" in schema)) return undefined;
  const constant = schema[DEFAULT_CONSTANT_KEYWORD];
  const value = JSON.stringify(schema.default);
  return typeof constant === "string" ? `${value} (${constant})` : value;
}

/** The doc comment of a member or a declaration: its description, then its default. */
function docComment(schema: JsonSchema, indent: string): string {
  const lines: string[] = [];
  if (typeof schema.description === "string") lines.push(...commentSafe(schema.description).split("\n"));
  const defaulted = defaultText(schema);
  if (defaulted !== undefined) {
    if (lines.length > 0) lines.push("");
    lines.push(`@default ${commentSafe(defaulted)}`);
  }
  if (lines.length === 0) return "";
  const body = lines.map((line) => `${indent} *${line ? ` ${line}` : ""}`).join("\n");
  return `${indent}/**\n${body}\n${indent} */\n`;
}

/** Wraps a union in parentheses where a `[]` follows it. */
function element(type: string): string {
  return type.includes(" | ") && !type.startsWith("{") ? `(${type})` : type;
}

function literalUnion(values: readonly unknown[]): string {
  return values.map((value) => JSON.stringify(value)).join(" | ");
}

function objectType(schema: JsonSchema, indent: string, path: string): string {
  const properties = propertiesOf(schema);
  const values = schema.additionalProperties;
  if (properties.length === 0 && isSchema(values)) {
    const keys = isSchema(schema.propertyNames) ? schema.propertyNames.enum : undefined;
    const value = typeText(values, indent, `${path}.*`);
    return Array.isArray(keys) ? `{ [key in ${literalUnion(keys)}]?: ${value} }` : `{ [key: string]: ${value} }`;
  }
  if (properties.length === 0) throw new Error(`spec declarations: the object at ${path} has no properties`);
  const required = requiredOf(schema);
  const inner = indent + INDENT;
  const members = properties.map(([name, child]) => {
    const optional = required.has(name) ? "" : "?";
    const type = typeText(child, inner, `${path}.${name}`);
    return `${docComment(child, inner)}${inner}readonly ${propertyName(name)}${optional}: ${type};\n`;
  });
  return `{\n${members.join("")}${indent}}`;
}

/** The TypeScript type of a JSON Schema node; anything the kinds do not use is a generation error. */
export function typeText(schema: JsonSchema, indent: string, path: string): string {
  if (Array.isArray(schema.enum)) return literalUnion(schema.enum);
  if ("const" in schema) return JSON.stringify(schema.const);
  if (Array.isArray(schema.anyOf)) {
    return schema.anyOf.map((option, index) => typeText(option as JsonSchema, indent, `${path}|${index}`)).join(" | ");
  }
  switch (schema.type) {
    case "string":
      return "string";
    case "integer":
    case "number":
      return "number";
    case "boolean":
      return "boolean";
    case "array":
      if (!isSchema(schema.items)) throw new Error(`spec declarations: the list at ${path} has no items schema`);
      return `${element(typeText(schema.items, indent, `${path}[]`))}[]`;
    case "object":
      return objectType(schema, indent, path);
    default:
      throw new Error(`spec declarations: cannot express the schema at ${path}: ${JSON.stringify(schema)}`);
  }
}

/**
 * `export interface <name> { … }`, every member with its description and default as a doc comment: what an
 * editor shows for each field the user writes. Arrays stay mutable, as zod's input types have them, so
 * that the interface and `z.input` of its schema are assignable both ways (a test holds them to it).
 */
export function interfaceDeclaration(name: string, schema: JsonSchema, summary: string): string {
  if (schema.type !== "object") throw new Error(`spec declarations: ${name} is no object schema`);
  const body = objectType(schema, "", name);
  const description = typeof schema.description === "string" ? `${schema.description}\n\n${summary}` : summary;
  return `${docComment({ description }, "")}export interface ${name} ${body}\n`;
}
