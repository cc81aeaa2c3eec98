// Ends every run with one plain line, "N passed, N failed, N skipped", that any CI log reader understands.
export default class SummaryReporter {
  onRunComplete(_contexts, results) {
    const { numPassedTests, numFailedTests, numPendingTests, numTodoTests, numRuntimeErrorTestSuites } = results;
    const broken = numRuntimeErrorTestSuites > 0 ? ` (${numRuntimeErrorTestSuites} suites failed to run)` : "";
    process.stdout.write(
      `\nsummary: ${numPassedTests} passed, ${numFailedTests + numRuntimeErrorTestSuites} failed, ${numPendingTests + numTodoTests} skipped${broken}\n`,
    );
  }
}
