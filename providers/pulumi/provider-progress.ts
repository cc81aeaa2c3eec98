/**
 * Progress lines from inside the dynamic provider's process, shown by `pulumi up` while a resource is
 * created, updated or deleted — as pulumi-kubernetes shows what its await is waiting for. The engine
 * starts Pulumi's Node.js dynamic-provider host with its own address as the first argument, but that
 * host never connects the SDK's log to it; Pulumi's provider server for Node.js components does so with
 * `runtime.resetOptions`, which is what this does, once, in that process only. Elsewhere (the provider's
 * code called in-process, by tests) a line goes nowhere.
 */
import * as pulumi from "@pulumi/pulumi";

/** The engine's address when this process is the dynamic-provider host the engine started, else undefined. */
export function engineAddressOf(argv: readonly string[]): string | undefined {
  const [, main, address] = argv;
  if (!main || !/[\\/]cmd[\\/]dynamic-provider([\\/]index\.js)?$/.test(main)) return undefined;
  return address && /^[\w.[\]:-]+:\d+$/.test(address) ? address : undefined;
}

let connected: boolean | undefined;

/** Whether the SDK's log reaches the engine: connected once, on the first line said. */
function connect(): boolean {
  if (connected === undefined) {
    const address = engineAddressOf(process.argv);
    connected = address !== undefined;
    // Only the engine's address matters to the log; the program's settings belong to the language host.
    if (address) pulumi.runtime.resetOptions("", "", -1, address, "", false, "");
  }
  return connected;
}

/** Says `line` on `pulumi up`'s display, in place, until the next line replaces it. */
export function reportProgress(line: string, ephemeral = true): void {
  if (connect()) void pulumi.log.info(line, undefined, undefined, ephemeral);
}

/** Says `line` on `pulumi up`'s display, kept in its output (what a destroy left, and why). */
export function reportLasting(line: string): void {
  reportProgress(line, false);
}

/** Says `line` as a warning, kept in the output and counted in its summary (what a destroy puts at risk). */
export function reportWarning(line: string): void {
  if (connect()) void pulumi.log.warn(line);
}
