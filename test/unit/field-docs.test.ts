import { readFileSync } from "node:fs";
import { join } from "node:path";
import * as z from "zod";
import { DEFAULT_CONSTANT_KEYWORD, withDefault } from "../../lib/api/named-default.js";
import { fieldDocFiles, referencePagePath } from "../../lib/docs/field-doc-files.js";
import { inputJsonSchema, schemaFields } from "../../lib/docs/schema-fields.js";
import { interfaceDeclaration } from "../../lib/docs/spec-declaration.js";
import * as core from "../../lib/index.js";
import { allCustomResourceDefinitions, allDefinitions, REGISTRY } from "../../lib/kinds/registry.js";

/** What the package's core entry point exports: where a default a document names must be found. */
const EXPORTED: Readonly<Record<string, unknown>> = core;

type Node = Record<string, unknown>;

/** Every property under a CRD schema node without a description, by path: what `kubectl explain` would leave blank. */
function undocumented(node: Node, path: string): string[] {
  const missing: string[] = [];
  const properties = (node.properties ?? {}) as Record<string, Node>;
  for (const [name, child] of Object.entries(properties)) {
    if (typeof child.description !== "string" || child.description.trim() === "") missing.push(`${path}.${name}`);
    missing.push(...undocumented(child, `${path}.${name}`));
  }
  if (node.items) missing.push(...undocumented(node.items as Node, `${path}[]`));
  if (node.additionalProperties) missing.push(...undocumented(node.additionalProperties as Node, `${path}.*`));
  return missing;
}

/** Every field of a kind's spec and status, as the generated documents list them. */
function fieldsOf(kind: string) {
  const definition = allDefinitions().find((d) => d.kind === kind);
  if (!definition) throw new Error(`no kind ${kind} in the registry`);
  return [
    ...schemaFields(inputJsonSchema(definition.spec), "spec"),
    ...(definition.status ? schemaFields(inputJsonSchema(definition.status), "status") : []),
  ];
}

const KINDS = allDefinitions().map((d) => d.kind);

describe("every field of every kind", () => {
  it.each(allCustomResourceDefinitions().map((crd) => [crd.spec.names.kind, crd] as const))(
    "%s: every field of its spec and status has a description (kubectl explain, the declarations and the reference page show it)",
    (_kind, crd) => {
      const root = crd.spec.versions[0]?.schema.openAPIV3Schema as unknown as { properties: Record<string, Node> };
      const missing = ["spec", "status"].flatMap((part) =>
        root.properties[part] ? undocumented(root.properties[part], part) : [],
      );
      expect(missing).toEqual([]);
    },
  );

  it.each(KINDS)(
    "%s: a scalar default is a constant of that very value, named in the schema and exported by @navique/ai-core",
    (kind) => {
      const wrong = fieldsOf(kind)
        .filter(
          (field) =>
            field.hasDefault && (field.defaultConstant !== undefined || typeof field.defaultValue !== "object"),
        )
        .filter(
          (field) =>
            field.defaultConstant === undefined ||
            EXPORTED[field.defaultConstant] === undefined ||
            JSON.stringify(EXPORTED[field.defaultConstant]) !== JSON.stringify(field.defaultValue),
        )
        .map(
          (field) =>
            `${field.path}: default ${JSON.stringify(field.defaultValue)} from ${field.defaultConstant ?? "no named constant"}`,
        );
      expect(wrong).toEqual([]);
    },
  );

  it.each(KINDS)(
    "%s: a field with a default says it in its description, with the value when it is one word",
    (kind) => {
      const silent = fieldsOf(kind)
        .filter((field) => field.hasDefault && field.path.startsWith("spec."))
        .filter((field) => {
          const text = field.description ?? "";
          const value = typeof field.defaultValue === "object" ? "" : String(field.defaultValue);
          return !/default/i.test(text) || !text.includes(value);
        })
        .map((field) => `${field.path} (default ${JSON.stringify(field.defaultValue)}): ${field.description}`);
      expect(silent).toEqual([]);
    },
  );
});

describe("the files generated from the schemas and the registry", () => {
  it("match the files committed — spec and outputs declarations, reference pages, each front end's classes (regenerate with npm run generate)", () => {
    const files = fieldDocFiles();
    const fileName = (kind: string) => kind.replace(/([a-z])([A-Z])/g, "$1-$2").toLowerCase();
    expect([...files.keys()].sort()).toEqual(
      [
        ...KINDS.flatMap((kind) => [
          `docs/reference/${fileName(kind)}.md`,
          `lib/api/generated/${fileName(kind)}-spec.ts`,
        ]),
        ...REGISTRY.kinds.map((m) => `lib/api/generated/${fileName(m.definition.kind)}-outputs.ts`),
        "constructs/kinds.ts",
        "providers/pulumi/kinds.ts",
      ].sort(),
    );
    for (const [path, text] of files) expect(readFileSync(join(process.cwd(), path), "utf8")).toBe(text);
  });

  it("are linked from the README, one page per kind", () => {
    const readme = readFileSync(join(process.cwd(), "README.md"), "utf8");
    const missing = allDefinitions()
      .map(referencePagePath)
      .filter((path) => !readme.includes(`](${path})`));
    expect(missing).toEqual([]);
  });
});

describe("a default named by its constant", () => {
  it("is the constant's value, and its name is in the JSON Schema the documents read, never in a CRD", () => {
    const DEFAULT_PORT = 6379;
    const port = withDefault(z.number().int(), { DEFAULT_PORT });
    expect(port.parse(undefined)).toBe(6379);
    expect(inputJsonSchema(port)).toMatchObject({ default: 6379, [DEFAULT_CONSTANT_KEYWORD]: "DEFAULT_PORT" });
    expect(JSON.stringify(allCustomResourceDefinitions())).not.toContain(DEFAULT_CONSTANT_KEYWORD);
  });

  it("takes one constant: anything else is refused, saying how to write it", () => {
    expect(() => withDefault(z.number(), { A: 1, B: 2 })).toThrow(
      "withDefault takes one constant, as { NAME }; received 2",
    );
  });
});

describe("a generated spec interface", () => {
  it("documents each member with its description and default, quotes a name that is no identifier, and cannot be cut short by */", () => {
    const DEFAULT_LEVEL = 2;
    const schema = z
      .object({
        "log-level": withDefault(z.number().int(), { DEFAULT_LEVEL }).describe(
          "How much to log; a comment ends with */.",
        ),
        tags: z.array(z.enum(["a", "b"])).describe("Tags."),
      })
      .strict()
      .describe("Root.");
    expect(interfaceDeclaration("Example", inputJsonSchema(schema), "Summary.")).toBe(
      [
        "/**",
        " * Root.",
        " *",
        " * Summary.",
        " */",
        "export interface Example {",
        "  /**",
        "   * How much to log; a comment ends with *\\/.",
        "   *",
        "   * @default 2 (DEFAULT_LEVEL)",
        "   */",
        '  readonly "log-level"?: number;',
        "  /**",
        "   * Tags.",
        "   */",
        '  readonly tags: ("a" | "b")[];',
        "}",
        "",
      ].join("\n"),
    );
  });

  it("refuses a schema it cannot express, naming the field", () => {
    const schema = z.object({ port: z.number().nullable().describe("Port.") }).strict();
    expect(() => interfaceDeclaration("Example", inputJsonSchema(schema), "Summary.")).toThrow(
      'spec declarations: cannot express the schema at Example.port: {"description":"Port.","type":["number","null"]}',
    );
  });
});
