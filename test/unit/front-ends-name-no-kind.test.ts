import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { allDefinitions } from "../../lib/kinds/registry.js";

/** The front ends: they loop over the registry and name no kind (ENGINE.md "The rule"). */
const FRONT_ENDS = [
  ...readdirSync("providers/operator").map((f) => join("providers/operator", f)),
  "providers/pulumi/runtime.ts",
  "providers/pulumi/runtime-provider.ts",
  "providers/pulumi/kind-resource.ts",
  "providers/pulumi/kind-component.ts",
  "providers/pulumi/component-inputs.ts",
  "providers/pulumi/stack-runtime.ts",
  ...readdirSync("lib/cli").map((f) => join("lib/cli", f)),
  ...readdirSync("lib/status").map((f) => join("lib/status", f)),
  "lib/engine/preview.ts",
  "lib/engine/observe.ts",
  "lib/engine/plan.ts",
  "lib/engine/execute.ts",
  "lib/engine/reconcile.ts",
  "constructs/navique-resource.ts",
  "constructs/app-declarations.ts",
];

/**
 * Words that are a kind's name and, in one file, something else: the OCI image config's `User` field
 * (image-spec config.User), which the operator's image sets.
 */
const NOT_A_KIND: Readonly<Record<string, RegExp>> = {
  "providers/operator/image.ts": /\bUser: IMAGE_USER\b/g,
};

describe("the front ends and the engine", () => {
  const kinds = allDefinitions().map((d) => d.kind);

  it.each(FRONT_ENDS)("%s names no kind of the registry: it loops over it", (file) => {
    const text = readFileSync(file, "utf8").replace(NOT_A_KIND[file] ?? /(?!)/, "");
    const named = kinds.filter((kind) => new RegExp(`\\b${kind}\\b`).test(text));
    expect(named).toEqual([]);
  });
});

/** Every TypeScript file of a directory and those under it. */
const filesUnder = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return filesUnder(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });

/**
 * What a front end may import of lib/kinds: the registry (every kind's module, by its name), the CRD files
 * (the operator's chart) and the licence singleton's schema (its hand-written NaviqueLicense construct).
 */
const KINDS_A_FRONT_END_MAY_IMPORT = ["registry.js", "crd-files.js", "license/schema.js"];

describe("the front ends' classes of each kind", () => {
  it.each([...filesUnder("constructs"), ...filesUnder("providers")])(
    "%s imports no kind's module: each kind comes from the registry",
    (file) => {
      const imports = [...readFileSync(file, "utf8").matchAll(/from "([^"]+)"/g)].map((m) => m[1] ?? "");
      const ofKinds = imports.filter((i) => i.includes("/lib/kinds/") || i.startsWith("../kinds/"));
      expect(
        ofKinds.filter((i) => !KINDS_A_FRONT_END_MAY_IMPORT.some((allowed) => i.endsWith(`/kinds/${allowed}`))),
      ).toEqual([]);
    },
  );
});

describe("the core", () => {
  /** Every TypeScript file of lib/ but the command line and the local control plane, which are tools. */
  const core = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory())
        return path === join("lib", "cli") || path === join("lib", "local-plane") ? [] : core(path);
      return entry.name.endsWith(".ts") ? [path] : [];
    });

  it.each(core("lib"))("%s imports nothing from examples/, providers/ or the local control plane", (file) => {
    const imports = [...readFileSync(file, "utf8").matchAll(/from "([^"]+)"/g)].map((m) => m[1] ?? "");
    expect(imports.filter((i) => /(^|\/)(examples|providers|local-plane)\//.test(i))).toEqual([]);
  });
});

/** The parts the engine stands on: none imports the engine back (the capability subsystem among them). */
const BELOW_THE_ENGINE = [
  "lib/api",
  "lib/capabilities",
  "lib/catalog",
  "lib/cluster",
  "lib/licence",
  "lib/observe",
  "lib/apply",
  // The JSON reports' schemas: the package's root exports them, which loads nothing of the engine.
  "lib/reports",
];

describe("the parts below the engine", () => {
  it.each(BELOW_THE_ENGINE.flatMap(filesUnder))("%s imports nothing of the engine: the engine uses it", (file) => {
    const imports = [...readFileSync(file, "utf8").matchAll(/from "([^"]+)"/g)].map((m) => m[1] ?? "");
    expect(imports.filter((i) => /(^|\/)engine\//.test(i))).toEqual([]);
  });
});
