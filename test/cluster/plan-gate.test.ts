import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";
import { ensureNaviqueCrds } from "../../lib/apply/navique-crds.js";
import { CapabilityInstaller } from "../../lib/capabilities/installer.js";
import { observeCapability } from "../../lib/capabilities/observe.js";
import { CATALOG, capability } from "../../lib/catalog/catalog.js";
import { CERT_MANAGER } from "../../lib/catalog/cert-manager.js";
import { CLOUDNATIVE_PG } from "../../lib/catalog/cloudnative-pg.js";
import type { HelmCli } from "../../lib/cluster/helm-cli.js";
import type { KubeClient } from "../../lib/cluster/kube-client.js";
import { runUnchecked } from "../../lib/cluster/process.js";
import type { EngineResource } from "../../lib/engine/kind-module.js";
import type { DeclaredResource } from "../../lib/engine/plan-inputs.js";
import { planInputs } from "../../lib/engine/plan-run.js";
import { POSTGRES_CLUSTER_MODULE } from "../../lib/kinds/postgres-cluster/module.js";
import { REGISTRY } from "../../lib/kinds/registry.js";
import { createReconcileContext } from "../../lib/reconcile/context.js";
import {
  CAPABILITY_SUITE_SETUP_MS,
  FIXTURE_CHARTS,
  FIXTURE_SOURCE,
  lockCapabilities,
  resetCapabilities,
  testClient,
  testHelm,
} from "../support/capabilities.js";
import { createTestNamespace } from "../support/cluster.js";
import { applyLicence, removeLicence, TEST_KEY_ID, TEST_TRUSTED_KEYS, testLicenceToken } from "../support/licence.js";
import { discardNamespace } from "../support/namespace-content.js";
import {
  createPostgresCluster,
  finalizePostgresClusters,
  playCnpgClusterReady,
  readCnpgCluster,
  reconcileUntil,
} from "../support/postgres.js";

const TSX = join(process.cwd(), "node_modules", ".bin", "tsx");
const CLI = join(process.cwd(), "lib", "cli", "main.ts");
const KUBECONFIG = process.env.NAVIQUE_TEST_KUBECONFIG ?? "";
const GROUP_VERSION = "core.navique.com/v1alpha1";
const SPEC = { databases: [{ name: "app" }] };

function postgres(namespace: string, name: string, spec: object = SPEC) {
  return { apiVersion: GROUP_VERSION, kind: "PostgresCluster", metadata: { name, namespace }, spec };
}

function yaml(...documents: readonly unknown[]): string {
  return documents.map((d) => stringify(d)).join("---\n");
}

/** The real CLI, as a CI job runs it, with the fixture charts and the test plane. */
function plan(...args: string[]) {
  return runUnchecked(TSX, [
    CLI,
    "plan",
    ...args,
    "--kubeconfig",
    KUBECONFIG,
    "--chart-source",
    `dir:${FIXTURE_CHARTS}`,
  ]);
}

// `navique plan` as a CI gate (issue 19, item 7), through the real CLI against the local plane with the
// fixture charts. It installs capability operators and applies a License: it holds the capability lock.
describe("navique plan as a CI gate", () => {
  let client: KubeClient;
  let helm: HelmCli;
  let unlock: () => Promise<void>;
  let work: string;
  let trustFile: string;
  const namespaces: string[] = [];

  async function namespace(suite: string): Promise<string> {
    const { name } = await createTestNamespace(suite);
    namespaces.push(name);
    return name;
  }

  beforeAll(async () => {
    unlock = await lockCapabilities();
    client = testClient();
    helm = await testHelm();
    await ensureNaviqueCrds(client);
    await removeLicence(client);
    await resetCapabilities(client, helm, [CLOUDNATIVE_PG, CERT_MANAGER], { crds: false });
    work = await mkdtemp(join(tmpdir(), "navique-plan-gate-"));
    trustFile = join(work, "test-vendor.pem");
    await writeFile(trustFile, TEST_TRUSTED_KEYS.get(TEST_KEY_ID) ?? "");
  }, CAPABILITY_SUITE_SETUP_MS);

  afterAll(async () => {
    if (client) {
      const context = createReconcileContext({ client, helm, source: FIXTURE_SOURCE, trustedKeys: TEST_TRUSTED_KEYS });
      for (const name of namespaces) {
        await finalizePostgresClusters(context, name);
        await discardNamespace(client, name);
      }
      await removeLicence(client);
      if (helm) await resetCapabilities(client, helm, [CLOUDNATIVE_PG, CERT_MANAGER], { crds: false });
    }
    if (work) await rm(work, { recursive: true, force: true });
    await unlock?.();
  });

  it("reads several files and a directory; under Community the PostgresClusters past the cap are refused with the operator's message, and the plan exits 1", async () => {
    const ns = await namespace("plan-caps");
    await mkdir(join(work, "caps", "dir", "nested"), { recursive: true });
    const a = join(work, "caps", "a.yaml");
    await writeFile(
      a,
      yaml({ apiVersion: "v1", kind: "Namespace", metadata: { name: ns } }, postgres(ns, "pg-1"), postgres(ns, "pg-2")),
    );
    await writeFile(join(work, "caps", "dir", "b.yaml"), yaml(postgres(ns, "pg-3")));
    await writeFile(join(work, "caps", "dir", "nested", "c.yml"), yaml(postgres(ns, "pg-4"), postgres(ns, "pg-5")));
    await writeFile(join(work, "caps", "dir", "notes.txt"), "not YAML: not read from a directory");
    // Every PostgresCluster stored anywhere (another suite's included) comes before the declared ones.
    const stored = (await listPostgresClusters(client)).length;
    const planned = Math.max(0, Math.min(5, 2 - stored));

    const result = await plan("-f", a, join(work, "caps", "dir"));
    const lines = result.stdout.trim().split("\n");
    const refused = lines.filter((l) => /^PostgresCluster \S+\/pg-\d: refused by the licence: /.test(l));
    expect(refused).toHaveLength(5 - planned);
    refused.forEach((line, i) => {
      const name = `pg-${planned + i + 1}`;
      expect(line).toBe(
        `PostgresCluster ${ns}/${name}: refused by the licence: PostgresCluster ${ns}/${name} is refused: the Community edition allows 2 PostgresCluster instance(s) and ${stored + planned + i} come before it (admitted earlier or created first); nothing was created for it. Delete an unused PostgresCluster, or ask your navique account contact for a licence that includes it, then apply it as the License named \`navique\``,
      );
    });
    for (let i = 1; i <= planned; i++) {
      expect(lines).toContain(`PostgresCluster ${ns}/pg-${i}: apply CNPG Cluster ${ns}/pg-${i} (1 instance(s), 10Gi)`);
    }
    expect(result.stderr).toContain(
      `${a}: 1 document(s) of other API groups skipped (Namespace v1): plan judges only core.navique.com resources`,
    );
    expect(result.stderr).toContain(
      `plan: 5 judged: ${planned} to change, 0 in place, 0 waiting, ${5 - planned} refused, 0 stalled; 0 input(s) not judged; exit 1 (docs/plan.md)`,
    );
    expect(result.code).toBe(1);
    // Changes nothing.
    expect(await listPostgresClusters(client)).toHaveLength(stored);
  });

  it("foresees the install collision the operator would refuse, with the operator's own message, and exits 1", async () => {
    const ns = await namespace("plan-collision");
    await client.apply(
      { apiVersion: "v1", kind: "Namespace", metadata: { name: "cnpg-system" } },
      { fieldManager: "kubectl" },
    );
    // A user's ConfigMap under the name the chart renders in the system namespace (as in
    // test/cluster/capability-ownership.test.ts, where the install itself refuses it).
    await client.core.createNamespacedConfigMap({
      namespace: "cnpg-system",
      body: { metadata: { name: "cnpg-controller-manager-config" }, data: { mine: "yes" } },
    });
    try {
      const file = join(work, "collision.yaml");
      // A licence in the file, verified with the key given by --trust: a seat for it whatever else is stored.
      const licence = {
        apiVersion: GROUP_VERSION,
        kind: "License",
        metadata: { name: "navique" },
        spec: { token: testLicenceToken({ caps: { PostgresCluster: 1000 } }) },
      };
      await writeFile(file, yaml(licence, postgres(ns, "db")));
      const result = await plan(file, "--trust", `${TEST_KEY_ID}=${trustFile}`);
      const lines = result.stdout.trim().split("\n");
      expect(lines[0]).toMatch(
        /^License navique: apply licence lic-test \(features: none; caps: .*PostgresCluster 1000/,
      );
      expect(lines.slice(1)).toEqual([
        expect.stringMatching(new RegExp(`^PostgresCluster ${ns}/db: capability cert-manager: install`)),
        expect.stringMatching(new RegExp(`^PostgresCluster ${ns}/db: capability cloudnative-pg: install`)),
        `PostgresCluster ${ns}/db: installing cloudnative-pg 0.29.0 as release cnpg-system/cloudnative-pg would take over an object that is not its own: ConfigMap cnpg-system/cnpg-controller-manager-config (exists and was not installed by helm). Nothing was installed. Delete or rename it, or install cloudnative-pg yourself (the product then adopts it and never changes it)`,
      ]);
      expect(result.code).toBe(1);
      // The licence is a change; the PostgresCluster stalls.
      expect(result.stderr).toContain(
        "plan: 2 judged: 1 to change, 0 in place, 0 waiting, 0 refused, 1 stalled; 0 input(s) not judged; exit 1",
      );
    } finally {
      await client.core.deleteNamespacedConfigMap({ name: "cnpg-controller-manager-config", namespace: "cnpg-system" });
    }
  });

  it("exits 1 on a type not implemented, with the condition's message the operator writes", async () => {
    const ns = await namespace("plan-not-implemented");
    const file = join(work, "not-implemented.yaml");
    const licence = {
      apiVersion: GROUP_VERSION,
      kind: "License",
      metadata: { name: "navique" },
      spec: { token: testLicenceToken({ caps: { PostgresCluster: 1000 } }) },
    };
    await writeFile(file, yaml(licence, postgres(ns, "z", { type: "zalando" })));
    const result = await plan(file, "--trust", `${TEST_KEY_ID}=${trustFile}`);
    expect(result.stdout.trim().split("\n").slice(1)).toEqual([
      `PostgresCluster ${ns}/z: spec.type zalando is not implemented yet; use type: cnpg (CloudNativePG)`,
    ]);
    expect(result.code).toBe(1);
  });

  it("prints nothing for a resource in place and exits 0; a change prints only what would change, and exits 2; what Retain would keep in a Namespace of the same files is warned of", async () => {
    const ns = await namespace("plan-in-place");
    await applyLicence(client, testLicenceToken({ caps: { PostgresCluster: 1000 } }));
    const context = createReconcileContext({ client, helm, source: FIXTURE_SOURCE, trustedKeys: TEST_TRUSTED_KEYS });
    await createPostgresCluster(client, ns, "db", SPEC);
    // No CloudNativePG pod runs here: the test writes the status its controller would write.
    await reconcileUntil(
      context,
      ns,
      "db",
      (o) => !o.requeue && o.plan.conditions.find((c) => c.type === "Ready")?.status === "True",
      async () => {
        if (await readCnpgCluster(client, ns, "db")) await playCnpgClusterReady(client, ns, "db");
      },
    );
    const trust = ["--trust", `${TEST_KEY_ID}=${trustFile}`];
    const file = join(work, "in-place.yaml");
    // The files declare its namespace too, as cdk8s apps do: in place, nothing is said of it either.
    const namespaceDocument = { apiVersion: "v1", kind: "Namespace", metadata: { name: ns } };
    await writeFile(file, yaml(namespaceDocument, postgres(ns, "db")));
    const inPlace = await plan(file, ...trust);
    expect(inPlace.stdout).toBe("");
    expect(inPlace.stderr).toContain(
      "plan: 1 judged: 0 to change, 1 in place, 0 waiting, 0 refused, 0 stalled; 0 input(s) not judged; exit 0",
    );
    expect(inPlace.code).toBe(0);

    await writeFile(file, yaml(namespaceDocument, postgres(ns, "db", { ...SPEC, managed: { instances: 2 } })));
    const changed = await plan(file, ...trust);
    const lines = changed.stdout.trim().split("\n");
    // The stored spec left `managed` to its defaults; the declared one writes it: the spec line says so.
    // The capabilities the resource already relies on, kept, are no change: no line.
    expect(lines).toEqual([
      expect.stringMatching(
        new RegExp(
          `^PostgresCluster ${ns}/db: change spec\\.managed from unset to \\{"instances":2,"storage":\\{"size":"10Gi"\\}`,
        ),
      ),
      `PostgresCluster ${ns}/db: apply CNPG Cluster ${ns}/db (2 instance(s), 10Gi)`,
      `warning: PostgresCluster ${ns}/db: deletionPolicy Retain keeps CNPG Cluster ${ns}/db when it is deleted, but not when its namespace is: namespace ${ns} is declared in these files too, and deleted with what they declare (kubectl delete -f, an Argo CD Application deleted or pruned): deleting it deletes everything in it, the data on the volumes of its claims included unless their PersistentVolumes' reclaim policy is Retain. If the data must outlive it, create the namespace apart from these files, or, with Argo CD, annotate it argocd.argoproj.io/sync-options: Delete=false,Prune=false`,
    ]);
    // A warning is no refusal: the gate still says "changes".
    expect(changed.code).toBe(2);
  });

  it("detects each capability once per run: five resources cost the detection of one, plus their own reads", async () => {
    // After the test before: both operators installed by us and Ready, and a licence with room.
    const ns = await namespace("plan-detection");
    const declared = (n: number): DeclaredResource[] =>
      Array.from({ length: n }, (_, i) => ({
        where: `test document ${i + 1}`,
        resource: POSTGRES_CLUSTER_MODULE.schema.parse(postgres(ns, `d-${i + 1}`)) as EngineResource,
      }));
    // The capabilities are detected through the installer's own client: its requests are the run's
    // detection, counted apart from everything else the run reads (through a client warmed by a first
    // run: API discovery, which a client keeps, is not counted).
    const reading = testClient();
    const cost = async (n: number) => {
      const detecting = testClient();
      const context = {
        ...createReconcileContext({ client: reading, helm, source: FIXTURE_SOURCE, trustedKeys: TEST_TRUSTED_KEYS }),
        installer: new CapabilityInstaller({ client: detecting, helm, source: FIXTURE_SOURCE }),
      };
      const before = reading.requests;
      const run = await planInputs(context, REGISTRY, { resources: declared(n), grants: [], problems: [], notes: [] });
      expect(run.resources.map((r) => r.outcome)).toEqual(Array.from({ length: n }, () => "changes"));
      return { detection: detecting.requests, reads: reading.requests - before };
    };
    await cost(1);
    const one = await cost(1);
    const two = await cost(2);
    const five = await cost(5);

    // One detection of each capability the resources need (cert-manager, then cloudnative-pg), as one
    // resource alone costs it.
    const alone = testClient();
    for (const name of ["cert-manager", "cloudnative-pg"]) await observeCapability(alone, capability(name, CATALOG));
    expect(alone.requests).toBeGreaterThan(0);
    expect([one.detection, two.detection, five.detection]).toEqual([alone.requests, alone.requests, alone.requests]);
    // Everything else grows with the resources, by their own reads (themselves and the objects they would write).
    expect(five.reads).toBe(one.reads + 4 * (two.reads - one.reads));
  });
});

async function listPostgresClusters(client: KubeClient): Promise<unknown[]> {
  const list = (await client.custom.listClusterCustomObject({
    group: "core.navique.com",
    version: "v1alpha1",
    plural: POSTGRES_CLUSTER_MODULE.definition.plural,
  })) as { items: unknown[] };
  return list.items;
}
