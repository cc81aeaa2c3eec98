import { access, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runUnchecked } from "../../lib/cluster/process.js";

// Jest run on fixture suites (test/fixtures/jest-teardown) in a child process, in one worker, with a
// capability lock of its own: what the main suite does when a suite fails to set up after locking.
describe("a suite that fails to set up after taking the capability lock", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "navique-teardown-"));
  });
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  // GIVEN a file whose first suite locks and then fails in beforeAll, and whose afterAll then throws on
  //       the process it never started; a second suite in that file and a second file both want the lock
  // WHEN Jest runs them in one process (so the holder pid stays alive: only a real release frees the lock)
  // THEN both later suites get the lock, the run ends with the summary line counting the failure, and no
  //      lock is left behind.
  it("releases the lock on every path, and the run still ends with its summary", async () => {
    const lock = join(dir, "capabilities.lock");
    const root = process.cwd();
    const config = {
      rootDir: root,
      testMatch: ["<rootDir>/test/fixtures/jest-teardown/*.test.ts"],
      testSequencer: "<rootDir>/test/fixtures/jest-teardown/sequencer.cjs",
      extensionsToTreatAsEsm: [".ts"],
      moduleNameMapper: { "^(\\.{1,2}/.*)\\.js$": "$1" },
      transform: { "^.+\\.ts$": ["ts-jest", { useESM: true, tsconfig: "tsconfig.json", diagnostics: false }] },
      testEnvironment: "node",
      reporters: ["default", "<rootDir>/test/support/summary-reporter.js"],
    };
    const result = await runUnchecked(
      process.execPath,
      [
        "--experimental-vm-modules",
        join(root, "node_modules", "jest", "bin", "jest.js"),
        "--config",
        JSON.stringify(config),
        "--runInBand",
        "--ci",
        "--verbose",
      ],
      { cwd: root, env: { ...process.env, NAVIQUE_TEST_CAPABILITY_LOCK: lock } },
    );
    const output = `${result.stdout}\n${result.stderr}`;
    expect(output).toContain("setup failed after taking the lock");
    expect(output).toContain("✓ takes the capability lock");
    // Neither later suite waited for the lock until its timeout.
    expect(output).not.toContain("Exceeded timeout");
    // Passed: both later suites. Failed: the failed setup, once for its test and once for its file's afterAll.
    expect(result.stdout).toMatch(/^summary: 2 passed, 2 failed, 0 skipped \(1 suites failed to run\)$/m);
    await expect(access(lock)).rejects.toThrow("ENOENT");
  }, 120_000);

  // GIVEN the summary reporter, told of two finished files (one of them broken by a failed hook)
  // WHEN the process exits before Jest completes the run (Jest itself crashed)
  // THEN the run still ends with a summary line, marked incomplete.
  it("prints a summary even when the run never completes", async () => {
    const reporter = join(process.cwd(), "test", "support", "summary-reporter.js");
    const script = `
      const { default: Reporter } = await import(${JSON.stringify(reporter)});
      const r = new Reporter();
      r.onTestFileResult({}, { numPassingTests: 3, numFailingTests: 1, numPendingTests: 1, numTodoTests: 0 });
      r.onTestFileResult({}, { numPassingTests: 0, numFailingTests: 0, numPendingTests: 0, numTodoTests: 0, testExecError: { message: "hook failed" } });
      process.exit(1);
    `;
    const result = await runUnchecked(process.execPath, ["--input-type=module", "-e", script]);
    expect(result.stdout.trim()).toBe(
      "summary: 3 passed, 2 failed, 1 skipped (run did not complete; 1 suites failed to run)",
    );
  });
});
