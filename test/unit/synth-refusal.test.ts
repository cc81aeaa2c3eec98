import { mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runUnchecked } from "../../lib/cluster/process.js";
import { REPOSITORY } from "../support/repository.js";

const TSX = join(REPOSITORY, "node_modules", ".bin", "tsx");

/** A user's cdk8s app, as cdk8s's project template writes it: `app.synth()` at the top level, nothing caught. */
const program = (body: string) => `import { App, Chart } from "cdk8s";
import { PostgresCluster } from ${JSON.stringify(join(REPOSITORY, "constructs", "index.js"))};

const app = new App({ outdir: "dist" });
const chart = new Chart(app, "platform");
${body}
`;

const BAD_CONSTRUCTS = `new PostgresCluster(chart, "app-db", {
  namespace: "apps",
  spec: { managed: { instances: 0, storage: { size: "10000000000000000000000000Ei" } } } as never,
});
new PostgresCluster(chart, "Reports", { namespace: "apps" });`;

const REFUSAL = [
  "Validation failed with the following errors:",
  "  [platform/app-db] PostgresCluster spec.managed.instances: must be >= 1 (received 0)",
  '  [platform/app-db] PostgresCluster spec.managed.storage.size: must be at most 1Pi (1125899906842624 bytes), far beyond any one volume a storage class provisions: write a size such as "10Gi" (received "10000000000000000000000000Ei")',
  "  [platform/Reports] PostgresCluster name: must be a lowercase RFC 1123 name: letters, digits, '-' and '.', starting and ending with a letter or digit (received \"Reports\")",
  "",
].join("\n");

// Each program runs as cdk8s synth runs a user's app (`app:` of cdk8s.yaml): a process of its own.
describe("a synth refused in a user's program", () => {
  let project = "";
  beforeAll(async () => {
    project = await mkdtemp(join(tmpdir(), "navique-synth-refusal-"));
    // The program's own dependencies (cdk8s, constructs), as its project installs them.
    await symlink(join(REPOSITORY, "node_modules"), join(project, "node_modules"));
  });
  afterAll(async () => {
    if (project) await rm(project, { recursive: true, force: true });
  });

  const run = async (file: string, source: string) => {
    await writeFile(join(project, file), source);
    return runUnchecked(TSX, [file], { cwd: project });
  };

  it.each([
    ["a CommonJS program", "main.ts"],
    ["an ES module, synthesizing at its top level", "main.mts"],
  ])(
    "%s: prints every problem, with its construct path, field, expectation and value, and nothing else; exits 1",
    async (_, file) => {
      const result = await run(file, program(`${BAD_CONSTRUCTS}\napp.synth();`));
      expect(result.code).toBe(1);
      expect(result.stderr).toBe(REFUSAL);
      expect(result.stdout).toBe("");
    },
    60_000,
  );

  it("a program that catches the refusal gets cdk8s's own error, and goes on with Node's handling of what follows", async () => {
    const result = await run(
      "caught.mts",
      program(`${BAD_CONSTRUCTS}
try {
  app.synth();
} catch (error) {
  console.log((error as Error).message.split("\\n")[0]);
}
setTimeout(() => {
  console.log(\`listeners: \${process.listenerCount("uncaughtException")}\`);
  throw new Error("after synth");
}, 10);`),
    );
    expect(result.stdout).toBe("Validation failed with the following errors:\nlisteners: 0\n");
    expect(result.code).toBe(1);
    // Node's own report of an uncaught error: its stack, where it was thrown.
    expect(result.stderr).toMatch(/Error: after synth\n\s+at .*caught\.mts:\d+/);
  }, 60_000);

  it("another error thrown by the synthesizing program is still printed whole, its stack included", async () => {
    const result = await run(
      "other.mts",
      program(`new PostgresCluster(chart, "app-db", { namespace: "apps" });
app.synthYaml();
throw new Error("not a refusal");`),
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^Error: not a refusal\n\s+at .*other\.mts:\d+/);
  }, 60_000);
});
