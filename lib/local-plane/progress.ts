/** Receives one human-readable line about a long operation. */
export type Reporter = (line: string) => void;

export const stderrReporter: Reporter = (line) => {
  process.stderr.write(`${line}\n`);
};

export const silentReporter: Reporter = () => {};

/** `83s` → `1m23s`; short and stable for progress lines. */
export function formatDuration(ms: number): string {
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  return `${minutes}m${String(seconds % 60).padStart(2, "0")}s`;
}
