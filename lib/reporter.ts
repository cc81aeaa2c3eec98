/** Receives one human-readable line about a long operation. */
export type Reporter = (line: string) => void;

export const stderrReporter: Reporter = (line) => {
  process.stderr.write(`${line}\n`);
};

export const silentReporter: Reporter = () => {};
