// Ends every run with one plain line, "N passed, N failed, N skipped", that any CI log reader understands.
// A suite whose hooks fail counts as failed (its file "failed to run"). Should Jest itself die before it
// completes the run, the counts of the files that did finish are printed as the process exits, marked
// incomplete, so that a run never ends without a summary.
export default class SummaryReporter {
  constructor() {
    this.completed = false;
    this.seen = { passed: 0, failed: 0, skipped: 0, broken: 0 };
    process.once("exit", () => {
      if (this.completed) return;
      const { passed, failed, skipped, broken } = this.seen;
      process.stdout.write(
        `\nsummary: ${passed} passed, ${failed + broken} failed, ${skipped} skipped (run did not complete; ${broken} suites failed to run)\n`,
      );
    });
  }

  onTestFileResult(_test, result) {
    this.seen.passed += result.numPassingTests;
    this.seen.failed += result.numFailingTests;
    this.seen.skipped += result.numPendingTests + result.numTodoTests;
    if (result.testExecError) this.seen.broken += 1;
  }

  onRunComplete(_contexts, results) {
    this.completed = true;
    const { numPassedTests, numFailedTests, numPendingTests, numTodoTests, numRuntimeErrorTestSuites } = results;
    const broken = numRuntimeErrorTestSuites > 0 ? ` (${numRuntimeErrorTestSuites} suites failed to run)` : "";
    process.stdout.write(
      `\nsummary: ${numPassedTests} passed, ${numFailedTests + numRuntimeErrorTestSuites} failed, ${numPendingTests + numTodoTests} skipped${broken}\n`,
    );
  }
}
