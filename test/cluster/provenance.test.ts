import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseAllDocuments } from "yaml";
import { OWNERSHIP_MARKS } from "../../lib/api/group.js";
import { CapabilityInstaller } from "../../lib/capabilities/installer.js";
import type { CapabilityDecision } from "../../lib/capabilities/provenance.js";
import { CERT_MANAGER } from "../../lib/catalog/cert-manager.js";
import { CLOUDNATIVE_PG } from "../../lib/catalog/cloudnative-pg.js";
import type { HelmCli } from "../../lib/cluster/helm-cli.js";
import type { KubeClient } from "../../lib/cluster/kube-client.js";
import { run } from "../../lib/cluster/process.js";
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
const CERT_MANAGER_CHART = join(FIXTURE_CHARTS, "cert-manager");

/**
 * A helm operation of ours on cloudnative-pg (our ownership marks on the release) that can never finish:
 * it waits for a controller pinned to a node that does not exist. The test kills it midway.
 */
async function spawnDyingHelm(verb: "install" | "upgrade", extra: readonly string[] = []) {
  return spawn(
    (await toolchainPaths()).helm,
    [
      verb,
      "cloudnative-pg",
      CNPG_CHART,
      "--namespace",
      "cnpg-system",
      ...extra,
      "--kubeconfig",
      process.env.NAVIQUE_TEST_KUBECONFIG ?? "",
      "--labels",
      Object.entries(OWNERSHIP_MARKS)
        .map(([k, v]) => `${k}=${v}`)
        .join(","),
      "--set-string",
      "nodeSelector.navique\\.test/no-such-node=true",
      "--wait",
      "--timeout",
      "5m",
    ],
    { stdio: "ignore" },
  );
}

/** Repeats ensure passes (as a requeueing reconciler would) until the capability is Ready. */
async function ensureReady(installer: CapabilityInstaller, name: string): Promise<CapabilityDecision[][]> {
  const passes: CapabilityDecision[][] = [];
  await eventually(`${name} to be Ready`, async () => {
    const decisions = await installer.ensure(name);
    passes.push(decisions);
    const last = decisions[decisions.length - 1];
    return last?.capability === name && last.ready ? true : undefined;
  });
  return passes;
}

/**
 * Applies a chart's rendered manifests directly, as a user running `kubectl apply` on raw manifests would:
 * no helm release, and kubectl's field manager. `only` limits it to the CRDs.
 */
async function applyRawManifests(client: KubeClient, chart: string, namespace: string, only?: "crds") {
  const binary = (await toolchainPaths()).helm;
  const rendered = await run(binary, [
    "template",
    "raw",
    chart,
    "--namespace",
    namespace,
    ...(only ? ["--show-only", "templates/crds.yaml"] : []),
  ]);
  for (const document of parseAllDocuments(rendered.stdout)) {
    const object = document.toJS() as { kind?: string; metadata: { name: string; namespace?: string } } | null;
    if (!object?.kind) continue;
    if (object.kind !== "CustomResourceDefinition") object.metadata.namespace = namespace;
    await client.apply(object as { apiVersion: string; kind: string; metadata: { name: string } }, {
      fieldManager: "kubectl",
    });
  }
}

// Every detection case of SPEC 3.1-3.3 on the real plane, with fixture charts that carry the real
// charts' identity facts. No controller pod runs: kwok marks the fixture Deployments Ready.
describe("capability provenance on the local control plane", () => {
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
    if (client && helm) await resetCapabilities(client, helm, [CLOUDNATIVE_PG, CERT_MANAGER], { crds: false });
    await unlock?.();
  });

  /** A namespace for a user's own install, deleted (and waited for) after the test. */
  const foreignNamespace = async (suite: string) => {
    const namespace = await createTestNamespace(suite);
    cleanups.push(() => discardNamespace(client, namespace.name));
    return namespace.name;
  };

  it("nothing installed: Absent, then installs cert-manager first and cloudnative-pg stamped with both marks", async () => {
    const before = await installer.preview("cloudnative-pg");
    expect(before.map((d) => [d.capability, d.state, d.action])).toEqual([
      ["cert-manager", "Absent", "install"],
      ["cloudnative-pg", "Absent", "install"],
    ]);
    expect(before[1]?.evidence).toBe("no release cnpg-system/cloudnative-pg; 0/11 CRDs present; no controller");

    const passes = await ensureReady(installer, "cloudnative-pg");
    // The prerequisite is brought to readiness before cloudnative-pg is touched.
    expect(passes[0]?.[0]?.capability).toBe("cert-manager");
    for (const pass of passes) {
      const certManager = pass.find((d) => d.capability === "cert-manager");
      if (pass.some((d) => d.capability === "cloudnative-pg")) expect(certManager?.ready).toBe(true);
    }

    const records = await releaseRecords(client, "cnpg-system", "cloudnative-pg");
    expect(records).toHaveLength(1);
    expect(records[0]?.metadata?.labels).toMatchObject(OWNERSHIP_MARKS);
    const after = await installer.observe("cloudnative-pg");
    expect(after.decision).toMatchObject({ state: "Owned", action: "none", ready: true, chartVersion: "0.29.0" });
  });

  it("our release at another version: Owned, upgraded to the pinned version", async () => {
    const binary = (await toolchainPaths()).helm;
    const packaged = await mkdtemp(join(tmpdir(), "navique-old-chart-"));
    cleanups.push(() => rm(packaged, { recursive: true, force: true }));
    await run(binary, ["package", CNPG_CHART, "--version", "0.28.0", "--destination", packaged]);
    await helm.install("cloudnative-pg", join(packaged, "cloudnative-pg-0.28.0.tgz"), {
      namespace: "cnpg-system",
      createNamespace: true,
      labels: OWNERSHIP_MARKS,
      wait: false,
    });
    const before = (await installer.observe("cloudnative-pg")).decision;
    expect(before).toMatchObject({ state: "Owned", action: "upgrade", chartVersion: "0.28.0" });
    expect(before.summary).toContain("from 0.28.0 to the pinned 0.29.0");

    await ensureReady(installer, "cloudnative-pg");
    const after = (await installer.observe("cloudnative-pg")).decision;
    expect(after).toMatchObject({ state: "Owned", action: "none", chartVersion: "0.29.0" });
    const records = await releaseRecords(client, "cnpg-system", "cloudnative-pg");
    expect(records.map((r) => r.metadata?.labels?.version).sort()).toEqual(["1", "2"]);
    expect(records.find((r) => r.metadata?.labels?.version === "2")?.metadata?.labels).toMatchObject(OWNERSHIP_MARKS);
  });

  it("a release under the expected name without our marks: Adopted, never upgraded", async () => {
    await helm.install("cloudnative-pg", CNPG_CHART, {
      namespace: "cnpg-system",
      createNamespace: true,
      wait: true,
      timeoutSeconds: 60,
    });
    const decision = (await installer.observe("cloudnative-pg")).decision;
    expect(decision.state).toBe("Adopted");
    expect(decision.action).toBe("none");
    expect(decision.evidence).toContain(
      "release cnpg-system/cloudnative-pg (revision 1, chart 0.29.0) exists without the ownership marks",
    );
    await ensureReady(installer, "cloudnative-pg");
    expect(await releaseRecords(client, "cnpg-system", "cloudnative-pg")).toHaveLength(1);
  });

  it("installed by the user under another release name in another namespace: Adopted, nothing installed", async () => {
    const namespace = await foreignNamespace("postgres-operator");
    // The user applied the CRDs separately and installs the operator without them.
    await applyRawManifests(client, CNPG_CHART, namespace, "crds");
    await helm.install("my-cnpg", CNPG_CHART, {
      namespace,
      values: { crds: { create: false } },
      wait: true,
      timeoutSeconds: 60,
    });
    const decision = (await installer.observe("cloudnative-pg")).decision;
    expect(decision).toMatchObject({ state: "Adopted", action: "none", ready: true });
    expect(decision.evidence).toBe(
      `no release cnpg-system/cloudnative-pg; CRDs present and controller Deployment ${namespace}/my-cnpg-cloudnative-pg matched by label app.kubernetes.io/name=cloudnative-pg`,
    );
    await ensureReady(installer, "cloudnative-pg");
    expect(await releaseRecords(client, "cnpg-system", "cloudnative-pg")).toHaveLength(0);
    await helm.uninstall("my-cnpg", namespace);
  });

  it("installed from raw manifests in another namespace: Adopted through the controller's labels", async () => {
    const namespace = await foreignNamespace("cnpg-raw");
    await applyRawManifests(client, CNPG_CHART, namespace);
    const decision = await eventually("the raw controller to be Ready", async () => {
      const current = (await installer.observe("cloudnative-pg")).decision;
      return current.ready ? current : undefined;
    });
    expect(decision.state).toBe("Adopted");
    expect(decision.evidence).toContain(`controller Deployment ${namespace}/raw-cloudnative-pg matched by label`);
  });

  it("a controller recognisable only by its image repository: Adopted", async () => {
    const namespace = await foreignNamespace("cnpg-image-only");
    await applyRawManifests(client, CNPG_CHART, namespace);
    // Relabel the controller so that only its image can identify it.
    await client.apps.patchNamespacedDeployment(
      {
        name: "raw-cloudnative-pg",
        namespace,
        body: [{ op: "replace", path: "/metadata/labels", value: { app: "database-controller" } }],
      },
      undefined,
    );
    const decision = (await installer.observe("cloudnative-pg")).decision;
    expect(decision.state).toBe("Adopted");
    expect(decision.evidence).toContain(
      `controller Deployment ${namespace}/raw-cloudnative-pg matched by image ghcr.io/cloudnative-pg/cloudnative-pg`,
    );
  });

  it("a controller recognisable only by its image, pulled from a mirror registry: Adopted", async () => {
    const namespace = await foreignNamespace("cnpg-mirror");
    await applyRawManifests(client, CNPG_CHART, namespace);
    // An air-gapped cluster: no identity labels, and the image comes from the cluster's own registry.
    const relabelAndMirror = (image: string) =>
      client.apps.patchNamespacedDeployment(
        {
          name: "raw-cloudnative-pg",
          namespace,
          body: [
            { op: "replace", path: "/metadata/labels", value: { app: "database-controller" } },
            { op: "replace", path: "/spec/template/spec/containers/0/image", value: image },
          ],
        },
        undefined,
      );
    await relabelAndMirror("mirror.example.com/cloudnative-pg/cloudnative-pg:1.30.0");
    const mirrored = (await installer.observe("cloudnative-pg")).decision;
    expect(mirrored).toMatchObject({ state: "Adopted", action: "none" });
    expect(mirrored.evidence).toContain(
      `controller Deployment ${namespace}/raw-cloudnative-pg matched by image mirror.example.com/cloudnative-pg/cloudnative-pg (mirror of ghcr.io/cloudnative-pg/cloudnative-pg)`,
    );

    // A pull-through proxy that keeps the upstream host in the path.
    await relabelAndMirror("registry.local:5000/ghcr.io/cloudnative-pg/cloudnative-pg:1.30.0");
    const proxied = (await installer.observe("cloudnative-pg")).decision;
    expect(proxied.state).toBe("Adopted");
    expect(proxied.evidence).toContain(
      "matched by image registry.local:5000/ghcr.io/cloudnative-pg/cloudnative-pg (mirror of ghcr.io/cloudnative-pg/cloudnative-pg)",
    );
  });

  it("orphaned CRDs alone: Absent, and the chart is installed again", async () => {
    await ensureReady(installer, "cloudnative-pg");
    const crdUid = (await client.extensions.readCustomResourceDefinition({ name: "clusters.postgresql.cnpg.io" }))
      .metadata?.uid;
    expect((await installer.release("cloudnative-pg", [])).uninstalled).toBe(true);

    const orphaned = (await installer.observe("cloudnative-pg")).decision;
    expect(orphaned.state).toBe("Absent");
    expect(orphaned.evidence).toBe(
      "no release cnpg-system/cloudnative-pg; 11/11 CRDs present but no controller matches its identity: CRDs alone are orphans",
    );
    await ensureReady(installer, "cloudnative-pg");
    expect((await installer.observe("cloudnative-pg")).decision.state).toBe("Owned");
    // The CRDs were kept through the uninstall and reused, never deleted.
    expect(
      (await client.extensions.readCustomResourceDefinition({ name: "clusters.postgresql.cnpg.io" })).metadata?.uid,
    ).toBe(crdUid);
  });

  it("an unrelated Deployment in the expected namespace is not mistaken for the operator", async () => {
    // The namespace outlives a reset (emptied, not deleted): applied, it exists whatever ran before.
    await client.apply(
      { apiVersion: "v1", kind: "Namespace", metadata: { name: "cnpg-system" } },
      { fieldManager: "kubectl" },
    );
    await client.apps.createNamespacedDeployment({
      namespace: "cnpg-system",
      body: {
        metadata: { name: "metrics-proxy", labels: { app: "metrics-proxy" } },
        spec: {
          selector: { matchLabels: { app: "metrics-proxy" } },
          template: {
            metadata: { labels: { app: "metrics-proxy" } },
            spec: { containers: [{ name: "proxy", image: "registry.invalid/proxy:1" }] },
          },
        },
      },
    });
    expect((await installer.observe("cloudnative-pg")).decision).toMatchObject({ state: "Absent", action: "install" });
    await ensureReady(installer, "cloudnative-pg");
    expect((await installer.observe("cloudnative-pg")).decision.state).toBe("Owned");
  });

  it("is not Ready while a controller Deployment is not Ready, even with every CRD Established", async () => {
    await helm.install("cert-manager", CERT_MANAGER_CHART, {
      namespace: "cert-manager",
      createNamespace: true,
      labels: OWNERSHIP_MARKS,
      values: { crds: { enabled: true, keep: true }, nodeSelector: { "navique.test/no-such-node": "true" } },
      wait: false,
    });
    const decision = await eventually("the CRDs to be Established", async () => {
      const current = (await installer.observe("cert-manager")).decision;
      return current.waitingFor.every((w) => !w.startsWith("CRD")) ? current : undefined;
    });
    expect(decision.state).toBe("Owned");
    expect(decision.ready).toBe(false);
    expect(decision.waitingFor).toContain("Deployment cert-manager/cert-manager has no available replica");
    // cloudnative-pg waits for its prerequisite and is not installed meanwhile.
    const pass = await installer.ensure("cloudnative-pg");
    expect(pass.map((d) => d.capability)).toEqual(["cert-manager"]);
    expect(await releaseRecords(client, "cnpg-system", "cloudnative-pg")).toHaveLength(0);
  });

  it("releases only at zero consumers and only what it owns; CRDs are never deleted", async () => {
    await ensureReady(installer, "cloudnative-pg");
    const stillNeeded = await installer.release("cloudnative-pg", ["PostgresCluster team-a/main"]);
    expect(stillNeeded).toEqual({
      uninstalled: false,
      reason: "cloudnative-pg still needed by PostgresCluster team-a/main",
    });
    expect(await releaseRecords(client, "cnpg-system", "cloudnative-pg")).toHaveLength(1);

    expect(await installer.release("cloudnative-pg", [])).toEqual({
      uninstalled: true,
      reason: "cloudnative-pg is owned and no longer needed",
    });
    expect(await releaseRecords(client, "cnpg-system", "cloudnative-pg")).toHaveLength(0);
    for (const name of CLOUDNATIVE_PG.crds.names) {
      expect(
        (await client.extensions.readCustomResourceDefinition({ name })).metadata?.deletionTimestamp,
      ).toBeUndefined();
    }

    // An adopted release is never uninstalled, whatever the count.
    await helm.install("cloudnative-pg", CNPG_CHART, { namespace: "cnpg-system", wait: false });
    const adopted = await installer.release("cloudnative-pg", []);
    expect(adopted.uninstalled).toBe(false);
    expect(adopted.reason).toContain("cloudnative-pg is adopted, never uninstalled by the product");
    expect(await releaseRecords(client, "cnpg-system", "cloudnative-pg")).toHaveLength(1);
  });

  it("two processes ensuring the same capability at once install it once", async () => {
    await ensureReady(installer, "cert-manager");
    const script = join(import.meta.dirname, "..", "support", "ensure-capability.ts");
    const tsx = join(process.cwd(), "node_modules", ".bin", "tsx");
    const env = { ...process.env, NAVIQUE_TEST_CHARTS: FIXTURE_CHARTS };
    const results = await Promise.all([
      run(tsx, [script, "cloudnative-pg"], { env }),
      run(tsx, [script, "cloudnative-pg"], { env }),
    ]);
    const outcomes = results.map(
      (r) => JSON.parse(r.stdout.trim().split("\n").pop() ?? "{}") as { installedBy: string[]; state: string },
    );
    expect(outcomes.map((o) => o.state)).toEqual(["Owned", "Owned"]);
    const records = await releaseRecords(client, "cnpg-system", "cloudnative-pg");
    expect(records.map((r) => r.metadata?.labels?.version)).toEqual(["1"]);
    // Exactly one of the two reported performing the install; the other found it done under the lock.
    expect(outcomes.flatMap((o) => o.installedBy)).toHaveLength(1);
  });

  it("a release of ours left pending by an install that died is reinstalled under the lock", async () => {
    await ensureReady(installer, "cert-manager");
    // An install that dies midway: helm waits for a controller that can never be scheduled, and is killed.
    const dying = await spawnDyingHelm("install", ["--create-namespace"]);
    await eventually("the release to be pending-install", async () =>
      (await releaseRecords(client, "cnpg-system", "cloudnative-pg"))[0]?.metadata?.labels?.status === "pending-install"
        ? true
        : undefined,
    );
    dying.kill("SIGKILL");

    const stuck = (await installer.observe("cloudnative-pg")).decision;
    expect(stuck).toMatchObject({ state: "Owned", action: "upgrade" });
    expect(stuck.summary).toContain("to repair revision status pending-install");
    await ensureReady(installer, "cloudnative-pg");
    const records = await releaseRecords(client, "cnpg-system", "cloudnative-pg");
    expect(records.map((r) => r.metadata?.labels?.status)).toEqual(["deployed"]);
    expect(records[0]?.metadata?.labels).toMatchObject(OWNERSHIP_MARKS);
  });

  it("a release of ours left pending by an upgrade that died is rolled back and upgraded under the lock, its controller kept", async () => {
    await ensureReady(installer, "cloudnative-pg");
    const controller = async () => (await client.apps.listNamespacedDeployment({ namespace: "cnpg-system" })).items[0];
    const before = (await controller())?.metadata?.uid;
    expect(before).toBeDefined();
    // Our own upgrade, dying midway: it waits for a controller that can never be scheduled, and is killed.
    const dying = await spawnDyingHelm("upgrade");
    const latest = async () =>
      (await releaseRecords(client, "cnpg-system", "cloudnative-pg")).sort(
        (a, b) => Number(b.metadata?.labels?.version) - Number(a.metadata?.labels?.version),
      )[0];
    await eventually("the release to be pending-upgrade", async () =>
      (await latest())?.metadata?.labels?.status === "pending-upgrade" ? true : undefined,
    );
    dying.kill("SIGKILL");

    const stuck = (await installer.observe("cloudnative-pg")).decision;
    expect(stuck).toMatchObject({ state: "Owned", action: "upgrade" });
    expect(stuck.summary).toContain("to repair revision status pending-upgrade");
    await ensureReady(installer, "cloudnative-pg");
    expect((await latest())?.metadata?.labels).toMatchObject({ status: "deployed", ...OWNERSHIP_MARKS });
    // Rolled back, then upgraded: the history is kept (revisions 1-4), the controller never removed, and
    // it runs the product's values again, not the dead upgrade's.
    const records = await releaseRecords(client, "cnpg-system", "cloudnative-pg");
    expect(records.map((r) => Number(r.metadata?.labels?.version)).sort()).toEqual([1, 2, 3, 4]);
    const deployment = await controller();
    expect(deployment?.metadata?.uid).toBe(before);
    expect(deployment?.spec?.template.spec?.nodeSelector?.["navique.test/no-such-node"]).toBeUndefined();
  });
});
