import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { App, Chart } from "cdk8s";
import { SecretsManagement as SecretsManagementConstruct } from "../../constructs/index.js";
import { ensureNaviqueCrds } from "../../lib/apply/navique-crds.js";
import { EXTERNAL_SECRETS } from "../../lib/catalog/external-secrets.js";
import { SEALED_SECRETS } from "../../lib/catalog/sealed-secrets.js";
import type { HelmCli } from "../../lib/cluster/helm-cli.js";
import { type KubeClient, orUndefined } from "../../lib/cluster/kube-client.js";
import type { ReconcileContext } from "../../lib/engine/context.js";
import type { KubeObject } from "../../lib/engine/objects.js";
import type { SecretsManagementStatus } from "../../lib/kinds/secrets-management/schema.js";
import { toolchainPaths } from "../../lib/local-plane/toolchain-paths.js";
import { createReconcileContext } from "../../lib/reconcile/context.js";
import { destroy, up } from "../../providers/pulumi/runtime.js";
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
import { condition, eventually } from "../support/cluster.js";
import { applyLicence, removeLicence, TEST_TRUSTED_KEYS, testLicenceToken } from "../support/licence.js";
import { suiteNamespaces } from "../support/namespace-content.js";
import { inProcessOperator } from "../support/operator.js";
import { planTrustingTestKey } from "../support/plan-cli.js";
import { expectPlantedNowhere, mayHoldNothing, recordedEvents } from "../support/planted-secret.js";
import { createResource, finalizeResources, readStoredResource, reconcileUntil } from "../support/resources.js";
import {
  commitSealedSecret,
  playExternalSecretsOperator,
  playSealedSecretsController,
} from "../support/secrets-controllers.js";

const ESO = { group: "external-secrets.io", version: "v1" };

/** A value planted where the user keeps it (a remote key, a SealedSecret's plaintext): it may only be in the Secret. */
const PLANTED = "planted-remote-key-value-5c2e91";

const statusOf = (outcome: { plan: { status: unknown } }) => outcome.plan.status as SecretsManagementStatus;
const decoded = (data: Record<string, string> | undefined, key: string) =>
  Buffer.from(data?.[key] ?? "", "base64").toString();

/** The finalizer ESO puts on every ExternalSecret (ExternalSecretFinalizer, pkg/controllers/externalsecret). */
const ESO_FINALIZER = "externalsecrets.external-secrets.io/externalsecret-cleanup";

/** Plays ESO on an ExternalSecret's finalizers: adding its own, or removing it once it has cleaned up. */
async function setExternalSecretFinalizers(client: KubeClient, namespace: string, name: string, finalizers: string[]) {
  await client.custom.patchNamespacedCustomObject({
    ...ESO,
    plural: "externalsecrets",
    namespace,
    name,
    body: [{ op: "add", path: "/metadata/finalizers", value: finalizers }],
  });
}

function readEso(client: KubeClient, plural: string, namespace: string, name: string) {
  return orUndefined(client.custom.getNamespacedCustomObject({ ...ESO, plural, namespace, name })) as Promise<
    KubeObject | undefined
  >;
}

// SecretsManagement on the real plane with real helm, one scenario per backend. The External Secrets
// Operator and the Sealed Secrets controller are installed from their fixture charts (test/fixtures/charts/
// external-secrets and sealed-secrets, standing in for charts 2.9.0 and 2.18.5); no pod runs here, so the
// test plays both controllers (test/support/secrets-controllers.ts): it writes the status each writes and
// the Secret each would materialise, as if a provider had answered or a key had decrypted.
describe("SecretsManagement backends", () => {
  let client: KubeClient;
  let helm: HelmCli;
  let context: ReconcileContext;
  let unlock: () => Promise<void>;
  const namespaces = suiteNamespaces();

  beforeAll(async () => {
    unlock = await lockCapabilities();
    client = testClient();
    helm = await testHelm();
    await ensureNaviqueCrds(client);
    // Nothing of ESO installed, its CRDs gone too. The Sealed Secrets release lives in kube-system, which a
    // reset would empty of the cluster's own objects: only its release is uninstalled.
    await resetCapabilities(client, helm, [EXTERNAL_SECRETS], { crds: true });
    await helm.uninstall(SEALED_SECRETS.release.name, SEALED_SECRETS.release.namespace, { wait: true });
    await applyLicence(client, testLicenceToken({ caps: { SecretsManagement: 20, RedisInstance: 20 } }));
    context = createReconcileContext({ client, helm, source: FIXTURE_SOURCE, trustedKeys: TEST_TRUSTED_KEYS });
  }, CAPABILITY_SUITE_SETUP_MS);
  afterAll(async () => {
    if (context) {
      await namespaces.discard(context);
      await resetCapabilities(client, helm, [EXTERNAL_SECRETS], { crds: false });
      await helm.uninstall(SEALED_SECRETS.release.name, SEALED_SECRETS.release.namespace, { wait: true });
      await removeLicence(client);
    }
    await unlock?.();
  }, CAPABILITY_SUITE_SETUP_MS);

  it("eso: installs ESO, emits a SecretStore and an ExternalSecret per Secret the CRDs accept strictly; Ready once ESO syncs them; a dropped Secret is collected; deletion releases ESO", async () => {
    const ns = await namespaces.create("secrets-eso");
    const gatewayKeys = { name: "gateway-keys", data: [{ key: "openai", remoteKey: "openai-api-key" }] };
    const db = { name: "db", data: [{ key: "password", remoteKey: "apps/db", property: "password" }] };
    const spec = (secrets: unknown[], refreshInterval = "1h") => ({
      backend: "eso",
      eso: {
        provider: {
          azureKeyVault: { vaultUrl: "https://platform.vault.azure.net", serviceAccountRef: { name: "kv-reader" } },
        },
        refreshInterval,
        secrets,
      },
    });
    await createResource(client, "SecretsManagement", ns, "platform", spec([gatewayKeys, db]));
    // Until ESO says so, each wait is named: the store, then each ExternalSecret.
    const waiting = await reconcileUntil<SecretsManagementStatus>(context, "SecretsManagement", ns, "platform", (o) =>
      o.plan.conditions.some((c) => c.type === "SecretsReady" && c.reason === "WaitingForSecrets"),
    );
    expect(waiting.plan.conditions.find((c) => c.type === "SecretsReady")?.message).toBe(
      `waiting for SecretStore ${ns}/platform: the External Secrets Operator has not reported Ready yet; ExternalSecret ${ns}/gateway-keys: the External Secrets Operator has not reported Ready yet; ExternalSecret ${ns}/db: the External Secrets Operator has not reported Ready yet`,
    );
    const ready = await reconcileUntil<SecretsManagementStatus>(
      context,
      "SecretsManagement",
      ns,
      "platform",
      (o) => !o.requeue,
      () => playExternalSecretsOperator(client, ns, () => PLANTED),
    );
    expect(statusOf(ready)).toMatchObject({
      provenance: "owned",
      store: { kind: "SecretStore", name: "platform" },
      secrets: [
        { name: "gateway-keys", ready: true },
        { name: "db", ready: true },
      ],
      capabilities: [expect.objectContaining({ name: "external-secrets", provenance: "owned", chartVersion: "2.9.0" })],
    });
    const stored = await readStoredResource(client, "SecretsManagement", ns, "platform");
    expect(condition(stored, "Ready")).toMatchObject({
      status: "True",
      message: `provides gateway-keys, db in ${ns} through SecretStore platform`,
    });
    const external = await readEso(client, "externalsecrets", ns, "db");
    expect(external?.metadata.annotations?.["core.navique.com/owner"]).toBe(`SecretsManagement/${ns}/platform`);
    expect(external?.spec).toMatchObject({
      secretStoreRef: { kind: "SecretStore", name: "platform" },
      target: { name: "db", creationPolicy: "Owner" },
      data: [{ secretKey: "password", remoteRef: { key: "apps/db", property: "password" } }],
    });

    // What the product emits, as it emits it, passes a strict server-side dry run against the fixture's CRDs
    // (the upstream v1 schemas, providers reduced to the four the product writes): no field unknown to them.
    const emitted = ready.plan.steps.flatMap((s) =>
      s.kind === "apply" && s.object.apiVersion === "external-secrets.io/v1" ? [s.object] : [],
    );
    expect(emitted.map((o) => o.kind)).toEqual(["SecretStore", "ExternalSecret", "ExternalSecret"]);
    const dryRun = (object: KubeObject) =>
      client.custom
        .createNamespacedCustomObject({
          ...ESO,
          plural: object.kind === "SecretStore" ? "secretstores" : "externalsecrets",
          namespace: ns,
          body: { ...object, metadata: { ...object.metadata, name: `${object.metadata.name}-probe` } },
          dryRun: "All",
          fieldValidation: "Strict",
        })
        .then(
          () => "accepted",
          (error: unknown) => String((error as { body?: unknown }).body ?? error),
        );
    for (const object of emitted) expect(await dryRun(object)).toBe("accepted");
    // The check can fail: a field the CRD does not declare is refused, not pruned.
    const [store] = emitted;
    if (!store) throw new Error("nothing emitted");
    expect(
      await dryRun({
        ...store,
        spec: { provider: { azurekv: { vaultUrl: "https://x.vault.azure.net", vaultName: "x" } } },
      }),
    ).toContain('unknown field \\"spec.provider.azurekv.vaultName\\"');

    // The Secret ESO materialised holds the planted value; the product never read it.
    const materialised = await client.core.readNamespacedSecret({ name: "db", namespace: ns });
    expect(decoded(materialised.data, "password")).toBe(PLANTED);

    // A Secret no longer wanted: its ExternalSecret is collected, and Kubernetes collects the Secret it owned.
    await client.custom.patchNamespacedCustomObject({
      group: "core.navique.com",
      version: "v1alpha1",
      plural: "secretsmanagements",
      namespace: ns,
      name: "platform",
      body: [{ op: "replace", path: "/spec/eso/secrets", value: [gatewayKeys] }],
    });
    const collected = await reconcileUntil<SecretsManagementStatus>(
      context,
      "SecretsManagement",
      ns,
      "platform",
      (o) => !o.requeue && (o.plan.status.emitted ?? []).every((e) => e.name !== "db"),
    );
    expect(collected.performedInAllPasses).toContainEqual(expect.stringContaining(`delete ExternalSecret ${ns}/db`));
    expect(await readEso(client, "externalsecrets", ns, "db")).toBeUndefined();
    expect(await readEso(client, "externalsecrets", ns, "gateway-keys")).toBeDefined();
    expect(statusOf(collected).secrets).toEqual([{ name: "gateway-keys", ready: true }]);
    await eventually("the Secret of the collected ExternalSecret to go with it", async () =>
      (await orUndefined(client.core.readNamespacedSecret({ name: "db", namespace: ns }))) === undefined
        ? true
        : undefined,
    );

    // The operator, its log captured, takes a change of the spec to Ready again.
    const logged: string[] = [];
    const operator = inProcessOperator(client, helm, { report: (line) => void logged.push(line) });
    await client.custom.patchNamespacedCustomObject({
      group: "core.navique.com",
      version: "v1alpha1",
      plural: "secretsmanagements",
      namespace: ns,
      name: "platform",
      body: [{ op: "replace", path: "/spec/eso/refreshInterval", value: "15m" }],
    });
    await operator.start();
    try {
      await eventually("the operator to apply the new refresh interval and say Ready", async () => {
        // ESO, played, syncs the ExternalSecret's new generation.
        await playExternalSecretsOperator(client, ns, () => PLANTED);
        const current = await readStoredResource(client, "SecretsManagement", ns, "platform");
        const applied = await readEso(client, "externalsecrets", ns, "gateway-keys");
        return (applied?.spec as { refreshInterval?: string } | undefined)?.refreshInterval === "15m" &&
          current?.status?.observedGeneration === current?.metadata.generation &&
          condition(current, "Ready")?.status === "True"
          ? true
          : undefined;
      });
    } finally {
      await operator.stop();
    }
    expect(logged.length).toBeGreaterThan(0);

    // The planted value is in the materialised Secret only: not in the resource, its status, the Events,
    // what the product emitted, or the operator's log.
    expectPlantedNowhere(PLANTED, {
      [`SecretsManagement ${ns}/platform`]: await readStoredResource(client, "SecretsManagement", ns, "platform"),
      [`the Events of ${ns}`]: await recordedEvents(client, ns),
      [`ExternalSecret ${ns}/gateway-keys`]: await readEso(client, "externalsecrets", ns, "gateway-keys"),
      [`SecretStore ${ns}/platform`]: await readEso(client, "secretstores", ns, "platform"),
      "the operator's log": logged,
    });

    // Deleted: what it emitted goes, and ESO — owned, with no other consumer — is uninstalled, its CRDs kept.
    await finalizeResources(context, "SecretsManagement", ns);
    expect(await readEso(client, "externalsecrets", ns, "gateway-keys")).toBeUndefined();
    expect(await readEso(client, "secretstores", ns, "platform")).toBeUndefined();
    expect(await releaseRecords(client, EXTERNAL_SECRETS.release.namespace, EXTERNAL_SECRETS.release.name)).toEqual([]);
    expect(
      await orUndefined(
        client.extensions.readCustomResourceDefinition({ name: "externalsecrets.external-secrets.io" }),
      ),
    ).toBeDefined();
  });

  it("eso with a ClusterSecretStore you own: nothing made for the store, its Ready read; a second SecretsManagement in the namespace refused", async () => {
    const ns = await namespaces.create("secrets-cluster-store");
    const spec = {
      backend: "eso",
      eso: {
        clusterSecretStoreRef: { name: "shared-vault" },
        secrets: [{ name: "db", data: [{ key: "password", remoteKey: "apps/db" }] }],
      },
    };
    await createResource(client, "SecretsManagement", ns, "platform", spec);
    const missing = await reconcileUntil<SecretsManagementStatus>(context, "SecretsManagement", ns, "platform", (o) =>
      o.plan.conditions.some((c) => c.type === "SecretsReady" && c.reason === "WaitingForSecrets"),
    );
    expect(missing.plan.conditions.find((c) => c.type === "SecretsReady")?.message).toContain(
      "ClusterSecretStore shared-vault: it does not exist (spec.eso.clusterSecretStoreRef): create it, or name one that exists",
    );
    // The user's ClusterSecretStore (cluster-scoped, never written by the product); ESO, played, says it is Ready.
    await client.custom.createClusterCustomObject({
      ...ESO,
      plural: "clustersecretstores",
      body: {
        apiVersion: "external-secrets.io/v1",
        kind: "ClusterSecretStore",
        metadata: { name: "shared-vault" },
        spec: {
          provider: {
            vault: {
              server: "https://vault.example.com:8200",
              auth: { kubernetes: { role: "apps", mountPath: "kubernetes" } },
            },
          },
        },
      },
    });
    await client.custom.patchClusterCustomObjectStatus({
      ...ESO,
      plural: "clustersecretstores",
      name: "shared-vault",
      body: [
        {
          op: "add",
          path: "/status",
          value: { conditions: [{ type: "Ready", status: "True", reason: "Valid", message: "store validated" }] },
        },
      ],
    });
    try {
      const ready = await reconcileUntil<SecretsManagementStatus>(
        context,
        "SecretsManagement",
        ns,
        "platform",
        (o) => !o.requeue,
        () => playExternalSecretsOperator(client, ns, () => PLANTED),
      );
      expect(statusOf(ready)).toMatchObject({
        provenance: "adopted",
        store: { kind: "ClusterSecretStore", name: "shared-vault" },
        secrets: [{ name: "db", ready: true }],
      });
      expect((await readEso(client, "externalsecrets", ns, "db"))?.spec).toMatchObject({
        secretStoreRef: { kind: "ClusterSecretStore", name: "shared-vault" },
      });
      expect(await readEso(client, "secretstores", ns, "platform")).toBeUndefined();
      const clusterStore = (await client.custom.getClusterCustomObject({
        ...ESO,
        plural: "clustersecretstores",
        name: "shared-vault",
      })) as KubeObject;
      expect(clusterStore.metadata.labels?.["core.navique.com/owned-by"]).toBeUndefined();

      // A second one in the namespace: refused, stalled, nothing emitted for it.
      await createResource(client, "SecretsManagement", ns, "another", spec);
      const refused = await reconcileUntil(context, "SecretsManagement", ns, "another", () => true);
      expect(refused.plan.conditions.find((c) => c.type === "Stalled")).toMatchObject({
        status: "True",
        reason: "OnePerNamespace",
      });
      expect(refused.performed).toEqual([]);
      await finalizeResources(context, "SecretsManagement", ns);
    } finally {
      await client.custom.deleteClusterCustomObject({ ...ESO, plural: "clustersecretstores", name: "shared-vault" });
    }
  });

  it("a consumer's secretsRef: a RedisInstance's external connection Secret waits for its SecretsManagement, must be one it provides, then is wired", async () => {
    const ns = await namespaces.create("secrets-consumer");
    await createResource(client, "RedisInstance", ns, "cache", {
      mode: "external",
      external: { connectionSecretRef: { name: "redis-conn" }, secretsRef: { name: "platform" } },
    });
    try {
      const missing = await reconcileUntil(context, "RedisInstance", ns, "cache", () => true);
      expect(missing.plan.conditions.find((c) => c.type === "DependenciesReady")).toMatchObject({
        status: "False",
        reason: "DependencyMissing",
      });
      // The SecretsManagement provides another Secret first: the consumer is refused, the field named.
      await createResource(client, "SecretsManagement", ns, "platform", {
        backend: "sealed-secrets",
        sealedSecrets: { secrets: [{ name: "other" }] },
      });
      // The user commits a SealedSecret once the controller, and with it the SealedSecret kind, is installed:
      // the CRD ships in the chart's crds/, so before the first install on a cluster there is none.
      await reconcileUntil(context, "SecretsManagement", ns, "platform", (o) =>
        o.plan.conditions.some((c) => c.type === "SecretsReady" && c.reason === "WaitingForSecrets"),
      );
      await commitSealedSecret(client, ns, "other");
      await reconcileUntil(
        context,
        "SecretsManagement",
        ns,
        "platform",
        (o) => !o.requeue,
        () => playSealedSecretsController(client, ns, "other", { unsealed: true, data: { password: PLANTED } }),
      );
      const refused = await reconcileUntil(context, "RedisInstance", ns, "cache", (o) =>
        o.plan.conditions.some((c) => c.type === "Stalled"),
      );
      expect(refused.plan.conditions.find((c) => c.type === "Stalled")?.message).toBe(
        `spec.external.connectionSecretRef names Secret redis-conn, which SecretsManagement ${ns}/platform (spec.external.secretsRef) does not provide (it provides other): add it to its spec.eso.secrets or spec.sealedSecrets.secrets, or name one it provides`,
      );
      // It provides redis-conn once it lists it and the played controller has unsealed it: the consumer is wired.
      await client.custom.patchNamespacedCustomObject({
        group: "core.navique.com",
        version: "v1alpha1",
        plural: "secretsmanagements",
        namespace: ns,
        name: "platform",
        body: [{ op: "add", path: "/spec/sealedSecrets/secrets/-", value: { name: "redis-conn" } }],
      });
      await commitSealedSecret(client, ns, "redis-conn");
      await reconcileUntil(
        context,
        "SecretsManagement",
        ns,
        "platform",
        (o) => !o.requeue,
        () =>
          playSealedSecretsController(client, ns, "redis-conn", {
            unsealed: true,
            data: { host: "redis.example.internal", port: "6380", password: PLANTED },
          }),
      );
      const wired = await reconcileUntil(context, "RedisInstance", ns, "cache", (o) => !o.requeue);
      expect(wired.plan.conditions.find((c) => c.type === "DependenciesReady")).toMatchObject({ status: "True" });
      expect(condition(await readStoredResource(client, "RedisInstance", ns, "cache"), "Ready")?.status).toBe("True");
      expectPlantedNowhere(PLANTED, {
        [`RedisInstance ${ns}/cache`]: await readStoredResource(client, "RedisInstance", ns, "cache"),
      });
    } finally {
      // Whatever failed, nothing of this scenario is left holding the controller for the next one.
      await finalizeResources(context, "RedisInstance", ns);
      await finalizeResources(context, "SecretsManagement", ns);
    }
  });

  it("sealed-secrets: installs the controller, emits nothing; Ready once the played controller has unsealed the named Secret", async () => {
    const ns = await namespaces.create("secrets-sealed");
    await createResource(client, "SecretsManagement", ns, "platform", {
      backend: "sealed-secrets",
      sealedSecrets: { secrets: [{ name: "db" }] },
    });
    const waiting = await reconcileUntil<SecretsManagementStatus>(context, "SecretsManagement", ns, "platform", (o) =>
      o.plan.conditions.some((c) => c.type === "SecretsReady" && c.reason === "WaitingForSecrets"),
    );
    expect(waiting.plan.steps.filter((s) => s.kind === "apply")).toEqual([]);
    expect(waiting.plan.conditions.find((c) => c.type === "SecretsReady")?.message).toBe(
      `waiting for Secret ${ns}/db: no Secret, nor SealedSecret, of that name yet: commit the SealedSecret that produces it`,
    );
    expect(statusOf(waiting).capabilities).toEqual([
      expect.objectContaining({ name: "sealed-secrets", provenance: "owned", chartVersion: "2.18.5" }),
    ]);

    // The user commits the SealedSecret; the controller cannot decrypt it first, then does.
    await commitSealedSecret(client, ns, "db");
    await playSealedSecretsController(client, ns, "db", { unsealed: false });
    const failing = await reconcileUntil<SecretsManagementStatus>(context, "SecretsManagement", ns, "platform", (o) =>
      (o.plan.conditions.find((c) => c.type === "SecretsReady")?.message ?? "").includes("to be unsealed"),
    );
    expect(failing.plan.conditions.find((c) => c.type === "SecretsReady")?.message).toBe(
      `waiting for SealedSecret ${ns}/db to be unsealed: Synced False (no key could decrypt secret (password))`,
    );
    const ready = await reconcileUntil<SecretsManagementStatus>(
      context,
      "SecretsManagement",
      ns,
      "platform",
      (o) => !o.requeue,
      () => playSealedSecretsController(client, ns, "db", { unsealed: true, data: { password: PLANTED } }),
    );
    expect(statusOf(ready)).toMatchObject({ provenance: "adopted", secrets: [{ name: "db", ready: true }] });
    expect(condition(await readStoredResource(client, "SecretsManagement", ns, "platform"), "Ready")).toMatchObject({
      status: "True",
      message: `provides db in ${ns}, from your SealedSecrets`,
    });
    expectPlantedNowhere(PLANTED, {
      [`SecretsManagement ${ns}/platform`]: await readStoredResource(client, "SecretsManagement", ns, "platform"),
      // Nothing the product did here records an Event (it installs and emits nothing in the namespace).
      [`the Events of ${ns}`]: mayHoldNothing(await recordedEvents(client, ns)),
    });

    // Deleted: the user's SealedSecret and Secret stay; the controller, owned and unused, is uninstalled.
    await finalizeResources(context, "SecretsManagement", ns);
    expect(await orUndefined(client.core.readNamespacedSecret({ name: "db", namespace: ns }))).toBeDefined();
    expect(await releaseRecords(client, SEALED_SECRETS.release.namespace, SEALED_SECRETS.release.name)).toEqual([]);
  });

  // ESO and the Sealed Secrets controller are played, as in the other scenarios. The played ESO writes the
  // Secret controlled by its ExternalSecret, as ESO does with creationPolicy Owner; once the product deletes
  // the ExternalSecret, the Secret is deleted by Kubernetes' own garbage collector, which runs on this plane —
  // as with ESO running, which deletes a target Secret itself only under deletionPolicy Delete (the product
  // leaves ESO's default, Retain: pkg/controllers/externalsecret cleanupManagedSecrets at helm-chart-2.9.0).
  //
  // ESO puts its finalizer on every ExternalSecret and alone removes it (ExternalSecretFinalizer,
  // pkg/controllers/externalsecret/externalsecret_controller.go); no ESO runs here, so the test plays both:
  // it writes the finalizer as ESO would, and removes it as ESO would once it has cleaned up. Until then ESO
  // must stay installed: uninstalled, nothing would ever remove it, and the ExternalSecret — its namespace
  // with it — would stay Terminating for ever.
  it("a change of backend from eso to sealed-secrets: ESO's objects collected and the change said, ESO kept while its finalizer holds the ExternalSecret and uninstalled once it is gone, the controller installed; not Ready on the Secret ESO wrote, Ready once the played controller has produced its own", async () => {
    const ns = await namespaces.create("secrets-backend-change");
    const gatewayKeys = { name: "gateway-keys", data: [{ key: "openai", remoteKey: "openai-api-key" }] };
    await createResource(client, "SecretsManagement", ns, "platform", {
      backend: "eso",
      eso: { provider: { vault: { server: "https://vault.example.com:8200", role: "apps" } }, secrets: [gatewayKeys] },
    });
    try {
      // Ready on eso as the first scenario brings it there: ESO installed (Owned), the played ESO syncing.
      await reconcileUntil(
        context,
        "SecretsManagement",
        ns,
        "platform",
        (o) => !o.requeue,
        () => playExternalSecretsOperator(client, ns, () => PLANTED),
      );
      expect(
        await releaseRecords(client, EXTERNAL_SECRETS.release.namespace, EXTERNAL_SECRETS.release.name),
      ).toHaveLength(1);
      // The Secret the played ESO wrote, as ESO writes it with creationPolicy Owner: controlled by its ExternalSecret.
      const external = await readEso(client, "externalsecrets", ns, "gateway-keys");
      const esoSecret = await client.core.readNamespacedSecret({ name: "gateway-keys", namespace: ns });
      expect(esoSecret.metadata?.ownerReferences).toEqual([
        expect.objectContaining({
          kind: "ExternalSecret",
          name: "gateway-keys",
          uid: external?.metadata.uid,
          controller: true,
        }),
      ]);
      expect(decoded(esoSecret.data, "openai")).toBe(PLANTED);
      // Played ESO: its finalizer on the ExternalSecret, as ESO adds it on its first reconcile.
      await setExternalSecretFinalizers(client, ns, "gateway-keys", [ESO_FINALIZER]);

      // The backend changes; the user's SealedSecrets will produce the same Secret.
      await client.custom.patchNamespacedCustomObject({
        group: "core.navique.com",
        version: "v1alpha1",
        plural: "secretsmanagements",
        namespace: ns,
        name: "platform",
        body: [
          {
            op: "replace",
            path: "/spec",
            value: { backend: "sealed-secrets", sealedSecrets: { secrets: [{ name: "gateway-keys" }] } },
          },
        ],
      });
      // The controller is installed first (its pass ends there); the next pass collects what eso made, and the
      // release of ESO waits while the ExternalSecret is there.
      const moved = await reconcileUntil<SecretsManagementStatus>(context, "SecretsManagement", ns, "platform", (o) =>
        (o.plan.conditions.find((c) => c.type === "OperatorsReady")?.message ?? "").includes("(deleting)"),
      );
      const change = "(backend changed from eso to sealed-secrets)";
      expect(moved.performedInAllPasses).toEqual([
        expect.stringMatching(/^install sealed-secrets /),
        `delete SecretStore ${ns}/platform ${change}`,
        `delete ExternalSecret ${ns}/gateway-keys ${change}`,
      ]);
      expect(await readEso(client, "secretstores", ns, "platform")).toBeUndefined();
      const terminating = await readEso(client, "externalsecrets", ns, "gateway-keys");
      expect(terminating?.metadata.deletionTimestamp).toBeDefined();
      expect((terminating?.metadata as { finalizers?: string[] } | undefined)?.finalizers).toEqual([ESO_FINALIZER]);
      // ESO is not uninstalled while its finalizer holds the ExternalSecret, and the resource says what it waits for.
      expect(
        await releaseRecords(client, EXTERNAL_SECRETS.release.namespace, EXTERNAL_SECRETS.release.name),
      ).toHaveLength(1);
      const held = `external-secrets is released once its operator has let go of ExternalSecret ${ns}/gateway-keys (deleting) (it removes their finalizers)`;
      const waiting = await readStoredResource(client, "SecretsManagement", ns, "platform");
      expect(condition(waiting, "OperatorsReady")).toMatchObject({
        status: "False",
        reason: "WaitingForRelease",
        message: held,
      });
      expect(condition(waiting, "Ready")).toMatchObject({
        status: "False",
        reason: "WaitingForRelease",
        message: held,
      });
      // The Secret ESO wrote is still there, with its ExternalSecret: it is not taken for the SealedSecret's.
      // Kubernetes' garbage collector deletes it once its owner is gone (docs/secrets-management.md).
      expect(condition(waiting, "SecretsReady")).toMatchObject({
        status: "False",
        reason: "WaitingForSecrets",
        message: `waiting for Secret ${ns}/gateway-keys: the External Secrets Operator wrote it for ExternalSecret gateway-keys, and it goes with it (creationPolicy Owner); once it is gone, commit the SealedSecret that produces it`,
      });
      expect(moved.requeue).toBe(true);
      // Another pass changes nothing: nothing deleted again, ESO still there.
      const again = await reconcileUntil(context, "SecretsManagement", ns, "platform", () => true);
      expect(again.performed).toEqual([]);
      expect(
        await releaseRecords(client, EXTERNAL_SECRETS.release.namespace, EXTERNAL_SECRETS.release.name),
      ).toHaveLength(1);

      // Played ESO: it has cleaned up and removes its finalizer; the ExternalSecret goes. The next pass releases
      // ESO, Owned and needed by no other resource.
      await setExternalSecretFinalizers(client, ns, "gateway-keys", []);
      await eventually("the ExternalSecret to go once its finalizer is removed", async () =>
        (await readEso(client, "externalsecrets", ns, "gateway-keys")) === undefined ? true : undefined,
      );
      const released = await reconcileUntil<SecretsManagementStatus>(
        context,
        "SecretsManagement",
        ns,
        "platform",
        (o) => o.performed.some((step) => step.startsWith("release external-secrets")),
      );
      expect(released.performedInAllPasses).toEqual([
        "release external-secrets: no consumer left (uninstalled only if owned)",
      ]);
      // Uninstalled (its CRDs kept); an Adopted one would never be (test/cluster/provenance.test.ts, "releases
      // only at zero consumers and only what it owns").
      expect(await releaseRecords(client, EXTERNAL_SECRETS.release.namespace, EXTERNAL_SECRETS.release.name)).toEqual(
        [],
      );
      expect(await releaseRecords(client, SEALED_SECRETS.release.namespace, SEALED_SECRETS.release.name)).toHaveLength(
        1,
      );
      expect(statusOf(moved)).toMatchObject({
        backend: "sealed-secrets",
        provenance: "adopted",
        capabilities: [
          expect.objectContaining({ name: "sealed-secrets", provenance: "owned", chartVersion: "2.18.5" }),
        ],
      });
      expect(statusOf(moved).store).toBeUndefined();
      const notes = (await recordedEvents(client, ns))
        .filter((e) => e.regarding?.name === "platform")
        .map((e) => `${e.reason}: ${e.note}`);
      expect(notes).toEqual(
        expect.arrayContaining([
          "CapabilityInstalled: installed sealed-secrets 2.18.5 as release kube-system/sealed-secrets",
          `GarbageCollected: deleting SecretStore ${ns}/platform, no longer needed ${change}`,
          `GarbageCollected: deleting ExternalSecret ${ns}/gateway-keys, no longer needed ${change}`,
        ]),
      );

      await eventually("the Secret ESO wrote to go with its ExternalSecret", async () =>
        (await orUndefined(client.core.readNamespacedSecret({ name: "gateway-keys", namespace: ns }))) === undefined
          ? true
          : undefined,
      );
      const gone = await reconcileUntil<SecretsManagementStatus>(context, "SecretsManagement", ns, "platform", (o) =>
        (o.plan.conditions.find((c) => c.type === "Ready")?.message ?? "").includes("no Secret, nor SealedSecret"),
      );
      expect(gone.plan.conditions.find((c) => c.type === "Ready")).toMatchObject({
        status: "False",
        message: `waiting for Secret ${ns}/gateway-keys: no Secret, nor SealedSecret, of that name yet: commit the SealedSecret that produces it`,
      });

      // The user commits the SealedSecret once ESO's Secret is gone: the Sealed Secrets controller writes no
      // Secret its SealedSecret does not control. The played controller unseals it.
      await commitSealedSecret(client, ns, "gateway-keys");
      const ready = await reconcileUntil<SecretsManagementStatus>(
        context,
        "SecretsManagement",
        ns,
        "platform",
        (o) => !o.requeue,
        () => playSealedSecretsController(client, ns, "gateway-keys", { unsealed: true, data: { openai: PLANTED } }),
      );
      expect(statusOf(ready).secrets).toEqual([{ name: "gateway-keys", ready: true }]);
      const stored = await readStoredResource(client, "SecretsManagement", ns, "platform");
      expect(condition(stored, "Ready")).toMatchObject({
        status: "True",
        message: `provides gateway-keys in ${ns}, from your SealedSecrets`,
      });
      const sealedSecret = await client.core.readNamespacedSecret({ name: "gateway-keys", namespace: ns });
      expect(sealedSecret.metadata?.ownerReferences).toEqual([
        expect.objectContaining({ kind: "SealedSecret", name: "gateway-keys", controller: true }),
      ]);
      expectPlantedNowhere(PLANTED, {
        [`SecretsManagement ${ns}/platform`]: stored,
        [`the Events of ${ns}`]: await recordedEvents(client, ns),
      });
    } finally {
      await finalizeResources(context, "SecretsManagement", ns);
    }
  });

  it("through the Pulumi runtime, cdk8s synth and navique plan: the engine's decisions, names only in the outputs", async () => {
    const ns = await namespaces.create("secrets-front-ends");
    // The user's Secret, as the Sealed Secrets controller would have produced it from a committed SealedSecret.
    await client.core.createNamespacedSecret({
      namespace: ns,
      body: { metadata: { name: "db" }, stringData: { password: PLANTED } },
    });
    const inputs = {
      kind: "SecretsManagement",
      namespace: ns,
      name: "via-pulumi",
      spec: { backend: "sealed-secrets", sealedSecrets: { secrets: [{ name: "db" }] } },
      kubeconfig: process.env.NAVIQUE_TEST_KUBECONFIG ?? "",
      helm: (await toolchainPaths()).helm,
      chartSource: `dir:${FIXTURE_CHARTS}`,
      timeoutSeconds: 120,
    };
    const { outs } = await up(inputs, TEST_TRUSTED_KEYS);
    expect(outs).toMatchObject({ backend: "sealed-secrets", store: "", secrets: ["db"] });
    expectPlantedNowhere(PLANTED, { "the Pulumi outputs": outs });
    await destroy(inputs, TEST_TRUSTED_KEYS);
    expect(await readStoredResource(client, "SecretsManagement", ns, "via-pulumi")).toBeUndefined();

    // cdk8s synth, then `navique plan -f` on what it wrote: the same engine's lines.
    const out = await mkdtemp(join(tmpdir(), "navique-secrets-synth-"));
    try {
      const app = new App({ outdir: out });
      const chart = new Chart(app, "secrets", { namespace: ns });
      new SecretsManagementConstruct(chart, "platform", {
        spec: {
          backend: "eso",
          eso: {
            provider: { vault: { server: "https://vault.example.com:8200", role: "apps" } },
            secrets: [{ name: "db", data: [{ key: "password", remoteKey: "apps/db", property: "password" }] }],
          },
        },
      });
      app.synth();
      const plan = await planTrustingTestKey(["-f", join(out, "secrets.k8s.yaml")], out);
      // A construct is named by its id: its SecretStore bears that name.
      const name = "platform";
      expect(plan.stdout).toContain(`SecretsManagement ${ns}/${name}: capability external-secrets:`);
      expect(plan.stdout).toContain(
        `SecretsManagement ${ns}/${name}: apply SecretStore ${ns}/${name} (Vault https://vault.example.com:8200)`,
      );
      expect(plan.stdout).toContain(
        `SecretsManagement ${ns}/${name}: apply ExternalSecret ${ns}/db (Secret db: password from SecretStore ${name})`,
      );
      expect(plan.code).toBe(2);
      expectPlantedNowhere(PLANTED, {
        "navique plan's output": plan.stdout,
        "what cdk8s wrote": await readFile(join(out, "secrets.k8s.yaml"), "utf8"),
      });
    } finally {
      await rm(out, { recursive: true, force: true });
    }
  });
});
