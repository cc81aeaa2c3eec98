import { randomBytes } from "node:crypto";
import { DEFAULT_LOCAL_CONSOLE_ADDRESS, parseBindAddress } from "../../providers/operator/bind-address.js";
import { serveConsole } from "../../providers/operator/console-server.js";
import { keyAuthenticator } from "../console/console-auth.js";
import { clusterSnapshots } from "../console/console-snapshot.js";
import { stderrReporter } from "../reporter.js";
import { trustedKeys } from "./license-command.js";
import { resolveClusterTarget } from "./target.js";

/**
 * `navique console`: the operator's console served on this machine, reading the cluster with the
 * kubeconfig's identity. A browser signs in with a key made at the start, printed within a link on stdout
 * (the only line there, for a script to read); the key lives as long as the process. Runs until SIGINT or
 * SIGTERM.
 */
export async function runConsole(options: {
  readonly kubeconfig: string | undefined;
  readonly address: string | undefined;
  readonly trust: readonly string[];
}): Promise<number> {
  const address = parseBindAddress("--address", options.address ?? DEFAULT_LOCAL_CONSOLE_ADDRESS, "the console");
  if (!address)
    throw new Error("--address 0: the console has nothing to do turned off; give HOST:PORT, e.g. 127.0.0.1:8082");
  const target = await resolveClusterTarget({ kubeconfig: options.kubeconfig, report: stderrReporter });
  const trusted = options.trust.length > 0 ? await trustedKeys(options.trust) : undefined;
  const key = randomBytes(24).toString("base64url");
  const server = await serveConsole({
    address,
    authenticator: keyAuthenticator(key),
    snapshots: clusterSnapshots(target.kubeconfig, trusted),
    report: stderrReporter,
  });
  process.stdout.write(`${server.url}/login?key=${key}\n`);
  stderrReporter("[console] open the link above in a browser; Ctrl-C stops the console");
  await new Promise<void>((resolve) => {
    process.once("SIGINT", resolve);
    process.once("SIGTERM", resolve);
  });
  await server.close();
  return 0;
}
