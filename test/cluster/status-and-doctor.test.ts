import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensureNaviqueCrds } from "../../lib/apply/navique-crds.js";
import { CapabilityInstaller } from "../../lib/capabilities/installer.js";
import { CERT_MANAGER } from "../../lib/catalog/cert-manager.js";
import { CLOUDNATIVE_PG } from "../../lib/catalog/cloudnative-pg.js";
import { REDIS_OPERATOR } from "../../lib/catalog/redis-operator.js";
import type { HelmCli } from "../../lib/cluster/helm-cli.js";
import type { KubeClient } from "../../lib/cluster/kube-client.js";
import { runUnchecked } from "../../lib/cluster/process.js";
import type { ReconcileContext } from "../../lib/engine/context.js";
import { allDefinitions } from "../../lib/kinds/registry.js";
import { createReconcileContext } from "../../lib/reconcile/context.js";
import { DoctorReport } from "../../lib/reports/doctor-report.js";
import { StatusReport } from "../../lib/reports/status-report.js";
import {
  CAPABILITY_SUITE_SETUP_MS,
  FIXTURE_CHARTS,
  FIXTURE_SOURCE,
  lockCapabilities,
  resetCapabilities,
  testClient,
  testHelm,
} from "../support/capabilities.js";
import { condition, eventually } from "../support/cluster.js";
import { applyLicence, removeLicence, TEST_KEY_ID, TEST_TRUSTED_KEYS, testLicenceToken } from "../support/licence.js";
import { suiteNamespaces } from "../support/namespace-content.js";
import { createConnectionSecret } from "../support/postgres.js";
import { createResource, readStoredResource, reconcileUntil } from "../support/resources.js";

const TSX = join(process.cwd(), "node_modules", ".bin", "tsx");
const CLI = join(process.cwd(), "lib", "cli", "main.ts");
const KUBECONFIG = process.env.NAVIQUE_TEST_KUBECONFIG ?? "";

/** An external PostgresCluster on the Secret `secret` of its namespace: Ready with it, not Ready without. */
const external = (secret: string) => ({ mode: "external", external: { connectionSecretRef: { name: secret } } });

// `navique status` and `navique doctor` through the real CLI, against the local plane, as a user runs them:
// resources reconciled by the real engine (no CloudNativePG or LiteLLM pod runs: the resources here need
// none), one capability installed by the product (Owned), one installed by someone else (Adopted: a release
// of the fixture chart without the ownership marks, as test/cluster/provenance.test.ts makes one), one
// absent. Capabilities are cluster-wide: the suite holds the capability lock.
describe("navique status and navique doctor", () => {
  let client: KubeClient;
  let helm: HelmCli;
  let context: ReconcileContext | undefined;
  let unlock: (() => Promise<void>) | undefined;
  let work = "";
  let trust: string[] = [];
  let ready = "";
  let waiting = "";
  const namespaces = suiteNamespaces();

  /** What the PostgresCluster without its Secret reports: Ready's message, which says what to do. */
  const missing = () =>
    `Secret ${waiting}/absent (spec.external.connectionSecretRef) does not exist: create it with keys host, port, username and password`;

  const navique = (...args: string[]) => runUnchecked(TSX, [CLI, ...args, "--kubeconfig", KUBECONFIG, ...trust]);

  beforeAll(async () => {
    unlock = await lockCapabilities();
    client = testClient();
    helm = await testHelm();
    await ensureNaviqueCrds(client);
    // Room for this suite's resources whatever others left, and auto-wiring: a Gateway then waits for its
    // PostgresCluster instead of asking for its manual field.
    await applyLicence(
      client,
      testLicenceToken({ caps: { PostgresCluster: 1000, Gateway: 1000 }, features: ["auto-wiring"] }),
    );
    context = createReconcileContext({ client, helm, source: FIXTURE_SOURCE, trustedKeys: TEST_TRUSTED_KEYS });
    await resetCapabilities(client, helm, [CLOUDNATIVE_PG, CERT_MANAGER, REDIS_OPERATOR], { crds: false });

    // Owned: installed by the product, brought to readiness.
    const installer = new CapabilityInstaller({ client, helm, source: FIXTURE_SOURCE });
    await eventually(
      "cert-manager to be installed and Ready",
      async () => ((await installer.ensure(CERT_MANAGER.name)).at(-1)?.ready ? true : undefined),
      { timeoutMs: 300_000 },
    );
    // Adopted: a release under the expected name, installed by someone else (no ownership marks). Without
    // its CRDs, which may be there already and are not the release's business here.
    await helm.install(CLOUDNATIVE_PG.release.name, join(FIXTURE_CHARTS, CLOUDNATIVE_PG.chart.name), {
      namespace: CLOUDNATIVE_PG.release.namespace,
      createNamespace: true,
      values: { crds: { create: false } },
      wait: false,
    });

    work = await mkdtemp(join(tmpdir(), "navique-status-"));
    const keyFile = join(work, "test-vendor.pem");
    await writeFile(keyFile, TEST_TRUSTED_KEYS.get(TEST_KEY_ID) ?? "");
    trust = ["--trust", `${TEST_KEY_ID}=${keyFile}`];

    // A Ready resource, alone in its namespace.
    ready = await namespaces.create("status-ready");
    await createConnectionSecret(client, ready);
    await createResource(client, "PostgresCluster", ready, "db", external("pg"));
    await reconcileUntil(context, "PostgresCluster", ready, "db", (o) => condition(o.plan, "Ready")?.status === "True");

    // One not Ready (its Secret is missing), a Gateway waiting for it, and one never reconciled.
    waiting = await namespaces.create("status-waiting");
    await createResource(client, "PostgresCluster", waiting, "waiting-db", external("absent"));
    await reconcileUntil(
      context,
      "PostgresCluster",
      waiting,
      "waiting-db",
      (o) => condition(o.plan, "Ready") !== undefined,
    );
    await createResource(client, "Gateway", waiting, "llm", {
      database: { mode: "postgresCluster", postgresClusterRef: { name: "waiting-db" } },
    });
    await reconcileUntil(
      context,
      "Gateway",
      waiting,
      "llm",
      (o) => condition(o.plan, "DependenciesReady")?.status === "False",
    );
    await createResource(client, "PostgresCluster", waiting, "fresh", external("pg"));
  }, CAPABILITY_SUITE_SETUP_MS);

  afterAll(async () => {
    try {
      if (context) {
        await namespaces.discard(context);
        await removeLicence(client);
        await resetCapabilities(client, helm, [CLOUDNATIVE_PG, CERT_MANAGER], { crds: false });
      }
      if (work) await rm(work, { recursive: true, force: true });
    } finally {
      await unlock?.();
    }
  });

  /** The Ready condition the engine stored on a resource: what status must print. */
  async function storedReady(kind: string, namespace: string, name: string) {
    const stored = await readStoredResource(client, kind, namespace, name);
    const found = condition(stored, "Ready");
    if (!found) throw new Error(`${kind} ${namespace}/${name} has no Ready condition`);
    return found;
  }

  it("prints a namespace whose resources are Ready, each capability with its provenance and evidence, and the licence; exits 0", async () => {
    const db = await storedReady("PostgresCluster", ready, "db");
    expect(db.status).toBe("True");
    const result = await navique("status", "-n", ready);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const lines = result.stdout.split("\n");
    // Every CRD of the registry served.
    const crds = allDefinitions().length;
    expect(lines[0]).toMatch(
      new RegExp(
        `^cluster: {3}https://127\\.0\\.0\\.1:\\d+, Kubernetes v\\d+\\.\\d+\\.\\d+, \\d+/\\d+ nodes Ready, ${crds}/${crds} CRDs served$`,
      ),
    );
    expect(lines[2]).toMatch(
      /^licence: {3}Licensed — licence lic-test, expires 2099-01-01T00:00:00\.000Z \(\d+ days left\); features: auto-wiring$/,
    );
    const resources = lines.slice(
      lines.indexOf(`RESOURCES (namespace ${ready})`) + 1,
      lines.indexOf("CAPABILITIES") - 1,
    );
    expect(resources).toEqual([
      expect.stringMatching(/^KIND +NAMESPACE +NAME +READY +REASON$/),
      expect.stringMatching(new RegExp(`^PostgresCluster +${ready} +db +True +${db.reason}$`)),
    ]);
    const capabilities = lines.slice(lines.indexOf("CAPABILITIES") + 1).join("\n");
    expect(capabilities).toMatch(
      /\ncert-manager +Owned +True +v1\.21\.1 +- *\n {4}release cert-manager\/cert-manager \(revision \d+, chart v1\.21\.1, deployed\) carries the ownership\s+marks\n/,
    );
    expect(capabilities).toMatch(
      /\ncloudnative-pg +Adopted +(True|False) +0\.29\.0 +- *\n {4}release cnpg-system\/cloudnative-pg \(revision 1, chart 0\.29\.0\) exists without the ownership\s+marks: installed by someone else\n/,
    );
    expect(capabilities).toMatch(/\nredis-operator +Absent +- +- +- *\n {4}no release ot-operators\/redis-operator; /);
    expect(result.stdout).toMatch(/\nPostgresCluster +\d+ +\d+ +1000 +0\n/);
    expect(result.stdout.trimEnd().split("\n").at(-1)).toBe(
      "1 resource(s), 0 not Ready: exit 0 (docs/status-and-doctor.md)",
    );
  });

  it("reports, as one JSON document, each resource with its Ready reason and message, what it depends on, and exits 1 when one is not Ready", async () => {
    const result = await navique("status", "-n", waiting, "-o", "json");
    expect(result.code).toBe(1);
    const report = StatusReport.parse(JSON.parse(result.stdout));
    expect(report).toMatchObject({ version: 1, namespace: waiting, ready: false });
    expect(report.resources.map((r) => [r.kind, r.name, r.ready, r.reason])).toEqual([
      ["PostgresCluster", "fresh", "Unknown", "NotReconciled"],
      ["PostgresCluster", "waiting-db", "False", "ConnectionSecretInvalid"],
      ["Gateway", "llm", "False", "DependencyNotReady"],
    ]);
    const [, waitingDb, llm] = report.resources;
    expect(waitingDb).toMatchObject({ message: missing(), stalled: false, current: true, dependsOn: [], needs: [] });
    expect(llm?.dependsOn).toEqual([
      { kind: "PostgresCluster", namespace: waiting, name: "waiting-db", field: "spec.database.postgresClusterRef" },
    ]);
    expect(llm?.needs).toEqual(["litellm-operator"]);
    expect(condition(llm, "DependenciesReady")).toMatchObject({
      status: "False",
      reason: "DependencyNotReady",
      message: expect.stringContaining(
        `spec.database.postgresClusterRef: PostgresCluster ${waiting}/waiting-db is not Ready (${missing()})`,
      ),
    });
    const byName = new Map(report.capabilities.map((c) => [c.name, c]));
    expect(byName.get("cert-manager")).toMatchObject({
      state: "Owned",
      ready: true,
      chartVersion: "v1.21.1",
      pinnedVersion: "v1.21.1",
    });
    expect(byName.get("cloudnative-pg")).toMatchObject({
      state: "Adopted",
      evidence:
        "release cnpg-system/cloudnative-pg (revision 1, chart 0.29.0) exists without the ownership marks: installed by someone else",
      release: { namespace: "cnpg-system", name: "cloudnative-pg" },
    });
    expect(byName.get("redis-operator")).toMatchObject({ state: "Absent", ready: false, usedBy: [] });
    expect(byName.get("litellm-operator")?.usedBy).toEqual([{ kind: "Gateway", namespace: waiting, name: "llm" }]);
    expect(report.licence).toMatchObject({
      stored: true,
      edition: "Licensed",
      licenseId: "lic-test",
      features: ["auto-wiring"],
    });
    const postgres = report.licence.caps.find((c) => c.kind === "PostgresCluster");
    // Every namespace's, this suite's four among them; none refused under a cap of 1000.
    expect(postgres).toMatchObject({ cap: 1000, refused: [] });
    expect(postgres?.instances).toBeGreaterThanOrEqual(3);
  });

  it("prints the message of each resource not Ready under its row", async () => {
    const result = await navique("status", "--namespace", waiting);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(
      new RegExp(
        `\\nGateway +${waiting} +llm +False +DependencyNotReady\\n {4}waiting for what it depends on: spec\\.database\\.postgresClusterRef: PostgresCluster\\s+${waiting}/waiting-db is not Ready`,
      ),
    );
    expect(result.stdout).toContain("3 resource(s), 3 not Ready: exit 1 (docs/status-and-doctor.md)");
  });

  it("doctor names the Gateway blocked by the PostgresCluster not Ready, with the fix at the end of the chain, and exits 1", async () => {
    const json = await navique("doctor", "-n", waiting, "-o", "json");
    expect(json.code).toBe(1);
    const report = DoctorReport.parse(JSON.parse(json.stdout));
    const about = (subject: string) => report.findings.find((f) => f.subject === subject);
    expect(about(`PostgresCluster ${waiting}/waiting-db`)).toEqual({
      code: "ResourceNotReady",
      subject: `PostgresCluster ${waiting}/waiting-db`,
      problem: "not Ready (ConnectionSecretInvalid)",
      blockedBy: [],
      blocks: [`Gateway ${waiting}/llm`],
      fix: missing(),
    });
    expect(about(`Gateway ${waiting}/llm`)).toMatchObject({
      code: "WaitingForDependency",
      blockedBy: [`PostgresCluster ${waiting}/waiting-db`],
      blocks: [],
      fix: `make PostgresCluster ${waiting}/waiting-db Ready — ConnectionSecretInvalid: ${missing()}`,
    });
    expect(about(`PostgresCluster ${waiting}/fresh`)).toMatchObject({ code: "NotReconciled" });
    // Nothing of the namespace whose resources are Ready.
    expect(report.findings.filter((f) => f.subject.includes(ready))).toEqual([]);

    const text = await navique("doctor", "-n", waiting);
    expect(text.code).toBe(1);
    expect(text.stdout).toContain(
      `\nGateway ${waiting}/llm [WaitingForDependency]\n  problem:    not Ready (DependencyNotReady): waiting for what it depends on:`,
    );
    expect(text.stdout).toContain(
      `\n  blocked by: PostgresCluster ${waiting}/waiting-db\n  fix:        make PostgresCluster`,
    );
  });
});
