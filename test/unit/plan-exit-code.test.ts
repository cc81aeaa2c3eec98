import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runUnchecked } from "../../lib/cluster/process.js";
import { type PlanOutcome, type PlanRun, planExitCode } from "../../lib/engine/plan-run.js";
import { PlanReport } from "../../lib/reports/plan-report.js";

const TSX = join(process.cwd(), "node_modules", ".bin", "tsx");
const CLI = join(process.cwd(), "lib", "cli", "main.ts");

function run(...outcomes: PlanOutcome[]): PlanRun {
  return {
    resources: outcomes.map((outcome, i) => ({ subject: `Kind ns/r${i}`, where: "f.yaml", outcome, lines: [] })),
    notes: [],
  };
}

describe("navique plan's exit code (docs/plan.md)", () => {
  it.each<[string, PlanRun, number, number]>([
    ["nothing given", run(), 0, 0],
    ["every resource in place", run("in-place", "in-place"), 0, 0],
    ["waiting for something outside the product, nothing to change", run("in-place", "waiting"), 0, 0],
    ["a change planned", run("in-place", "changes"), 0, 2],
    ["a change and a refusal", run("changes", "refused"), 0, 1],
    ["a stalled resource (a missing grant, a collision, a type not implemented)", run("changes", "stalled"), 0, 1],
    ["an input not judged, everything else in place", run("in-place"), 1, 1],
    ["an input not judged, changes planned", run("changes"), 2, 1],
  ])("%s", (_, planned, problems, code) => {
    expect(planExitCode(planned, { problems: Array.from({ length: problems }, () => "p") })).toBe(code);
  });

  it("counts the declared licence like a resource: refused fails the plan, applied is a change", () => {
    const licence = (outcome: PlanOutcome) => ({
      ...run("in-place"),
      licence: { subject: "L", where: "f", outcome, lines: [] },
    });
    expect(planExitCode(licence("refused"), { problems: [] })).toBe(1);
    expect(planExitCode(licence("changes"), { problems: [] })).toBe(2);
    expect(planExitCode(licence("in-place"), { problems: [] })).toBe(0);
  });
});

// Through the real CLI: inputs judged before any cluster is needed, so no cluster is touched here.
describe("navique plan, inputs only", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "navique-plan-cli-"));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("reads every path after the command, says each input it cannot judge on stderr, and exits 1", async () => {
    await writeFile(join(dir, "a.yaml"), "");
    await writeFile(join(dir, "b.yaml"), "apiVersion: v1\nkind: Namespace\nmetadata: {name: apps}\n");
    const result = await runUnchecked(TSX, [CLI, "plan", "-f", join(dir, "a.yaml"), join(dir, "b.yaml")]);
    expect(result.stdout).toBe("");
    expect(result.stderr.trim().split("\n")).toEqual([
      `${join(dir, "b.yaml")}: 1 document(s) of other API groups skipped (Namespace v1): plan judges only core.navique.com resources`,
      `${join(dir, "a.yaml")}: empty: it holds no YAML document. Write the resources into it, or remove it from the paths given to plan`,
      "plan: 0 judged: 0 to change, 0 in place, 0 waiting, 0 refused, 0 stalled; 1 input(s) not judged; exit 1 (docs/plan.md)",
    ]);
    expect(result.code).toBe(1);
  });

  it("exits 0 when the paths hold nothing of the product's, and says what it skipped", async () => {
    await writeFile(join(dir, "c.yaml"), "apiVersion: v1\nkind: Namespace\nmetadata: {name: apps}\n");
    const result = await runUnchecked(TSX, [CLI, "plan", join(dir, "c.yaml")]);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain("plan: 0 judged: 0 to change");
  });

  it("-o json: one PlanReport on stdout, the inputs not judged and the notes in it, the same exit code", async () => {
    await writeFile(join(dir, "d.yaml"), "");
    await writeFile(join(dir, "e.yaml"), "apiVersion: v1\nkind: Namespace\nmetadata: {name: apps}\n");
    const result = await runUnchecked(TSX, [CLI, "plan", join(dir, "d.yaml"), join(dir, "e.yaml"), "-o", "json"]);
    expect(result.code).toBe(1);
    expect(PlanReport.parse(JSON.parse(result.stdout))).toEqual({
      version: 1,
      exitCode: 1,
      resources: [],
      problems: [
        `${join(dir, "d.yaml")}: empty: it holds no YAML document. Write the resources into it, or remove it from the paths given to plan`,
      ],
      notes: [
        `${join(dir, "e.yaml")}: 1 document(s) of other API groups skipped (Namespace v1): plan judges only core.navique.com resources`,
      ],
    });
    // stderr says what it says without -o json.
    expect(result.stderr).toContain(
      "plan: 0 judged: 0 to change, 0 in place, 0 waiting, 0 refused, 0 stalled; 1 input(s) not judged; exit 1",
    );
  });

  it("documents its exit codes in plan --help", async () => {
    const result = await runUnchecked(TSX, [CLI, "plan", "--help"]);
    expect(result.stdout).toContain(
      "\nexit codes:\n  0    nothing to change: every resource is in place, or only waits for something that will come\n  2    changes planned, and every resource would be admitted and go on\n  1    a resource would be refused (licence) or stall",
    );
    expect(result.stdout).toContain("\nmore: docs/plan.md");
  });
});
