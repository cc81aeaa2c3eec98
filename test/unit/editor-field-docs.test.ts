import { copyFile, mkdir, mkdtemp, readdir, rm, symlink, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import ts from "typescript";
import { run } from "../../lib/cluster/process.js";
import { inputJsonSchema, schemaFields } from "../../lib/docs/schema-fields.js";
import { defaultText } from "../../lib/docs/spec-declaration.js";
import { allDefinitions } from "../../lib/kinds/registry.js";
import { REPOSITORY } from "../support/repository.js";

/**
 * A user's file, as the README has them: it imports the package by name, and each marked field is
 * hovered in an editor. `/*@*\/` marks the position hovered: the start of the field's name after it.
 */
const USER_FILE = `import { App, Chart } from "cdk8s";
import type { PostgresClusterSpecInput } from "@navique/ai-core";
import { PostgresCluster as PostgresClusterConstruct, RedisInstance as RedisConstruct } from "@navique/ai-core/cdk8s";
import { PostgresCluster, Stack } from "@navique/ai-core/pulumi";

const chart = new Chart(new App(), "platform");
new PostgresClusterConstruct(chart, "app-db", { namespace: "apps", spec: { managed: { /*@*/instances: 2 } } });
new RedisConstruct(chart, "cache", {
  namespace: "apps",
  spec: { managed: { topology: "replication", /*@*/sentinel: true } },
});
new PostgresCluster("app-db", { namespace: "apps", spec: { /*@*/mode: "managed", managed: { storage: { /*@*/size: "20Gi" } } } });
new Stack("platform", { namespace: "apps", spec: { postgres: { databases: [{ /*@*/name: "app" }] } } });
export const reporting: PostgresClusterSpecInput = {
  mode: "external",
  external: { connectionSecretRef: { name: "reporting-db", /*@*/key: "uri" } },
};
`;

/** What each marked position is, in order: the kind and the field's path in its spec. */
const HOVERED = [
  ["PostgresCluster", "spec.managed.instances"],
  ["RedisInstance", "spec.managed.sentinel"],
  ["PostgresCluster", "spec.mode"],
  ["PostgresCluster", "spec.managed.storage.size"],
  ["Stack", "spec.postgres.databases[].name"],
  ["PostgresCluster", "spec.external.connectionSecretRef.key"],
] as const;

const MARK = "/*@*/";

/** A field of a kind's spec, as its schema has it. */
function field(kind: string, path: string) {
  const definition = allDefinitions().find((d) => d.kind === kind);
  const found = definition && schemaFields(inputJsonSchema(definition.spec), "spec").find((f) => f.path === path);
  if (!found) throw new Error(`no field ${path} in the spec of ${kind}`);
  return found;
}

/**
 * A project that has installed the package: node_modules/@navique/ai-core holds the repository's
 * package.json and, as dist/, the declarations the build's compiler step (tsc -p tsconfig.build.json)
 * writes — here into a directory of the test's own, so that a build running beside it is not disturbed.
 * Every other package is the repository's, linked.
 */
async function projectWithThePackage(directory: string): Promise<void> {
  const installed = join(directory, "node_modules", "@navique", "ai-core");
  await mkdir(installed, { recursive: true });
  const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
  await run(
    process.execPath,
    [tsc, "-p", "tsconfig.build.json", "--emitDeclarationOnly", "--outDir", join(installed, "dist")],
    {
      cwd: REPOSITORY,
    },
  );
  await copyFile(join(REPOSITORY, "package.json"), join(installed, "package.json"));
  for (const entry of await readdir(join(REPOSITORY, "node_modules"))) {
    if (entry === ".bin" || entry.startsWith(".")) continue;
    await symlink(join(REPOSITORY, "node_modules", entry), join(directory, "node_modules", entry));
  }
  await writeFile(join(directory, "package.json"), `${JSON.stringify({ name: "user-project", type: "module" })}\n`);
  await writeFile(join(directory, "main.ts"), USER_FILE);
}

/** An editor's language service over the user's file, with the compiler options the README asks for. */
function languageService(directory: string, file: string): ts.LanguageService {
  const options: ts.CompilerOptions = {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2023,
    strict: true,
    noEmit: true,
    types: ["node"],
  };
  return ts.createLanguageService({
    getCompilationSettings: () => options,
    getScriptFileNames: () => [file],
    getScriptVersion: () => "1",
    getScriptSnapshot: (name) => {
      const text = ts.sys.readFile(name);
      return text === undefined ? undefined : ts.ScriptSnapshot.fromString(text);
    },
    getCurrentDirectory: () => directory,
    getDefaultLibFileName: (settings) => ts.getDefaultLibFilePath(settings),
    fileExists: ts.sys.fileExists,
    readFile: ts.sys.readFile,
    readDirectory: ts.sys.readDirectory,
    directoryExists: ts.sys.directoryExists,
    getDirectories: ts.sys.getDirectories,
    realpath: ts.sys.realpath,
  });
}

describe("a spec field hovered in an editor, in a project that installed the package", () => {
  let directory = "";
  let service: ts.LanguageService;
  const file = () => join(directory, "main.ts");

  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), "navique-editor-"));
    await projectWithThePackage(directory);
    service = languageService(directory, file());
  }, 300_000);
  afterAll(() => rm(directory, { recursive: true, force: true }));

  it("is a file that type-checks against the package's declarations", () => {
    const diagnostics = [...service.getSyntacticDiagnostics(file()), ...service.getSemanticDiagnostics(file())];
    expect(diagnostics.map((d) => ts.flattenDiagnosticMessageText(d.messageText, " "))).toEqual([]);
  });

  it("shows the field's description from the schema, and its default with the constant it comes from", () => {
    const positions = [...USER_FILE.matchAll(/\/\*@\*\//g)].map((match) => (match.index ?? 0) + MARK.length);
    expect(positions).toHaveLength(HOVERED.length);
    const shown = positions.map((position) => {
      const info = service.getQuickInfoAtPosition(file(), position);
      return {
        documentation: ts.displayPartsToString(info?.documentation),
        default: info?.tags
          ?.find((tag) => tag.name === "default")
          ?.text?.map((part) => part.text)
          .join(""),
      };
    });
    const expected = HOVERED.map(([kind, path]) => {
      const { description, schema } = field(kind, path);
      return { documentation: description, default: defaultText(schema) };
    });
    expect(shown).toEqual(expected);
    // Spelled out once, so that a reader sees what an editor shows.
    expect(shown[0]).toEqual({
      documentation: "Number of PostgreSQL instances (pods), the primary plus its replicas: 1 to 9. Default 1.",
      default: "1 (DEFAULT_POSTGRES_INSTANCES)",
    });
  });
});
