/**
 * Run as a separate process by the concurrency test: one ensure pass of a capability from the fixture
 * chart mirror, printing one JSON line: the final provenance state and the install lines it reported.
 */
import { CapabilityInstaller } from "../../lib/capabilities/installer.js";
import { HelmCli } from "../../lib/cluster/helm-cli.js";
import { KubeClient } from "../../lib/cluster/kube-client.js";
import { toolchainPaths } from "../../lib/local-plane/toolchain-paths.js";

async function main(): Promise<void> {
  const [name] = process.argv.slice(2);
  const kubeconfig = process.env.NAVIQUE_TEST_KUBECONFIG;
  const charts = process.env.NAVIQUE_TEST_CHARTS;
  if (!name || !kubeconfig || !charts)
    throw new Error("usage: NAVIQUE_TEST_KUBECONFIG=… NAVIQUE_TEST_CHARTS=… ensure-capability.ts <capability>");
  const lines: string[] = [];
  const installer = new CapabilityInstaller({
    client: KubeClient.fromFile(kubeconfig),
    helm: new HelmCli({ binary: (await toolchainPaths()).helm, kubeconfig }),
    source: { kind: "directory", path: charts },
    report: (line) => lines.push(line),
  });
  const decisions = await installer.ensure(name);
  const last = decisions[decisions.length - 1];
  process.stdout.write(
    `${JSON.stringify({ state: last?.state, installedBy: lines.filter((l) => l.startsWith(`[${name}] install`)) })}\n`,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
