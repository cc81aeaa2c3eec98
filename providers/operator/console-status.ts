import type { KubeClient } from "../../lib/cluster/kube-client.js";
import { writeConsoleStatus } from "../../lib/console/management-plane.js";
import type { Reporter } from "../../lib/reporter.js";

/** How often the leader looks at the console's settings: a change of its spec shows in its status within this time. */
export const CONSOLE_STATUS_PERIOD_MS = 15_000;

/**
 * Keeps the status of the console's settings true to what this operator serves, while it leads: at once, then every
 * CONSOLE_STATUS_PERIOD_MS (a poll, not a watch: one small singleton, read by one request). A write that
 * fails is reported and made again at the next turn. Stops when `signal` aborts.
 */
export function keepConsoleStatus(options: {
  readonly client: KubeClient;
  /** Where this operator serves the console; undefined when it does not (`--console-bind-address 0`). */
  readonly served: { readonly address: string } | undefined;
  readonly leads: () => boolean;
  readonly signal: AbortSignal;
  readonly report: Reporter;
  readonly periodMs?: number;
}): void {
  let failing = false;
  const turn = () => {
    if (options.signal.aborted || !options.leads()) return;
    writeConsoleStatus(options.client, options.served, new Date()).then(
      () => {
        failing = false;
      },
      (error: unknown) => {
        // Said once per run of failures, not every turn.
        if (!failing)
          options.report(
            `[console] could not write the console settings' status (tried again every ${(options.periodMs ?? CONSOLE_STATUS_PERIOD_MS) / 1000} s): ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`,
          );
        failing = true;
      },
    );
  };
  const timer = setInterval(turn, options.periodMs ?? CONSOLE_STATUS_PERIOD_MS);
  timer.unref();
  options.signal.addEventListener("abort", () => clearInterval(timer), { once: true });
  turn();
}
