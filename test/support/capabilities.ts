import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import type { CapabilityEntry } from "../../lib/catalog/capability.js";
import type { ChartSource } from "../../lib/catalog/chart-source.js";
import { HelmCli } from "../../lib/cluster/helm-cli.js";
import { decodeReleaseSecret } from "../../lib/cluster/helm-release-record.js";
import { KubeClient, orUndefined, statusOf } from "../../lib/cluster/kube-client.js";
import { acquireDirectoryLock } from "../../lib/local-plane/lock.js";
import { toolchainPaths } from "../../lib/local-plane/toolchain-paths.js";
import { createReconcileContext } from "../../lib/reconcile/context.js";
import { eventually } from "./cluster.js";
import { emptyNamespace } from "./namespace-content.js";
import { finalizeEveryKind } from "./resources.js";

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
 * Shared by every Jest worker of every run on the same plane (NAVIQUE_TEST_PLANE, test/support/global-setup.js);
 * a test of the lock itself may point it elsewhere.
 */
const CAPABILITY_LOCK =
  process.env.NAVIQUE_TEST_CAPABILITY_LOCK ??
  join(
    tmpdir(),
    process.env.NAVIQUE_TEST_PLANE && process.env.NAVIQUE_TEST_PLANE !== "local"
      ? `navique-test-capabilities-${process.env.NAVIQUE_TEST_PLANE}.lock`
      : "navique-test-capabilities.lock",
  );

/** The capability lock's releases this test file holds, and the wait for it still pending, if any. */
const held = new Set<() => Promise<void>>();
const torndown = new AbortController();

/**
 * Releases, after every other hook of the test file, whatever lock the file still holds, and gives up a
 * wait still pending: registered when this module loads, that is while Jest collects the file, so it
 * belongs to the file's top level and runs last whether or not the suite's own beforeAll or afterAll
 * failed. A suite that locked and then failed to set up can therefore never keep the other suites waiting.
 */
if (typeof afterAll === "function") {
  afterAll(async () => {
    torndown.abort(new Error("the test file was torn down while waiting for the capability lock"));
    for (const release of [...held]) await release();
  });
}

/**
 * Capability operators are cluster-wide (fixed release namespaces, cluster-scoped CRDs, identity labels
 * seen across every namespace), so namespaces cannot isolate suites that install them: such suites hold
 * this lock, shared by every Jest worker, for their whole run. The lock is a directory holding the
 * holder's pid (lib/local-plane/lock.ts): a worker that died holding it is taken over. The returned
 * release is for the suite's afterAll; the file-level hook above releases it anyway.
 */
export async function lockCapabilities(): Promise<() => Promise<void>> {
  // The describe blocks of a file run one after the other: a lock this file still holds when it asks again
  // was left by an earlier block whose afterAll failed before releasing it, and waiting for it would wait
  // for ourselves.
  for (const release of [...held]) await release();
  const acquired = await acquireDirectoryLock(CAPABILITY_LOCK, (line) => process.stderr.write(`${line}\n`), {
    signal: torndown.signal,
  });
  const release = async () => {
    if (!held.delete(release)) return;
    await acquired();
  };
  held.add(release);
  return release;
}

/**
 * The timeout of a beforeAll that takes the capability lock: the wait for the suites ahead of it (each may
 * hold the lock for minutes on a busy machine, and every run on the machine shares the lock) must not
 * count against the time its own setup is allowed. The wait is reported every 30 s; every step of a
 * setup that is stuck fails first with its own message (`eventually` and the CLIs have their own limits).
 */
export const CAPABILITY_SUITE_SETUP_MS = 30 * 60_000;

/** True while this test file holds the capability lock. */
export function holdsCapabilityLock(): boolean {
  return held.size > 0;
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

/**
 * helm's records of a release, each decoded — revision, status, labels, values — with the manifest it
 * stored, as text: where a test looks for what helm keeps of a release (and for a secret it must not hold).
 */
export async function decodedReleaseRecords(client: KubeClient, namespace: string, release: string) {
  return (await releaseRecords(client, namespace, release)).map((secret) => {
    const payload = Buffer.from(Buffer.from(secret.data?.release ?? "", "base64").toString(), "base64");
    return { record: decodeReleaseSecret(secret), raw: gunzipSync(payload).toString() };
  });
}

/**
 * Deletes a namespace and waits until it is gone, for a namespace of a fixed name that a later test creates
 * again; a namespace of a name used once is discarded faster (discardNamespace, namespace-content.ts).
 */
export async function deleteNamespaceAndWait(client: KubeClient, name: string): Promise<void> {
  await client.core.deleteNamespace({ name }).catch((error: unknown) => {
    if (statusOf(error) !== 404) throw error;
  });
  await gone(`namespace ${name}`, () => orUndefined(client.core.readNamespace({ name })));
}

/**
 * Returns the cluster to "nothing installed" for these capabilities: releases uninstalled and their
 * namespaces emptied; with `crds`, their CRDs deleted too (test-only: the product never deletes CRDs).
 * Only a suite holding the capability lock may do either: CRDs are cluster-wide, and their deletion under
 * another suite's feet fails that suite. CRDs are deleted only when a suite starts: deleting them right
 * after a chart re-applied them can leave their deletion waiting on the apiserver's storage
 * re-initialisation for minutes.
 */
export async function resetCapabilities(
  client: KubeClient,
  helm: HelmCli,
  entries: readonly CapabilityEntry[],
  options: { readonly crds: boolean },
): Promise<void> {
  if (!holdsCapabilityLock())
    throw new Error(
      "resetCapabilities changes cluster-wide state other suites see: call it only while holding lockCapabilities()",
    );
  // Resources left by a run that died count as consumers and against caps: finalize them first.
  const context = createReconcileContext({ client, helm, source: FIXTURE_SOURCE });
  await finalizeEveryKind(context);
  for (const entry of entries) {
    await helm.uninstall(entry.release.name, entry.release.namespace, { wait: true });
    if (!options.crds) continue;
    for (const name of entry.crds.names) {
      await client.extensions.deleteCustomResourceDefinition({ name }).catch((error: unknown) => {
        if (statusOf(error) !== 404) throw error;
      });
    }
  }
  // Whatever a test put into a release namespace besides the release goes too. The namespace stays, empty,
  // as it does after a user's `helm uninstall`: deleting it would cost the namespace controller's grace
  // period on every reset (test/support/namespace-content.ts).
  await Promise.all(entries.map((entry) => emptyNamespace(client, entry.release.namespace)));
  if (!options.crds) return;
  for (const entry of entries) {
    for (const name of entry.crds.names) {
      await gone(`CRD ${name}`, () => orUndefined(client.extensions.readCustomResourceDefinition({ name })));
    }
  }
}
