import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CapabilityEntry } from "../../lib/catalog/capability.js";
import type { ChartSource } from "../../lib/catalog/chart-source.js";
import { HelmCli } from "../../lib/cluster/helm-cli.js";
import { KubeClient, orUndefined, statusOf } from "../../lib/cluster/kube-client.js";
import { acquireDirectoryLock } from "../../lib/local-plane/lock.js";
import { toolchainPaths } from "../../lib/local-plane/toolchain-paths.js";
import { observePostgresClusters } from "../../lib/observe/postgres-cluster.js";
import { createReconcileContext } from "../../lib/reconcile/context.js";
import { eventually } from "./cluster.js";
import { finalizePostgresClusters } from "./postgres.js";
import { finalizeStacks } from "./stack.js";

/** Fixture charts reproducing the identity facts of the real capability charts. */
export const FIXTURE_CHARTS = join(import.meta.dirname, "..", "fixtures", "charts");
export const FIXTURE_SOURCE: ChartSource = { kind: "directory", path: FIXTURE_CHARTS };

export function testClient(): KubeClient {
  const path = process.env.NAVIQUE_TEST_KUBECONFIG;
  if (!path) throw new Error("NAVIQUE_TEST_KUBECONFIG is unset: run these tests through `npm test`");
  return KubeClient.fromFile(path);
}

export async function testHelm(): Promise<HelmCli> {
  return new HelmCli({ binary: (await toolchainPaths()).helm, kubeconfig: process.env.NAVIQUE_TEST_KUBECONFIG ?? "" });
}

/**
 * Capability operators are cluster-wide (fixed release namespaces, cluster-scoped CRDs, identity labels
 * seen across every namespace), so namespaces cannot isolate suites that install them: such suites hold
 * this lock, shared by every Jest worker, for their whole run.
 */
export function lockCapabilities(): Promise<() => Promise<void>> {
  return acquireDirectoryLock(join(tmpdir(), "navique-test-capabilities.lock"), () => {});
}

async function gone(what: string, read: () => Promise<unknown>): Promise<void> {
  await eventually(`${what} to be gone`, async () => ((await read()) === undefined ? true : undefined), {
    timeoutMs: 90_000,
  });
}

/** The revisions of a Helm release, as helm records them (Secrets labelled owner=helm,name=<release>). */
export async function releaseRecords(client: KubeClient, namespace: string, release: string) {
  return (await client.core.listNamespacedSecret({ namespace, labelSelector: `owner=helm,name=${release}` })).items;
}

/** Deletes a namespace and waits until it is gone, so that nothing in it is seen by the next test. */
export async function deleteNamespaceAndWait(client: KubeClient, name: string): Promise<void> {
  await client.core.deleteNamespace({ name }).catch((error: unknown) => {
    if (statusOf(error) !== 404) throw error;
  });
  await gone(`namespace ${name}`, () => orUndefined(client.core.readNamespace({ name })));
}

/**
 * Returns the cluster to "nothing installed" for these capabilities: releases uninstalled and system
 * namespaces deleted; with `crds`, their CRDs deleted too (test-only: the product never deletes CRDs).
 * CRDs are deleted only when a suite starts: deleting them right after a chart re-applied them can leave
 * their deletion waiting on the apiserver's storage re-initialisation for minutes.
 */
export async function resetCapabilities(
  client: KubeClient,
  helm: HelmCli,
  entries: readonly CapabilityEntry[],
  options: { readonly crds: boolean },
): Promise<void> {
  // Stacks and PostgresClusters left by a run that died count as consumers and against caps: finalize them first.
  const context = createReconcileContext({ client, helm, source: FIXTURE_SOURCE });
  await finalizeStacks(context);
  for (const resource of await observePostgresClusters(client))
    await finalizePostgresClusters(context, resource.metadata.namespace);
  for (const entry of entries) {
    await helm.uninstall(entry.release.name, entry.release.namespace, { wait: true });
    await client.core.deleteNamespace({ name: entry.release.namespace }).catch((error: unknown) => {
      if (statusOf(error) !== 404) throw error;
    });
    if (!options.crds) continue;
    for (const name of entry.crds.names) {
      await client.extensions.deleteCustomResourceDefinition({ name }).catch((error: unknown) => {
        if (statusOf(error) !== 404) throw error;
      });
    }
  }
  for (const entry of entries) {
    await gone(`namespace ${entry.release.namespace}`, () =>
      orUndefined(client.core.readNamespace({ name: entry.release.namespace })),
    );
    if (!options.crds) continue;
    for (const name of entry.crds.names) {
      await gone(`CRD ${name}`, () => orUndefined(client.extensions.readCustomResourceDefinition({ name })));
    }
  }
}
