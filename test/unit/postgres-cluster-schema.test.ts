import { parseInput, ValidationError } from "../../lib/api/validation.js";
import { POSTGRES_SPEC_RULES, PostgresClusterSpec } from "../../lib/kinds/postgres-cluster/schema.js";
import { allCustomResourceDefinitions } from "../../lib/kinds/registry.js";

function problems(input: unknown): { path: string; message: string; received?: string }[] {
  try {
    parseInput(PostgresClusterSpec, input, "PostgresCluster team-a/main", "spec");
  } catch (error) {
    if (error instanceof ValidationError) return [...error.problems];
    throw error;
  }
  throw new Error("expected the input to be refused");
}

describe("PostgresCluster spec schema", () => {
  it("applies the documented defaults", () => {
    expect(parseInput(PostgresClusterSpec, {}, "x")).toEqual({ type: "cnpg", mode: "managed", databases: [] });
    expect(parseInput(PostgresClusterSpec, { managed: {} }, "x").managed).toEqual({
      instances: 1,
      storage: { size: "10Gi" },
      deletionPolicy: "Retain",
    });
  });

  it("names the field, the allowed values and the value received", () => {
    expect(problems({ mode: "adopted" })).toEqual([
      { path: "spec.mode", message: 'expected one of "managed", "adopt", "external"', received: '"adopted"' },
    ]);
  });

  it("suggests the intended field for a misspelt one", () => {
    expect(problems({ databses: [] })).toEqual([
      { path: "spec.databses", message: 'unknown field; remove it (did you mean "databases"?)' },
    ]);
  });

  it("locates nested problems by index and states bounds", () => {
    expect(problems({ managed: { instances: 0 }, databases: [{ name: "ok" }, { name: "Bad-Name" }] })).toEqual([
      {
        path: "spec.databases[1].name",
        message: expect.stringContaining("must be a PostgreSQL identifier"),
        received: '"Bad-Name"',
      },
      { path: "spec.managed.instances", message: "must be >= 1", received: "0" },
    ]);
  });

  it("refuses a mode without its block, and a block without its mode, saying what to write", () => {
    expect(problems({ mode: "adopt" })).toEqual([
      {
        path: "spec.adopt",
        message:
          "spec.adopt is required when spec.mode is adopt: set spec.adopt.clusterRef and spec.adopt.credentialsSecretRef",
      },
    ]);
    expect(problems({ mode: "external", managed: {}, external: { connectionSecretRef: { name: "db" } } })).toEqual([
      {
        path: "spec.managed",
        message:
          "spec.managed is only allowed when spec.mode is managed: remove spec.managed or set spec.mode: managed",
      },
    ]);
  });

  it("refuses duplicate database names", () => {
    expect(problems({ databases: [{ name: "a" }, { name: "a" }] })).toEqual([
      {
        path: "spec.databases[1].name",
        message: 'spec.databases names must be unique: "a" appears twice; rename or remove the duplicate',
      },
    ]);
  });
});

describe("the generated PostgresCluster CRD", () => {
  const crd = allCustomResourceDefinitions().find((c) => c.spec.names.kind === "PostgresCluster");
  const version = crd?.spec.versions[0];
  const spec = version?.schema.openAPIV3Schema.properties.spec as Record<string, unknown>;

  it("is structural: no additionalProperties false, no anyOf/const left", () => {
    const text = JSON.stringify(version?.schema);
    expect(text).not.toContain('"additionalProperties":false');
    expect(text).not.toContain('"anyOf"');
    expect(text).not.toContain('"const"');
  });

  it("describes every field, so that kubectl explain helps", () => {
    const undocumented: string[] = [];
    const walk = (node: Record<string, unknown>, path: string) => {
      const properties = (node.properties ?? {}) as Record<string, Record<string, unknown>>;
      for (const [name, child] of Object.entries(properties)) {
        if (typeof child.description !== "string" || child.description.length === 0)
          undocumented.push(`${path}.${name}`);
        walk(child, `${path}.${name}`);
        if (child.items) walk(child.items as Record<string, unknown>, `${path}.${name}[]`);
      }
    };
    walk(spec, "spec");
    expect(undocumented).toEqual([]);
  });

  it("carries the cross-field rules as CEL, with the same messages as zod", () => {
    expect(spec["x-kubernetes-validations"]).toEqual(
      POSTGRES_SPEC_RULES.map(({ rule, message }) => ({ rule, message })),
    );
  });

  it("prints mode, provenance and readiness", () => {
    expect(version?.additionalPrinterColumns.map((c) => c.name)).toEqual([
      "Type",
      "Mode",
      "Provenance",
      "Ready",
      "Host",
      "Age",
    ]);
  });
});
