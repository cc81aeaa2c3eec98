import type { Verdict } from "./kind-module.js";

/** Whether a desired state's intermediate result is a verdict (why not yet) rather than what it asked for. */
export function isVerdict(value: object): value is Verdict {
  return "ok" in value;
}
