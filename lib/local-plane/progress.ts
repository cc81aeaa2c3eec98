export { type Reporter, silentReporter, stderrReporter } from "../reporter.js";

/** `83s` → `1m23s`; short and stable for progress lines. */
export function formatDuration(ms: number): string {
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  return `${minutes}m${String(seconds % 60).padStart(2, "0")}s`;
}
