import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { App, Chart } from "cdk8s";
import { MeilisearchInstance as MeilisearchInstanceConstruct } from "../../constructs/index.js";
import { ensureNaviqueCrds } from "../../lib/apply/navique-crds.js";
import type { HelmCli } from "../../lib/cluster/helm-cli.js";
import { decodeReleaseSecret } from "../../lib/cluster/helm-release-record.js";
import { type KubeClient, orUndefined } from "../../lib/cluster/kube-client.js";
import { runUnchecked } from "../../lib/cluster/process.js";
import type { ReconcileContext } from "../../lib/engine/context.js";
import type { MeilisearchInstanceStatus } from "../../lib/kinds/meilisearch-instance/schema.js";
import { toolchainPaths } from "../../lib/local-plane/toolchain-paths.js";
import { createReconcileContext } from "../../lib/reconcile/context.js";
import { destroy, up } from "../../providers/pulumi/runtime.js";
import { FIXTURE_CHARTS, FIXTURE_SOURCE, testClient, testHelm } from "../support/capabilities.js";
import { condition, eventually } from "../support/cluster.js";
import { TEST_TRUSTED_KEYS } from "../support/licence.js";
import { suiteNamespaces } from "../support/namespace-content.js";
import { inProcessOperator } from "../support/operator.js";
import { createResource, finalizeResources, readStoredResource, reconcileUntil } from "../support/resources.js";
import { deleteProvisionedVolumes, provisionVolume } from "../support/volumes.js";

const TSX = join(process.cwd(), "node_modules", ".bin", "tsx");
const CLI = join(process.cwd(), "lib", "cli", "main.ts");

/** What the volumes this suite provisions are labelled with. */
const SUITE = "meilisearch";

/** A finalizer standing for a controller's, holding an object helm deletes. */
const HELD = "test.navique.com/held";

const statusOf = (outcome: { plan: { status: unknown } }) => outcome.plan.status as MeilisearchInstanceStatus;

/** Every revision helm recorded of a release, decoded: what a release record holds, values included. */
async function releaseRecords(client: KubeClient, namespace: string, name: string) {
  const secrets = await client.core.listNamespacedSecret({ namespace, labelSelector: `owner=helm,name=${name}` });
  return secrets.items.map((secret) => ({ secret, record: decodeReleaseSecret(secret) }));
}

// MeilisearchInstance on the real plane with real helm: the workload release of the fixture chart
// (test/fixtures/charts/meilisearch, standing in for the official chart 0.34.0).
describe("MeilisearchInstance", () => {
  let client: KubeClient;
  let helm: HelmCli;
  let context: ReconcileContext;
  const namespaces = suiteNamespaces();

  beforeAll(async () => {
    client = testClient();
    helm = await testHelm();
    await ensureNaviqueCrds(client);
    context = createReconcileContext({ client, helm, source: FIXTURE_SOURCE, trustedKeys: TEST_TRUSTED_KEYS });
  }, 120_000);
  afterAll(async () => {
    if (context) await namespaces.discard(context);
    await deleteProvisionedVolumes(client, SUITE);
  }, 120_000);

  it("managed: its master key generated and passed by Secret reference, its data on its claim, the release installed once; Ready once rolled out", async () => {
    const ns = await namespaces.create("meili-managed");
    await createResource(client, "MeilisearchInstance", ns, "search", {});
    const ready = await reconcileUntil(
      context,
      "MeilisearchInstance",
      ns,
      "search",
      (o) => !o.requeue,
      () => provisionVolume(client, SUITE, ns, "search-data"),
    );
    expect(statusOf(ready).connection).toEqual({
      host: `search.${ns}.svc`,
      port: 7700,
      credentialsSecret: { name: "search-master-key", namespace: ns },
      url: `http://search.${ns}.svc:7700`,
    });
    const stored = await readStoredResource(client, "MeilisearchInstance", ns, "search");
    expect(condition(stored, "Ready")).toMatchObject({
      status: "True",
      message: `Meilisearch reachable at http://search.${ns}.svc:7700`,
    });
    expect((stored?.status as MeilisearchInstanceStatus | undefined)?.emitted).toContainEqual({
      apiVersion: "helm.sh/release.v1",
      kind: "Release",
      name: "search",
      namespace: ns,
    });

    // The key: 32 characters, the same under the connection's key and the key the chart's pods read.
    const secret = await client.core.readNamespacedSecret({ name: "search-master-key", namespace: ns });
    const key = Buffer.from(secret.data?.password ?? "", "base64").toString();
    expect(key).toMatch(/^[A-Za-z0-9]{32}$/);
    expect(Buffer.from(secret.data?.MEILI_MASTER_KEY ?? "", "base64").toString()).toBe(key);

    // The release: installed once, marked as the resource's, its values holding the Secret's name, never the key.
    const records = await releaseRecords(client, ns, "search");
    expect(records.map((r) => [r.record.revision, r.record.status])).toEqual([[1, "deployed"]]);
    const [first] = records;
    expect(first?.record.labels).toMatchObject({
      "core.navique.com/owned-by": `meilisearchinstance.${ns}.search`,
      "app.kubernetes.io/managed-by": "navique-ai-core-operator",
    });
    expect(first?.record.values).toEqual({
      fullnameOverride: "search",
      environment: { MEILI_ENV: "production", MEILI_NO_ANALYTICS: true },
      auth: { existingMasterKeySecret: "search-master-key" },
      persistence: { enabled: true, existingClaim: "search-data" },
    });
    const payload = Buffer.from(Buffer.from(first?.secret.data?.release ?? "", "base64").toString(), "base64");
    const { gunzipSync } = await import("node:zlib");
    expect(gunzipSync(payload).toString()).not.toContain(key);
    // Nor in the resource's status, nor in an Event about it.
    expect(JSON.stringify(stored)).not.toContain(key);
    const events = await client.events.listNamespacedEvent({ namespace: ns });
    expect(JSON.stringify(events.items)).not.toContain(key);
    // What the chart rendered reads the key from the Secret and the data from the claim.
    const statefulSet = await client.apps.readNamespacedStatefulSet({ name: "search", namespace: ns });
    expect(statefulSet.spec?.template.spec?.containers[0]?.envFrom).toContainEqual({
      secretRef: { name: "search-master-key" },
    });
    expect(statefulSet.spec?.template.spec?.volumes).toContainEqual({
      name: "data",
      persistentVolumeClaim: { claimName: "search-data" },
    });
    const claim = await client.core.readNamespacedPersistentVolumeClaim({ name: "search-data", namespace: ns });
    expect(claim.metadata?.annotations?.["core.navique.com/deletion-policy"]).toBe("Retain");

    // A pass with nothing changed runs no helm: no new revision.
    const again = await reconcileUntil(context, "MeilisearchInstance", ns, "search", (o) => !o.requeue);
    expect(again.performed).toContain(`Helm release ${ns}/search is current (meilisearch 0.34.0, revision 1)`);
    expect((await releaseRecords(client, ns, "search")).map((r) => r.record.revision)).toEqual([1]);

    // Values changed by hand are put back by an upgrade, said in the step.
    await helm.upgrade("search", join(FIXTURE_CHARTS, "meilisearch"), {
      namespace: ns,
      values: { ...first?.record.values, replicaCount: 2 },
      wait: false,
    });
    const restored = await reconcileUntil(context, "MeilisearchInstance", ns, "search", (o) => !o.requeue);
    expect(restored.performedInAllPasses).toContain(
      `upgrade Helm release ${ns}/search (meilisearch 0.34.0: values changed)`,
    );
    const latest = (await releaseRecords(client, ns, "search")).sort(
      (a, b) => b.record.revision - a.record.revision,
    )[0];
    expect(latest?.record.revision).toBe(3);
    expect(latest?.record.values).toEqual(first?.record.values);

    // Deleted under the default Retain: the release is uninstalled; the claim and its key stay, released.
    await finalizeResources(context, "MeilisearchInstance", ns);
    expect(await helm.status("search", ns)).toBeUndefined();
    const kept = await client.core.readNamespacedPersistentVolumeClaim({ name: "search-data", namespace: ns });
    expect(kept.metadata?.labels?.["core.navique.com/owned-by"]).toBeUndefined();
    const keptKey = await client.core.readNamespacedSecret({ name: "search-master-key", namespace: ns });
    expect(Buffer.from(keptKey.data?.password ?? "", "base64").toString()).toBe(key);
  }, 300_000);

  it("never takes over a release of its name that is not its own: NameTaken, the release untouched", async () => {
    const ns = await namespaces.create("meili-taken");
    await helm.install("taken", join(FIXTURE_CHARTS, "meilisearch"), {
      namespace: ns,
      values: {
        environment: { MEILI_ENV: "production" },
        auth: { existingMasterKeySecret: "theirs" },
        persistence: { enabled: true, existingClaim: "theirs" },
      },
      wait: false,
    });
    await createResource(client, "MeilisearchInstance", ns, "taken", {});
    const refused = await reconcileUntil(context, "MeilisearchInstance", ns, "taken", () => true);
    expect(refused.plan.conditions.find((c) => c.type === "DatastoreReady")).toMatchObject({
      status: "False",
      reason: "NameTaken",
      message: `Helm release ${ns}/taken already exists and is not this MeilisearchInstance's: it is left alone. Rename the MeilisearchInstance, or delete or rename that resource`,
    });
    const records = await releaseRecords(client, ns, "taken");
    expect(records.map((r) => r.record.revision)).toEqual([1]);
    expect(records[0]?.record.labels["core.navique.com/owned-by"]).toBeUndefined();
    await finalizeResources(context, "MeilisearchInstance", ns);
    expect((await helm.status("taken", ns))?.info.status).toBe("deployed");
  }, 120_000);

  it("external: wired from its connection Secret, nothing installed", async () => {
    const ns = await namespaces.create("meili-external");
    await client.core.createNamespacedSecret({
      namespace: ns,
      body: { metadata: { name: "search" }, stringData: { host: "search.example.net", password: "not-checked" } },
    });
    await createResource(client, "MeilisearchInstance", ns, "remote", {
      mode: "external",
      external: { connectionSecretRef: { name: "search", key: "password" } },
    });
    const ready = await reconcileUntil(context, "MeilisearchInstance", ns, "remote", (o) => !o.requeue);
    expect(statusOf(ready).connection).toEqual({
      host: "search.example.net",
      port: 7700,
      credentialsSecret: { name: "search", namespace: ns },
      url: "http://search.example.net:7700",
    });
    expect(await helm.status("remote", ns)).toBeUndefined();
    expect(statusOf(ready).emitted ?? []).toEqual([]);
    // Community allows one MeilisearchInstance: each scenario finalizes its own before the next.
    await finalizeResources(context, "MeilisearchInstance", ns);
  }, 120_000);

  it("external through the operator: its connection Secret created, changed or deleted is seen at once, with no resync", async () => {
    const ns = await namespaces.create("meili-external-operator");
    await createResource(client, "MeilisearchInstance", ns, "remote", {
      mode: "external",
      external: { connectionSecretRef: { name: "search", key: "password" } },
    });
    const ready = (want: "True" | "False", says: string) => async () => {
      const now = condition(await readStoredResource(client, "MeilisearchInstance", ns, "remote"), "Ready");
      if (now?.status !== want || !now.message?.includes(says)) {
        throw new Error(`Ready is ${now?.status}: ${now?.message}`);
      }
      return now;
    };
    // No resync in the test's time: only the metadata-only watch of Secrets can bring each change.
    const operator = inProcessOperator(client, helm, { resyncMs: 600_000, requeueMs: 600_000 });
    await operator.start();
    try {
      await eventually("the missing connection Secret said", ready("False", `Secret ${ns}/search`));
      const body = { metadata: { name: "search" }, stringData: { host: "one.example.net", password: "not-checked" } };
      await client.core.createNamespacedSecret({ namespace: ns, body });
      await eventually("Ready once the Secret exists", ready("True", ""));
      await client.core.replaceNamespacedSecret({
        name: "search",
        namespace: ns,
        body: { ...body, stringData: { ...body.stringData, host: "two.example.net" } },
      });
      await eventually("the new host published", async () => {
        const stored = await readStoredResource(client, "MeilisearchInstance", ns, "remote");
        const host = (stored?.status as MeilisearchInstanceStatus | undefined)?.connection?.host;
        if (host !== "two.example.net") throw new Error(`status.connection.host is ${host}`);
        return true;
      });
      await client.core.deleteNamespacedSecret({ name: "search", namespace: ns });
      await eventually("the deleted Secret said", ready("False", `Secret ${ns}/search`));
    } finally {
      await operator.stop();
      await finalizeResources(context, "MeilisearchInstance", ns);
    }
  }, 120_000);

  it("through the operator: Ready; a release uninstalled by hand, left uninstalling by a helm that died, or gone while the operator was down, is installed again", async () => {
    const ns = await namespaces.create("meili-operator");
    await createResource(client, "MeilisearchInstance", ns, "ops", {});
    const ready = async () => {
      await provisionVolume(client, SUITE, ns, "ops-data");
      // Said in the failure, if it comes: what Ready last said.
      const now = condition(await readStoredResource(client, "MeilisearchInstance", ns, "ops"), "Ready");
      if (now?.status !== "True") throw new Error(`Ready is ${now?.status}: ${now?.message}`);
      return true;
    };
    const deployedAgain = async (what: string) => {
      await eventually(
        `the operator to install release ops again ${what}`,
        async () => ((await helm.status("ops", ns))?.info.status === "deployed" ? true : undefined),
        { timeoutMs: 60_000 },
      );
      await eventually(`MeilisearchInstance ops Ready again ${what}`, ready);
    };
    // No resync in the test's time: what brings the release back is the watch of its records.
    const trace = process.env.NAVIQUE_TEST_TRACE ? (line: string) => process.stderr.write(`${line}\n`) : () => {};
    let operator = inProcessOperator(client, helm, { resyncMs: 600_000, report: trace });
    await operator.start();
    try {
      await eventually("the operator to make MeilisearchInstance ops Ready", ready);
      expect((await helm.status("ops", ns))?.info.status).toBe("deployed");

      await helm.uninstall("ops", ns);
      await deployedAgain("after an uninstall by hand");

      // An uninstall that dies midway: a finalizer (a controller's, played here) holds the release's
      // ServiceAccount, helm waits for it and is killed, its revision left `uninstalling`. The operator is
      // stopped meanwhile: running, it takes up the revision the moment helm marks it — it completes an
      // uninstall still running as readily as a dead one's — and the test could not see the state it means
      // to leave.
      await operator.stop();
      await client.core.patchNamespacedServiceAccount({
        name: "ops",
        namespace: ns,
        body: [{ op: "add", path: "/metadata/finalizers", value: [HELD] }],
      });
      const dying = spawn(
        (await toolchainPaths()).helm,
        ["uninstall", "ops", "--namespace", ns, "--kubeconfig", process.env.NAVIQUE_TEST_KUBECONFIG ?? "", "--wait"],
        { stdio: "ignore" },
      );
      try {
        await eventually("helm to mark revision uninstalling", async () =>
          (await releaseRecords(client, ns, "ops")).some((r) => r.record.status === "uninstalling") ? true : undefined,
        );
      } finally {
        dying.kill("SIGKILL");
        // The controller finishes: the ServiceAccount goes.
        await client.core.patchNamespacedServiceAccount({
          name: "ops",
          namespace: ns,
          body: [{ op: "remove", path: "/metadata/finalizers" }],
        });
      }
      expect((await releaseRecords(client, ns, "ops")).map((r) => r.record.status)).toEqual(["uninstalling"]);
      operator = inProcessOperator(client, helm, { resyncMs: 600_000, report: trace });
      await operator.start();
      await deployedAgain("after an uninstall that died");
      expect((await releaseRecords(client, ns, "ops")).map((r) => r.record.status)).toEqual(["deployed"]);

      // Gone while no operator ran: the first pass of the next one installs it.
      await operator.stop();
      await helm.uninstall("ops", ns);
      operator = inProcessOperator(client, helm, { resyncMs: 600_000, report: trace });
      await operator.start();
      await deployedAgain("after an uninstall while the operator was down");
    } finally {
      await operator.stop();
      await finalizeResources(context, "MeilisearchInstance", ns);
    }
    expect(await helm.status("ops", ns)).toBeUndefined();
  }, 240_000);

  it("through the Pulumi runtime: its outputs, the master key a secret; destroy uninstalls the release", async () => {
    const ns = await namespaces.create("meili-pulumi");
    const inputs = {
      kind: "MeilisearchInstance",
      namespace: ns,
      name: "via-pulumi",
      spec: { managed: { deletionPolicy: "Delete" } },
      kubeconfig: process.env.NAVIQUE_TEST_KUBECONFIG ?? "",
      helm: (await toolchainPaths()).helm,
      chartSource: `dir:${FIXTURE_CHARTS}`,
      timeoutSeconds: 120,
    };
    const volume = setInterval(
      () => void provisionVolume(client, SUITE, ns, "via-pulumi-data").catch(() => undefined),
      500,
    );
    try {
      const { outs } = await up(inputs, TEST_TRUSTED_KEYS);
      const secret = await client.core.readNamespacedSecret({ name: "via-pulumi-master-key", namespace: ns });
      expect(outs).toMatchObject({
        url: `http://via-pulumi.${ns}.svc:7700`,
        host: `via-pulumi.${ns}.svc`,
        port: 7700,
        credentialsSecret: { name: "via-pulumi-master-key", namespace: ns },
        masterKey: Buffer.from(secret.data?.password ?? "", "base64").toString(),
        provenance: "owned",
      });
    } finally {
      clearInterval(volume);
    }
    await destroy(inputs, TEST_TRUSTED_KEYS);
    expect(await helm.status("via-pulumi", ns)).toBeUndefined();
    // Under Delete the claim goes with it.
    expect(
      await orUndefined(client.core.readNamespacedPersistentVolumeClaim({ name: "via-pulumi-data", namespace: ns })),
    ).toBeUndefined();
  }, 180_000);

  it("through cdk8s synth and navique plan: the release step said before anything runs", async () => {
    const ns = await namespaces.create("meili-synth");
    const out = await mkdtemp(join(tmpdir(), "navique-meili-synth-"));
    try {
      const app = new App({ outdir: out });
      const chart = new Chart(app, "search", { namespace: ns });
      new MeilisearchInstanceConstruct(chart, "from-git", { spec: { managed: { storage: { size: "5Gi" } } } });
      app.synth();
      const plan = await runUnchecked(
        TSX,
        [CLI, "plan", "-f", join(out, "search.k8s.yaml"), "--chart-source", `dir:${FIXTURE_CHARTS}`],
        { env: { ...process.env, KUBECONFIG: process.env.NAVIQUE_TEST_KUBECONFIG ?? "" } },
      );
      expect(plan.code).toBe(2);
      expect(plan.stderr).toContain("plan: 1 judged: 1 to change");
      expect(plan.stdout).toContain(
        `MeilisearchInstance ${ns}/from-git: install Helm release ${ns}/from-git (meilisearch 0.34.0)`,
      );
      expect(plan.stdout).toContain(
        `MeilisearchInstance ${ns}/from-git: apply PersistentVolumeClaim ${ns}/from-git-data (5Gi, deletion policy Retain)`,
      );
    } finally {
      await rm(out, { recursive: true, force: true });
    }
  }, 120_000);
});
