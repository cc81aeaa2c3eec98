/**
 * The cost of one Stack decision: API requests and time per observation (the licence, every Stack for
 * the cap, the Stack's members), on the local control plane, with 1 Stack and then with 500 more in the
 * cluster. Prints a table; asserts nothing.
 *
 *   npx tsx bench/stack-observation.ts
 */
import { performance } from "node:perf_hooks";
import { API_GROUP, API_VERSION } from "../lib/api/group.js";
import { STACK_PLURAL, Stack } from "../lib/api/stack.js";
import { CapabilityInstaller } from "../lib/apply/capability-installer.js";
import { ensureNaviqueCrds } from "../lib/apply/navique-crds.js";
import { CATALOG, capability, withPrerequisites } from "../lib/catalog/catalog.js";
import { HelmCli } from "../lib/cluster/helm-cli.js";
import { KubeClient } from "../lib/cluster/kube-client.js";
import { observeResource } from "../lib/engine/observe.js";
import { planResource } from "../lib/engine/plan.js";
import { REGISTRY } from "../lib/kinds/registry.js";
import { STACK_MODULE } from "../lib/kinds/stack/module.js";
import { LocalControlPlane } from "../lib/local-plane/plane.js";
import { deleteNamespaceAndWait } from "./namespace.js";

const RUNS = 20;
const NAMESPACE = "bench-stack-observation";
const MORE_STACKS = 500;
const BATCH = 50;

async function createStack(client: KubeClient, name: string): Promise<void> {
  await client.custom.createNamespacedCustomObject({
    group: API_GROUP,
    version: API_VERSION,
    plural: STACK_PLURAL,
    namespace: NAMESPACE,
    body: { apiVersion: `${API_GROUP}/${API_VERSION}`, kind: "Stack", metadata: { name }, spec: {} },
  });
}

async function measure(client: KubeClient, stack: Stack): Promise<{ requests: number; ms: number }> {
  const module = STACK_MODULE as never;
  const catalog = { withPrerequisites: (name: string) => withPrerequisites(name, CATALOG) };
  // No capability is needed by a Stack: the installer is never asked anything.
  const installer = new CapabilityInstaller({ client, helm: new HelmCli({ binary: "helm", kubeconfig: "" }) });
  let requests = 0;
  let elapsed = 0;
  for (let run = 0; run < RUNS; run++) {
    const before = client.requests;
    const started = performance.now();
    const view = await observeResource(client, installer, module, stack, {
      ...catalog,
      registry: REGISTRY.kinds,
      now: new Date(),
    });
    planResource(module, stack, view, { ...catalog, releaseOf: (name) => capability(name, CATALOG).release });
    elapsed += performance.now() - started;
    requests = client.requests - before;
  }
  return { requests, ms: elapsed / RUNS };
}

async function main(): Promise<void> {
  const connection = await new LocalControlPlane().ensureRunning();
  const client = KubeClient.fromFile(connection.kubeconfig);
  await ensureNaviqueCrds(client);
  await deleteNamespaceAndWait(client, NAMESPACE);
  await client.core.createNamespace({ body: { metadata: { name: NAMESPACE } } });
  await createStack(client, "team");
  const stack = Stack.parse(
    await client.custom.getNamespacedCustomObject({
      group: API_GROUP,
      version: API_VERSION,
      plural: STACK_PLURAL,
      namespace: NAMESPACE,
      name: "team",
    }),
  );
  process.stdout.write(`${"Stacks in the cluster".padEnd(24)}${"requests".padStart(9)}${"ms/decision".padStart(13)}\n`);
  const row = (count: number, figures: { requests: number; ms: number }) =>
    process.stdout.write(
      `${String(count).padEnd(24)}${String(figures.requests).padStart(9)}${figures.ms.toFixed(1).padStart(13)}\n`,
    );
  row(1, await measure(client, stack));
  for (let start = 0; start < MORE_STACKS; start += BATCH) {
    await Promise.all(
      Array.from({ length: Math.min(BATCH, MORE_STACKS - start) }, (_, k) => createStack(client, `other-${start + k}`)),
    );
  }
  row(1 + MORE_STACKS, await measure(client, stack));
  await deleteNamespaceAndWait(client, NAMESPACE);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
