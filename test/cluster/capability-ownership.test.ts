import { join } from "node:path";
import { CapabilityInstaller } from "../../lib/capabilities/installer.js";
import type { CapabilityDecision } from "../../lib/capabilities/provenance.js";
import { StepFailure } from "../../lib/capabilities/step-failure.js";
import type { CapabilityEntry } from "../../lib/catalog/capability.js";
import { CATALOG } from "../../lib/catalog/catalog.js";
import { CERT_MANAGER } from "../../lib/catalog/cert-manager.js";
import { CLOUDNATIVE_PG } from "../../lib/catalog/cloudnative-pg.js";
import type { HelmCli } from "../../lib/cluster/helm-cli.js";
import type { KubeClient } from "../../lib/cluster/kube-client.js";
import { run, runUnchecked } from "../../lib/cluster/process.js";
import { toolchainPaths } from "../../lib/local-plane/toolchain-paths.js";
import {
  CAPABILITY_SUITE_SETUP_MS,
  FIXTURE_CHARTS,
  FIXTURE_SOURCE,
  lockCapabilities,
  releaseRecords,
  resetCapabilities,
  testClient,
  testHelm,
} from "../support/capabilities.js";
import { createTestNamespace, eventually } from "../support/cluster.js";
import { discardNamespace } from "../support/namespace-content.js";

const CNPG_CHART = join(FIXTURE_CHARTS, "cloudnative-pg");

/** The fixture chart's CRDs applied by hand, as `kubectl apply` does: no helm ownership at all. */
async function applyCrdsByHand(client: KubeClient): Promise<void> {
  const rendered = await run((await toolchainPaths()).helm, [
    "template",
    "by-hand",
    CNPG_CHART,
    "--show-only",
    "templates/crds.yaml",
  ]);
  const { parseAllDocuments } = await import("yaml");
  for (const document of parseAllDocuments(rendered.stdout)) {
    const crd = document.toJS() as { apiVersion: string; kind: string; metadata: { name: string } } | null;
    if (crd) await client.apply(crd, { fieldManager: "kubectl" });
  }
}

/** The user's own helm, as they would run it: install (with the fixture chart) or uninstall a release. */
async function userHelm(verb: "install" | "uninstall", release: string, namespace: string, ...extra: string[]) {
  return runUnchecked((await toolchainPaths()).helm, [
    verb,
    release,
    ...(verb === "install" ? [CNPG_CHART, "--create-namespace"] : ["--wait"]),
    "--namespace",
    namespace,
    "--kubeconfig",
    process.env.NAVIQUE_TEST_KUBECONFIG ?? "",
    ...extra,
  ]);
}

async function ensureReady(installer: CapabilityInstaller, name: string): Promise<CapabilityDecision> {
  return eventually(`${name} to be Ready`, async () => {
    const decisions = await installer.ensure(name);
    const last = decisions[decisions.length - 1];
    return last?.capability === name && last.ready ? last : undefined;
  });
}

/** The StepFailure an ensure pass throws (the test fails if it throws anything else, or nothing). */
async function failureOf(pass: Promise<unknown>): Promise<StepFailure> {
  const error = await pass.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof StepFailure)) throw new Error(`expected a StepFailure, got ${String(error)}`);
  return error;
}

/**
 * What a user would compare to know their object was not touched: for a ConfigMap its resourceVersion;
 * for a Deployment, whose status the deployment controller keeps writing, its generation (any spec
 * change bumps it) and the field managers that ever wrote it.
 */
async function fingerprint(client: KubeClient, kind: "ConfigMap" | "Deployment", namespace: string, name: string) {
  if (kind === "ConfigMap") {
    const { uid, resourceVersion, labels, annotations } =
      (await client.core.readNamespacedConfigMap({ name, namespace })).metadata ?? {};
    return { uid, resourceVersion, labels, annotations };
  }
  const { uid, generation, labels, managedFields } =
    (await client.apps.readNamespacedDeployment({ name, namespace })).metadata ?? {};
  const helmOwnership = Object.entries(
    (await client.apps.readNamespacedDeployment({ name, namespace })).metadata?.annotations ?? {},
  ).filter(([key]) => key.startsWith("meta.helm.sh/"));
  return {
    uid,
    generation,
    labels,
    helmOwnership,
    managers: [...new Set((managedFields ?? []).map((f) => f.manager))].sort(),
  };
}

// Installs never take over what is not theirs (issue 8 items 1 and 2), on the real plane with the fixture
// charts (which render the real charts' names: ConfigMap cnpg-controller-manager-config, Deployment
// cloudnative-pg for release cloudnative-pg, the eleven CRDs). No controller pod runs.
describe("capability installs and objects that are not theirs", () => {
  let client: KubeClient;
  let helm: HelmCli;
  let installer: CapabilityInstaller;
  let unlock: () => Promise<void>;
  const cleanups: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    unlock = await lockCapabilities();
    client = testClient();
    helm = await testHelm();
    installer = new CapabilityInstaller({ client, helm, source: FIXTURE_SOURCE });
    await resetCapabilities(client, helm, [CLOUDNATIVE_PG, CERT_MANAGER], { crds: true });
  }, CAPABILITY_SUITE_SETUP_MS);
  beforeEach(async () => {
    await resetCapabilities(client, helm, [CLOUDNATIVE_PG, CERT_MANAGER], { crds: false });
  });
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });
  afterAll(async () => {
    await resetCapabilities(client, helm, [CLOUDNATIVE_PG, CERT_MANAGER], { crds: false });
    await unlock();
  });

  it("refuses to install over a user's ConfigMap and Deployment named like the chart's, installing nothing and changing neither", async () => {
    await ensureReady(installer, "cert-manager");
    // The namespace outlives a reset (emptied, not deleted): applied, it exists whatever ran before.
    await client.apply(
      { apiVersion: "v1", kind: "Namespace", metadata: { name: "cnpg-system" } },
      { fieldManager: "kubectl" },
    );
    // The user's own objects, under the names the chart renders in the system namespace.
    await client.core.createNamespacedConfigMap({
      namespace: "cnpg-system",
      body: { metadata: { name: "cnpg-controller-manager-config", labels: { team: "db" } }, data: { mine: "yes" } },
    });
    await client.apps.createNamespacedDeployment({
      namespace: "cnpg-system",
      body: {
        metadata: { name: "cloudnative-pg", labels: { app: "my-proxy" } },
        spec: {
          selector: { matchLabels: { app: "my-proxy" } },
          template: {
            metadata: { labels: { app: "my-proxy" } },
            spec: { containers: [{ name: "proxy", image: "registry.invalid/proxy:1" }] },
          },
        },
      },
    });
    // The Deployment controller writes its status once (a managedFields entry of its own): the fingerprint
    // is taken after it did, so that only a change of ours could differ.
    await eventually("the user's Deployment to be observed by its controller", async () => {
      const live = await client.apps.readNamespacedDeployment({ name: "cloudnative-pg", namespace: "cnpg-system" });
      return live.status?.observedGeneration === live.metadata?.generation ? true : undefined;
    });
    const configMap = await fingerprint(client, "ConfigMap", "cnpg-system", "cnpg-controller-manager-config");
    const deployment = await fingerprint(client, "Deployment", "cnpg-system", "cloudnative-pg");

    // A requeueing reconciler calls again and again: the same refusal each time, never a revision.
    for (let pass = 0; pass < 3; pass++) {
      const failure = await failureOf(installer.ensure("cloudnative-pg"));
      expect(failure.reason).toBe("OwnershipConflict");
      expect(failure.message).toBe(
        "installing cloudnative-pg 0.29.0 as release cnpg-system/cloudnative-pg would take over 2 objects that are not its own: " +
          "ConfigMap cnpg-system/cnpg-controller-manager-config (exists and was not installed by helm), " +
          "Deployment cnpg-system/cloudnative-pg (exists and was not installed by helm). Nothing was installed. " +
          "Delete or rename them, or install cloudnative-pg yourself (the product then adopts it and never changes it)",
      );
      expect(await releaseRecords(client, "cnpg-system", "cloudnative-pg")).toHaveLength(0);
    }
    expect(await fingerprint(client, "ConfigMap", "cnpg-system", "cnpg-controller-manager-config")).toEqual(configMap);
    expect(await fingerprint(client, "Deployment", "cnpg-system", "cloudnative-pg")).toEqual(deployment);
    for (const name of CLOUDNATIVE_PG.crds.names) {
      expect((await installer.observe("cloudnative-pg")).observation.crds.find((c) => c.name === name)?.exists).toBe(
        false,
      );
    }

    // Once the user renames them away, the install proceeds.
    await client.core.deleteNamespacedConfigMap({ name: "cnpg-controller-manager-config", namespace: "cnpg-system" });
    await client.apps.deleteNamespacedDeployment({ name: "cloudnative-pg", namespace: "cnpg-system" });
    await eventually("the user's Deployment to be gone", async () =>
      (await client.apps.listNamespacedDeployment({ namespace: "cnpg-system" })).items.length === 0 ? true : undefined,
    );
    expect(await ensureReady(installer, "cloudnative-pg")).toMatchObject({ state: "Owned", ready: true });
  });

  it("adopts the capability's own CRDs orphaned by someone else's install, and nothing else", async () => {
    // CRDs applied by hand (kubectl), no helm ownership at all, no controller: nothing of the release
    // before (the test before leaves it installed, whose CRDs would not be orphans).
    await resetCapabilities(client, helm, [CLOUDNATIVE_PG], { crds: true });
    const namespace = await createTestNamespace("crds-by-hand");
    cleanups.push(() => discardNamespace(client, namespace.name));
    await applyCrdsByHand(client);
    const orphan = await client.extensions.readCustomResourceDefinition({ name: "clusters.postgresql.cnpg.io" });
    expect(orphan.metadata?.annotations?.["meta.helm.sh/release-name"]).toBeUndefined();
    const uid = orphan.metadata?.uid;

    expect(await ensureReady(installer, "cloudnative-pg")).toMatchObject({ state: "Owned", ready: true });
    const crd = await client.extensions.readCustomResourceDefinition({ name: "clusters.postgresql.cnpg.io" });
    expect(crd.metadata?.uid).toBe(uid);
    expect(crd.metadata?.annotations).toMatchObject({
      "meta.helm.sh/release-name": "cloudnative-pg",
      "meta.helm.sh/release-namespace": "cnpg-system",
    });
  });

  it("after a release, a user's own helm install of the operator proceeds: plainly under our release name, with --take-ownership under another", async () => {
    // From the CRDs of the test before: applied by hand, stamped by our install as the release's.
    await ensureReady(installer, "cloudnative-pg");
    const uid = (await client.extensions.readCustomResourceDefinition({ name: "clusters.postgresql.cnpg.io" })).metadata
      ?.uid;
    expect((await installer.release("cloudnative-pg", [])).uninstalled).toBe(true);
    for (const name of CLOUDNATIVE_PG.crds.names) {
      const kept = await client.extensions.readCustomResourceDefinition({ name });
      expect(kept.metadata?.deletionTimestamp).toBeUndefined();
    }

    // The kept CRDs still carry helm's ownership of the release name and namespace, so the user's plain
    // install under that name (cert-manager's documented command is exactly ours) adopts them.
    const sameName = await userHelm("install", "cloudnative-pg", "cnpg-system");
    expect(sameName.stderr).toBe("");
    expect(sameName.code).toBe(0);
    expect((await installer.observe("cloudnative-pg")).decision.state).toBe("Adopted");
    expect((await userHelm("uninstall", "cloudnative-pg", "cnpg-system")).code).toBe(0);

    // Under another name, helm refuses any existing object not marked as that release's, whatever it
    // carries; the documented procedure is --take-ownership (or crds.create=false).
    const namespace = await createTestNamespace("users-cnpg");
    cleanups.push(() => discardNamespace(client, namespace.name));
    cleanups.push(async () => {
      await helm.uninstall("my-cnpg", namespace.name);
    });
    const plain = await userHelm("install", "my-cnpg", namespace.name);
    expect(plain.code).not.toBe(0);
    expect(plain.stderr).toContain(
      'CustomResourceDefinition "backups.postgresql.cnpg.io" in namespace "" exists and cannot be imported into the current release: invalid ownership metadata; annotation validation error: key "meta.helm.sh/release-name" must equal "my-cnpg": current value is "cloudnative-pg"',
    );
    const adopting = await userHelm("install", "my-cnpg", namespace.name, "--take-ownership");
    expect(adopting.stderr).toBe("");
    expect(adopting.code).toBe(0);
    const crd = await client.extensions.readCustomResourceDefinition({ name: "clusters.postgresql.cnpg.io" });
    expect(crd.metadata?.uid).toBe(uid);
    expect(crd.metadata?.annotations).toMatchObject({
      "meta.helm.sh/release-name": "my-cnpg",
      "meta.helm.sh/release-namespace": namespace.name,
    });
    const decision = await eventually("the user's controller to be Ready", async () => {
      const current = (await installer.observe("cloudnative-pg")).decision;
      return current.ready ? current : undefined;
    });
    expect(decision).toMatchObject({ state: "Adopted", action: "none" });
  });

  it("refuses what the apiserver would refuse before helm writes any revision, pass after pass", async () => {
    // A chart whose values the apiserver rejects (replicas must be >= 0); our preflight of ownership
    // passes, helm's own dry run does not send objects to the apiserver, so only the apply dry run sees it.
    const rejected: CapabilityEntry = { ...CLOUDNATIVE_PG, values: { ...CLOUDNATIVE_PG.values, replicaCount: -1 } };
    const catalog = new Map([...CATALOG, ["cloudnative-pg", rejected]]);
    const failing = new CapabilityInstaller({ client, helm, source: FIXTURE_SOURCE, catalog });
    await ensureReady(failing, "cert-manager");
    for (let pass = 0; pass < 3; pass++) {
      const failure = await failureOf(failing.ensure("cloudnative-pg"));
      expect(failure.reason).toBe("InstallFailed");
      expect(failure.message).toBe(
        'the apiserver refuses Deployment cnpg-system/cloudnative-pg that cloudnative-pg 0.29.0 renders: Deployment.apps "cloudnative-pg" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0. ' +
          "Nothing was installed (no helm revision). Remove the cause (a conflicting object, an admission policy, a quota) and the next pass installs",
      );
      expect(await releaseRecords(client, "cnpg-system", "cloudnative-pg")).toHaveLength(0);
    }
    // The same chart with valid values installs.
    expect(await ensureReady(installer, "cloudnative-pg")).toMatchObject({ state: "Owned", ready: true });
    expect(await releaseRecords(client, "cnpg-system", "cloudnative-pg")).toHaveLength(1);
  });
});
