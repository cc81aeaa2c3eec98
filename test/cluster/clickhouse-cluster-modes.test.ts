import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { App, Chart } from "cdk8s";
import { ClickHouseCluster as ClickHouseClusterConstruct } from "../../constructs/index.js";
import { CERT_MANAGER } from "../../lib/catalog/cert-manager.js";
import { CLICKHOUSE_OPERATOR } from "../../lib/catalog/clickhouse-operator.js";
import type { HelmCli } from "../../lib/cluster/helm-cli.js";
import { decodeReleaseSecret } from "../../lib/cluster/helm-release-record.js";
import { type KubeClient, orUndefined } from "../../lib/cluster/kube-client.js";
import { run, runUnchecked } from "../../lib/cluster/process.js";
import type { ReconcileContext } from "../../lib/engine/context.js";
import type { KubeObject } from "../../lib/engine/objects.js";
import type { ClickHouseClusterStatus } from "../../lib/kinds/clickhouse-cluster/schema.js";
import { toolchainPaths } from "../../lib/local-plane/toolchain-paths.js";
import { destroy, up } from "../../providers/pulumi/runtime.js";
import { FIXTURE_CHARTS, releaseRecords } from "../support/capabilities.js";
import { capabilitySuite } from "../support/capability-suite.js";
import {
  type ClickHouseObject,
  createClickHouse,
  playClickHouseOperator,
  readClickHouse,
} from "../support/clickhouse.js";
import { condition, eventually } from "../support/cluster.js";
import { TEST_TRUSTED_KEYS } from "../support/licence.js";
import { inProcessOperator } from "../support/operator.js";
import { planTrustingTestKey } from "../support/plan-cli.js";
import { expectPlantedNowhere, mayHoldNothing, recordedEvents } from "../support/planted-secret.js";
import {
  createReferenceGrant,
  createResource,
  finalizeResources,
  readStoredResource,
  reconcileUntil,
} from "../support/resources.js";

const CLICKHOUSE = { group: "clickhouse.com", version: "v1alpha1" };

/** Passwords planted where the user keeps them: none may appear in clear text in anything the product writes. */
const ADOPTED_PASSWORD = "planted-adopted-clickh0use-7d1f";
const EXTERNAL_PASSWORD = "planted-external-clickh0use-93ab";

const statusOf = (outcome: { plan: { status: unknown } }) => outcome.plan.status as ClickHouseClusterStatus;
const decoded = (data: Record<string, string> | undefined, key: string) =>
  Buffer.from(data?.[key] ?? "", "base64").toString();

/** What a helm release of a capability records, values included, every revision. */
async function recordsOf(client: KubeClient, release: { name: string; namespace: string }) {
  return (await releaseRecords(client, release.namespace, release.name)).map((secret) => decodeReleaseSecret(secret));
}

// ClickHouseCluster on the real plane with real helm, one scenario per mode, then through each front end.
// cert-manager and the ClickHouse operator are installed from their fixture charts (test/fixtures/charts/
// cert-manager, clickhouse-operator-helm, standing in for v1.21.1 and 0.0.7); no pod runs here, so the test
// plays the ClickHouse operator (test/support/clickhouse.ts): it writes the Ready conditions the operator
// writes once its pods serve.
describe("ClickHouseCluster modes", () => {
  // Nothing of either installed, their CRDs gone too: the product must bring cert-manager first. After the
  // suite cert-manager stays.
  const suite = capabilitySuite({
    capabilities: [CLICKHOUSE_OPERATOR, CERT_MANAGER],
    crds: true,
    uninstallAfter: [CLICKHOUSE_OPERATOR],
    licence: { caps: { ClickHouseCluster: 20 } },
  });
  const { namespaces } = suite;
  let client: KubeClient;
  let helm: HelmCli;
  let context: ReconcileContext;
  beforeAll(() => {
    ({ client, helm, context } = suite);
  });

  it("the operator's chart needs cert-manager: without its CRDs, helm cannot create the chart's Issuer and Certificates", async () => {
    const ns = await namespaces.create("ch-chart-alone");
    const installed = await runUnchecked((await toolchainPaths()).helm, [
      "install",
      "alone",
      join(FIXTURE_CHARTS, CLICKHOUSE_OPERATOR.chart.name),
      "--namespace",
      ns,
      "--set",
      "crd.enabled=false",
      "--kubeconfig",
      process.env.NAVIQUE_TEST_KUBECONFIG ?? "",
    ]);
    expect(installed.code).not.toBe(0);
    expect(installed.stderr).toMatch(/no matches for kind "(Issuer|Certificate)" in version "cert-manager\.io\/v1"/);
    // Unless the tag is set, the controller runs the chart's own operator: the appVersion.
    const rendered = await run((await toolchainPaths()).helm, [
      "template",
      CLICKHOUSE_OPERATOR.release.name,
      join(FIXTURE_CHARTS, CLICKHOUSE_OPERATOR.chart.name),
      "--show-only",
      "templates/manager.yaml",
    ]);
    expect(rendered.stdout).toContain(
      `image: "ghcr.io/clickhouse/clickhouse-operator:${CLICKHOUSE_OPERATOR.chart.appVersion}"`,
    );
  });

  it("managed: installs cert-manager, then the operator; generates the password, emits a KeeperCluster, a ClickHouseCluster and a Service the CRDs accept strictly; Ready once the operator says so; Retain keeps them", async () => {
    const ns = await namespaces.create("ch-managed");
    await createResource(client, "ClickHouseCluster", ns, "traces", {});
    const ready = await reconcileUntil<ClickHouseClusterStatus>(
      context,
      "ClickHouseCluster",
      ns,
      "traces",
      (o) => !o.requeue,
      () => playClickHouseOperator(client, ns, "traces"),
    );

    // cert-manager installed, and brought to readiness, before the ClickHouse operator's chart, whose Issuer
    // and Certificate need its CRDs (and, in a real cluster, its webhook serving).
    expect(ready.performedInAllPasses.slice(0, 2)).toEqual([
      "install cert-manager v1.21.1 as release cert-manager/cert-manager (no release cert-manager/cert-manager; 0/6 CRDs present; no controller)",
      "install clickhouse-operator 0.0.7 as release clickhouse-operator-system/clickhouse-operator (no release clickhouse-operator-system/clickhouse-operator; 0/2 CRDs present; no controller)",
    ]);
    const certManager = (await recordsOf(client, CERT_MANAGER.release))[0];
    const operator = (await recordsOf(client, CLICKHOUSE_OPERATOR.release))[0];
    expect(certManager?.status).toBe("deployed");
    expect(operator?.status).toBe("deployed");
    expect(operator?.values).toEqual(CLICKHOUSE_OPERATOR.values);
    const issuers = (await client.custom.listNamespacedCustomObject({
      group: "cert-manager.io",
      version: "v1",
      plural: "issuers",
      namespace: CLICKHOUSE_OPERATOR.release.namespace,
    })) as { items: { metadata: { name: string } }[] };
    expect(issuers.items.map((i) => i.metadata.name)).toEqual(["clickhouse-operator-selfsigned-issuer"]);
    // The webhook server's certificate and the metrics endpoint's, both mounted by the controller's pod.
    const certificates = (await client.custom.listNamespacedCustomObject({
      group: "cert-manager.io",
      version: "v1",
      plural: "certificates",
      namespace: CLICKHOUSE_OPERATOR.release.namespace,
    })) as { items: { metadata: { name: string }; spec: { secretName: string } }[] };
    expect(certificates.items.map((c) => [c.metadata.name, c.spec.secretName]).sort()).toEqual([
      ["clickhouse-operator-metrics-certs", "metrics-server-cert"],
      ["clickhouse-operator-serving-cert", "clickhouse-operator-webhook-server-cert"],
    ]);
    const installs = (await recordedEvents(client, ns))
      .filter((e) => e.reason === "CapabilityInstalled")
      .map((e) => e.note ?? "")
      .sort();
    expect(installs).toEqual([
      "installed cert-manager v1.21.1 as release cert-manager/cert-manager",
      "installed clickhouse-operator 0.0.7 as release clickhouse-operator-system/clickhouse-operator",
    ]);

    expect(statusOf(ready).connection).toEqual({
      host: `traces.${ns}.svc`,
      port: 8123,
      credentialsSecret: { name: "traces-credentials", namespace: ns },
      url: `http://traces.${ns}.svc:8123`,
    });
    expect(statusOf(ready).nativePort).toBe(9000);
    const stored = await readStoredResource(client, "ClickHouseCluster", ns, "traces");
    expect(condition(stored, "Ready")).toMatchObject({
      status: "True",
      message: `ClickHouse reachable at traces.${ns}.svc:8123 (HTTP) and traces.${ns}.svc:9000 (native)`,
    });
    expect(condition(stored, "DatastoreReady")?.message).toBe(
      `KeeperCluster ${ns}/traces: Ready (StandaloneReady: Standalone Keeper is ready); ClickHouseCluster ${ns}/traces: Ready (AllShardsReady: All shards are ready)`,
    );

    const secret = await client.core.readNamespacedSecret({ name: "traces-credentials", namespace: ns });
    const password = decoded(secret.data, "password");
    expect(password).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(decoded(secret.data, "username")).toBe("default");

    const cluster = (await readClickHouse(client, "clickhouseclusters", ns, "traces")) as ClickHouseObject;
    const keeper = (await readClickHouse(client, "keeperclusters", ns, "traces")) as ClickHouseObject;
    expect(cluster.spec).toMatchObject({
      replicas: 1,
      shards: 1,
      keeperClusterRef: { name: "traces" },
      containerTemplate: { image: { repository: "docker.io/clickhouse/clickhouse-server", tag: "25.8" } },
      dataVolumeClaimSpec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "10Gi" } } },
      settings: {
        defaultUserPassword: { passwordType: "password", secret: { name: "traces-credentials", key: "password" } },
      },
    });
    expect(keeper.spec).toMatchObject({
      replicas: 1,
      dataVolumeClaimSpec: { resources: { requests: { storage: "1Gi" } } },
    });
    expect(cluster.metadata.annotations?.["core.navique.com/owner"]).toBe(`ClickHouseCluster/${ns}/traces`);
    const service = await client.core.readNamespacedService({ name: "traces", namespace: ns });
    expect(service.spec?.selector).toEqual({ app: "traces-clickhouse", "clickhouse.com/role": "clickhouse-server" });
    expect(service.spec?.ports?.map((p) => [p.name, p.port])).toEqual([
      ["http", 8123],
      ["tcp", 9000],
    ]);
    // Beside the operator's own headless Service, which the test made as the operator does.
    expect(
      await orUndefined(client.core.readNamespacedService({ name: "traces-clickhouse-headless", namespace: ns })),
    ).toBeDefined();

    // What the product emits, as it emits it, passes a strict server-side dry run against the fixture's CRDs
    // (the upstream CRDs' group, version, names and the fields the product sets): no field unknown to them.
    const emitted = ready.plan.steps.flatMap((s) =>
      s.kind === "apply" && s.object.apiVersion === "clickhouse.com/v1alpha1" ? [s.object] : [],
    );
    expect(emitted.map((o) => o.kind).sort()).toEqual(["ClickHouseCluster", "KeeperCluster"]);
    const dryRun = (object: KubeObject) =>
      client.custom
        .createNamespacedCustomObject({
          ...CLICKHOUSE,
          plural: object.kind === "ClickHouseCluster" ? "clickhouseclusters" : "keeperclusters",
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
    const [first] = emitted;
    if (!first) throw new Error("nothing emitted");
    expect(await dryRun({ ...first, spec: { ...(first.spec as object), storageSize: "10Gi" } })).toContain(
      'unknown field \\"spec.storageSize\\"',
    );

    // The generated password is in its Secret only: not in any custom resource, status, Event or chart value.
    expectPlantedNowhere(password, {
      [`ClickHouseCluster (ours) ${ns}/traces`]: stored,
      [`ClickHouseCluster ${ns}/traces`]: cluster,
      [`KeeperCluster ${ns}/traces`]: keeper,
      [`the Events of ${ns}`]: await recordedEvents(client, ns),
      "the operator release's records": await recordsOf(client, CLICKHOUSE_OPERATOR.release),
      "cert-manager's release records": await recordsOf(client, CERT_MANAGER.release),
    });

    // Deleted under the default Retain: the ClickHouseCluster and what it needs stay, released to the user.
    await finalizeResources(context, "ClickHouseCluster", ns);
    const kept = await readClickHouse(client, "clickhouseclusters", ns, "traces");
    expect(kept?.metadata.labels?.["core.navique.com/owned-by"]).toBeUndefined();
    expect(kept?.metadata.annotations?.["core.navique.com/owner"]).toBeUndefined();
    const keptKeeper = await readClickHouse(client, "keeperclusters", ns, "traces");
    expect(keptKeeper).toBeDefined();
    expect(keptKeeper?.metadata.labels?.["core.navique.com/owned-by"]).toBeUndefined();
    const keptSecret = await client.core.readNamespacedSecret({ name: "traces-credentials", namespace: ns });
    expect(keptSecret.data?.password).toBe(secret.data?.password);
    expect(await orUndefined(client.core.readNamespacedService({ name: "traces", namespace: ns }))).toBeDefined();
    const retained = (await recordedEvents(client, ns)).filter((e) => e.reason === "DatastoreRetained");
    expect(retained.map((e) => e.note)).toEqual([
      `ClickHouseCluster ${ns}/traces may hold data and was kept (deletionPolicy Retain) (ClickHouseCluster ${ns}/traces deleted), with its password Secret ${ns}/traces-credentials and its KeeperCluster ${ns}/traces and its Service ${ns}/traces; they are released to you and no longer managed: dump its data and delete them yourself when safe. Deleting namespace ${ns} deletes them all the same, and the data on their volumes unless their PersistentVolumes' reclaim policy is Retain`,
    ]);
  });

  it("adopt: a ClickHouseCluster of the operator in another namespace, refused until a grant names it and its Secret; the password copied into <name>-adopted-credentials", async () => {
    const data = await namespaces.create("ch-data");
    const apps = await namespaces.create("ch-apps");
    // The user's own cluster, made without the product (the CRDs are there: the operator's chart keeps them).
    await client.core.createNamespacedSecret({
      namespace: data,
      body: { metadata: { name: "shared-auth" }, stringData: { pw: ADOPTED_PASSWORD } },
    });
    await createClickHouse(client, "KeeperCluster", data, "shared", { replicas: 3 });
    await createClickHouse(client, "ClickHouseCluster", data, "shared", {
      replicas: 2,
      keeperClusterRef: { name: "shared" },
      settings: { defaultUserPassword: { secret: { name: "shared-auth", key: "pw" } } },
    });
    const spec = {
      mode: "adopt",
      adopt: {
        clusterRef: { name: "shared", namespace: data },
        credentialsSecretRef: { name: "shared-auth", namespace: data, key: "pw" },
      },
    };
    await createResource(client, "ClickHouseCluster", apps, "analytics", spec);
    const refused = await reconcileUntil(context, "ClickHouseCluster", apps, "analytics", () => true);
    expect(refused.plan.conditions[0]).toMatchObject({ reason: "ReferenceNotPermitted" });
    expect(refused.plan.conditions[0]?.message).toContain(`spec.adopt.clusterRef`);
    expect(
      await orUndefined(client.core.readNamespacedSecret({ name: "analytics-adopted-credentials", namespace: apps })),
    ).toBeUndefined();

    // A grant naming the cluster but not its Secret: still refused, the Secret named.
    await createReferenceGrant(client, data, "apps-clickhouse", {
      from: [{ group: "core.navique.com", kind: "ClickHouseCluster", namespace: apps }],
      to: [{ group: "clickhouse.com", kind: "ClickHouseCluster", name: "shared" }],
    });
    const half = await reconcileUntil(context, "ClickHouseCluster", apps, "analytics", () => true);
    expect(half.plan.conditions[0]).toMatchObject({ reason: "ReferenceNotPermitted" });
    expect(half.plan.conditions[0]?.message).toContain("spec.adopt.credentialsSecretRef");
    expect(half.plan.conditions[0]?.message).not.toContain("spec.adopt.clusterRef");

    await createReferenceGrant(client, data, "apps-clickhouse-secret", {
      from: [{ group: "core.navique.com", kind: "ClickHouseCluster", namespace: apps }],
      to: [{ group: "", kind: "Secret", name: "shared-auth" }],
    });
    const waiting = await reconcileUntil(context, "ClickHouseCluster", apps, "analytics", () => true);
    expect(waiting.plan.conditions.find((c) => c.type === "DatastoreReady")).toMatchObject({
      status: "False",
      reason: "AdoptedClickHouseNotReady",
      message: `waiting for the adopted ClickHouseCluster ${data}/shared: the operator has written no Ready condition yet`,
    });
    await playClickHouseOperator(client, data, "shared");
    const adopted = await reconcileUntil<ClickHouseClusterStatus>(
      context,
      "ClickHouseCluster",
      apps,
      "analytics",
      (o) => !o.requeue,
    );
    expect(statusOf(adopted)).toMatchObject({
      provenance: "adopted",
      connection: {
        host: `shared-clickhouse-headless.${data}.svc`,
        port: 8123,
        credentialsSecret: { name: "analytics-adopted-credentials", namespace: apps },
        url: `http://shared-clickhouse-headless.${data}.svc:8123`,
      },
      nativePort: 9000,
    });
    const copy = await client.core.readNamespacedSecret({ name: "analytics-adopted-credentials", namespace: apps });
    expect(decoded(copy.data, "password")).toBe(ADOPTED_PASSWORD);
    expect(decoded(copy.data, "username")).toBe("default");
    // Adopted, never touched: no mark of ours on the user's cluster, and no operator installed for it.
    const shared = (await readClickHouse(client, "clickhouseclusters", data, "shared")) as ClickHouseObject;
    expect(shared.metadata.labels?.["core.navique.com/owned-by"]).toBeUndefined();
    expect(adopted.plan.status.needs).toEqual([]);
    // The planted password is in the Secrets only.
    expectPlantedNowhere(ADOPTED_PASSWORD, {
      [`ClickHouseCluster (ours) ${apps}/analytics`]: await readStoredResource(
        client,
        "ClickHouseCluster",
        apps,
        "analytics",
      ),
      [`the Events of ${apps} and ${data}`]: await recordedEvents(client, apps, data),
      [`ClickHouseCluster ${data}/shared`]: await readClickHouse(client, "clickhouseclusters", data, "shared"),
    });

    // Deleted: the copy goes with it (owned), the adopted cluster stays as it was.
    await finalizeResources(context, "ClickHouseCluster", apps);
    await eventually("the copied credentials to be collected", async () =>
      (await orUndefined(
        client.core.readNamespacedSecret({ name: "analytics-adopted-credentials", namespace: apps }),
      )) === undefined
        ? true
        : undefined,
    );
    expect(await readClickHouse(client, "clickhouseclusters", data, "shared")).toBeDefined();
  });

  it("external: the connection Secret's keys checked; then through the operator, the Pulumi runtime, cdk8s synth and navique plan", async () => {
    const ns = await namespaces.create("ch-external");
    const spec = { mode: "external" as const, external: { connectionSecretRef: { name: "ch-conn" } } };
    // Lacking username and password: said, and stalled until someone adds them.
    await client.core.createNamespacedSecret({
      namespace: ns,
      body: { metadata: { name: "ch-conn" }, stringData: { host: "clickhouse.example.internal", port: "8443" } },
    });
    await createResource(client, "ClickHouseCluster", ns, "ext", spec);
    const lacking = await reconcileUntil(context, "ClickHouseCluster", ns, "ext", () => true);
    expect(lacking.plan.conditions.find((c) => c.type === "DatastoreReady")).toMatchObject({
      status: "False",
      reason: "ConnectionSecretInvalid",
      message: `Secret ${ns}/ch-conn lacks keys username, password: add them (host, port, username, password)`,
    });
    expect(condition(lacking.plan, "Stalled")?.status).toBe("True");
    await client.core.patchNamespacedSecret({
      namespace: ns,
      name: "ch-conn",
      body: [
        {
          op: "add",
          path: "/data",
          value: Object.fromEntries(
            Object.entries({
              host: "clickhouse.example.internal",
              port: "8443",
              nativePort: "9440",
              username: "langfuse",
              password: EXTERNAL_PASSWORD,
            }).map(([k, v]) => [k, Buffer.from(v).toString("base64")]),
          ),
        },
      ],
    });
    const wired = await reconcileUntil<ClickHouseClusterStatus>(
      context,
      "ClickHouseCluster",
      ns,
      "ext",
      (o) => !o.requeue,
    );
    expect(statusOf(wired)).toMatchObject({
      provenance: "external",
      connection: {
        host: "clickhouse.example.internal",
        port: 8443,
        credentialsSecret: { name: "ch-conn", namespace: ns },
        url: "http://clickhouse.example.internal:8443",
      },
      nativePort: 9440,
    });
    expect(wired.plan.status.needs).toEqual([]);
    await finalizeResources(context, "ClickHouseCluster", ns);

    // The operator: watches the kind from the registry and reconciles it to Ready.
    await createResource(client, "ClickHouseCluster", ns, "ops", spec);
    // Its log, as it writes it: the planted password must not be in it.
    const logged: string[] = [];
    const operator = inProcessOperator(client, helm, { report: (line) => void logged.push(line) });
    await operator.start();
    try {
      await eventually("the operator to make ClickHouseCluster ops Ready", async () =>
        condition(await readStoredResource(client, "ClickHouseCluster", ns, "ops"), "Ready")?.status === "True"
          ? true
          : undefined,
      );
    } finally {
      await operator.stop();
    }
    expectPlantedNowhere(EXTERNAL_PASSWORD, { "the operator's log": logged.join("\n") });
    await finalizeResources(context, "ClickHouseCluster", ns);

    // The Pulumi runtime (what `pulumi up` and `destroy` run in the provider process), one runtime for every kind.
    const inputs = {
      kind: "ClickHouseCluster",
      namespace: ns,
      name: "via-pulumi",
      spec,
      kubeconfig: process.env.NAVIQUE_TEST_KUBECONFIG ?? "",
      helm: (await toolchainPaths()).helm,
      chartSource: `dir:${FIXTURE_CHARTS}`,
      timeoutSeconds: 120,
    };
    const { outs } = await up(inputs, TEST_TRUSTED_KEYS);
    expect(outs).toMatchObject({
      host: "clickhouse.example.internal",
      port: 8443,
      nativePort: 9440,
      url: "http://clickhouse.example.internal:8443",
      username: "langfuse",
      password: EXTERNAL_PASSWORD,
      provenance: "external",
    });
    await destroy(inputs, TEST_TRUSTED_KEYS);
    expect(await readStoredResource(client, "ClickHouseCluster", ns, "via-pulumi")).toBeUndefined();

    // cdk8s synth, then `navique plan -f` on what it wrote: the same engine's lines.
    const out = await mkdtemp(join(tmpdir(), "navique-clickhouse-synth-"));
    try {
      // One app per resource: cdk8s judges each app under the Community edition (one ClickHouseCluster).
      for (const [id, props] of [
        ["from-git", { spec }],
        ["managed-one", {}],
      ] as const) {
        const app = new App({ outdir: join(out, id) });
        new ClickHouseClusterConstruct(new Chart(app, "clickhouse", { namespace: ns }), id, props);
        app.synth();
      }
      const plan = await planTrustingTestKey(
        ["-f", join(out, "from-git", "clickhouse.k8s.yaml"), "-f", join(out, "managed-one", "clickhouse.k8s.yaml")],
        out,
      );
      expect(plan.stdout).toContain(
        `ClickHouseCluster ${ns}/from-git: create it, nothing else: Secret ${ns}/ch-conn holds host, port, username and password: consumers are sent to clickhouse.example.internal:8443, which the product does not contact`,
      );
      expect(plan.code).toBe(2);
      expect(plan.stdout).toContain(`ClickHouseCluster ${ns}/managed-one: capability clickhouse-operator:`);
      expect(plan.stdout).toContain(
        `ClickHouseCluster ${ns}/managed-one: apply ClickHouseCluster ${ns}/managed-one (1 shard(s) × 1 replica(s), 10Gi each)`,
      );
      // What cdk8s wrote names the Secret, never its content.
      expectPlantedNowhere(EXTERNAL_PASSWORD, {
        "navique plan's output": plan.stdout,
        "what cdk8s wrote for from-git": await readFile(join(out, "from-git", "clickhouse.k8s.yaml"), "utf8"),
        "what cdk8s wrote for managed-one": await readFile(join(out, "managed-one", "clickhouse.k8s.yaml"), "utf8"),
        // None is recorded in external mode today: scanned against one that would say the password.
        [`the Events of ${ns}`]: mayHoldNothing(await recordedEvents(client, ns)),
      });
    } finally {
      await rm(out, { recursive: true, force: true });
    }
  });
});
