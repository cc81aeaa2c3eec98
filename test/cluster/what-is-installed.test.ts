import { join } from "node:path";
import { CERT_MANAGER } from "../../lib/catalog/cert-manager.js";
import { CLOUDNATIVE_PG } from "../../lib/catalog/cloudnative-pg.js";
import type { HelmCli } from "../../lib/cluster/helm-cli.js";
import { type KubeClient, orUndefined } from "../../lib/cluster/kube-client.js";
import type { ReconcileContext } from "../../lib/engine/context.js";
import type { EngineResource } from "../../lib/engine/kind-module.js";
import { previewDesired } from "../../lib/engine/preview.js";
import type { PostgresCluster } from "../../lib/kinds/postgres-cluster/schema.js";
import { createReconcileContext } from "../../lib/reconcile/context.js";
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
import { naviqueCrdsServed } from "../support/failing-step.js";
import { applyLicence, removeLicence, TEST_TRUSTED_KEYS, testLicenceToken } from "../support/licence.js";
import { suiteNamespaces } from "../support/namespace-content.js";
import {
  createPostgresCluster,
  eventsAbout,
  readPostgresCluster,
  reconcilePostgresCluster,
  reconcileUntil,
} from "../support/postgres.js";

const CAPABILITIES = [CLOUDNATIVE_PG, CERT_MANAGER];

/** The helm releases of cert-manager and cloudnative-pg, as helm records them: empty when nothing is installed. */
async function installedReleases(client: KubeClient): Promise<string[]> {
  const records = await Promise.all(
    CAPABILITIES.map(async (entry) =>
      (await releaseRecords(client, entry.release.namespace, entry.release.name)).map(
        (secret) => `${entry.release.namespace}/${secret.metadata?.name ?? ""}`,
      ),
    ),
  );
  return records.flat();
}

async function stored(client: KubeClient, namespace: string, name: string): Promise<PostgresCluster> {
  const resource = await readPostgresCluster(client, namespace, name);
  if (!resource) throw new Error(`PostgresCluster ${namespace}/${name} does not exist`);
  return resource;
}

// What the product installs, and for whom: nothing for a resource it refuses, no prerequisite for a
// capability someone else installed, and an Event on the resource for each install it makes. Capability
// releases are cluster-wide: the suite holds the capability lock and starts from nothing installed.
describe("what is installed, and for whom", () => {
  let client: KubeClient;
  let helm: HelmCli;
  let context: ReconcileContext;
  let unlock: (() => Promise<void>) | undefined;
  const namespaces = suiteNamespaces();

  beforeAll(async () => {
    client = testClient();
    helm = await testHelm();
    unlock = await lockCapabilities();
    await naviqueCrdsServed(client);
    await resetCapabilities(client, helm, CAPABILITIES, { crds: false });
    // Room under the cap whatever other suites hold: the License is cluster-wide, hence under the lock.
    await applyLicence(client, testLicenceToken({ caps: { PostgresCluster: 50 } }));
    context = createReconcileContext({ client, helm, source: FIXTURE_SOURCE, trustedKeys: TEST_TRUSTED_KEYS });
  }, CAPABILITY_SUITE_SETUP_MS);
  afterAll(async () => {
    if (!unlock) return;
    try {
      await removeLicence(client);
      await namespaces.discard(context);
      await resetCapabilities(client, helm, CAPABILITIES, { crds: false });
    } finally {
      await unlock();
    }
  });

  it("a PostgresCluster refused with NameTaken installs nothing, in three passes, and its preview says the same", async () => {
    const ns = await namespaces.create("refused");
    // The user's own Secret under the name of the credentials the PostgresCluster would generate.
    await client.core.createNamespacedSecret({
      namespace: ns,
      body: { metadata: { name: "pg-credentials" }, stringData: { username: "theirs", password: "theirs" } },
    });
    await createPostgresCluster(client, ns, "pg", {});
    const message = `Secret ${ns}/pg-credentials already exists and is not this PostgresCluster's: it is left alone. Rename the PostgresCluster, or delete or rename that resource`;

    const preview = await previewDesired(context, (await stored(client, ns, "pg")) as EngineResource);
    expect(preview.lines).toEqual([`PostgresCluster ${ns}/pg: ${message}`]);
    expect(preview.capabilities).toEqual([]);
    expect(preview.helmFor).toEqual([]);
    expect(preview.stalled).toMatchObject({ reason: "NameTaken", message });

    const performed: string[] = [];
    for (let pass = 0; pass < 3; pass++) {
      const outcome = await reconcilePostgresCluster(context, await stored(client, ns, "pg"));
      performed.push(...outcome.performed);
      expect(outcome.requeue).toBe(false);
    }
    expect(performed).toEqual([]);
    expect(await installedReleases(client)).toEqual([]);
    const resource = await stored(client, ns, "pg");
    expect(condition(resource, "Ready")).toMatchObject({ status: "False", reason: "NameTaken", message });
    expect(condition(resource, "OperatorsReady")).toMatchObject({
      status: "False",
      reason: "NameTaken",
      message: `nothing is installed for it (cert-manager, cloudnative-pg) while it is refused: ${message}`,
    });
    expect(condition(resource, "Stalled")).toMatchObject({ status: "True", reason: "NameTaken", message });
    expect(await eventsAbout(client, ns, "pg")).toEqual([{ type: "Warning", reason: "NameTaken", note: message }]);
  });

  it("each install records a Normal Event on the resource it was made for, naming the capability, its version and its release", async () => {
    const ns = await namespaces.create("installs");
    await createPostgresCluster(client, ns, "pg", {});

    await reconcileUntil(context, ns, "pg", (_outcome, resource) => {
      return condition(resource, "OperatorsReady")?.status === "True";
    });

    // Events are listed by name, not in the order they happened.
    const installs = (await eventsAbout(client, ns, "pg"))
      .filter((e) => e.reason === "CapabilityInstalled")
      .sort((a, b) => a.note.localeCompare(b.note));
    expect(installs).toEqual([
      {
        type: "Normal",
        reason: "CapabilityInstalled",
        note: `installed cert-manager ${CERT_MANAGER.chart.version} as release cert-manager/cert-manager`,
      },
      {
        type: "Normal",
        reason: "CapabilityInstalled",
        note: `installed cloudnative-pg ${CLOUDNATIVE_PG.chart.version} as release cnpg-system/cloudnative-pg`,
      },
    ]);
  });

  it("a CloudNativePG installed by someone else gets no cert-manager: only its adoption is previewed and recorded", async () => {
    await resetCapabilities(client, helm, CAPABILITIES, { crds: false });
    // The user's own release of the chart, without the product's marks: Adopted. Its CRDs may be there
    // already (kept by an earlier release's policy): the chart then renders none.
    const crdsThere = await orUndefined(
      client.extensions.readCustomResourceDefinition({ name: "clusters.postgresql.cnpg.io" }),
    );
    await helm.install(CLOUDNATIVE_PG.release.name, join(FIXTURE_CHARTS, CLOUDNATIVE_PG.chart.name), {
      namespace: CLOUDNATIVE_PG.release.namespace,
      createNamespace: true,
      values: crdsThere ? { crds: { create: false } } : {},
      wait: false,
    });
    await eventually("the user's cloudnative-pg to be Adopted and Ready", async () => {
      const { decision } = await context.installer.observe(CLOUDNATIVE_PG.name);
      return decision.state === "Adopted" && decision.ready ? true : undefined;
    });
    const ns = await namespaces.create("adopted");
    await createPostgresCluster(client, ns, "pg", {});

    const preview = await previewDesired(context, (await stored(client, ns, "pg")) as EngineResource);
    expect(preview.capabilities.map((d) => `${d.capability} ${d.state} ${d.action}`)).toEqual([
      "cloudnative-pg Adopted none",
    ]);
    expect(preview.lines.filter((l) => l.includes(": capability "))).toEqual([
      `PostgresCluster ${ns}/pg: capability cloudnative-pg: ${preview.capabilities[0]?.summary}`,
    ]);

    await reconcileUntil(context, ns, "pg", (_outcome, resource) => {
      return condition(resource, "DatastoreReady")?.reason === "Provisioning";
    });

    expect(await releaseRecords(client, CERT_MANAGER.release.namespace, CERT_MANAGER.release.name)).toEqual([]);
    const resource = await stored(client, ns, "pg");
    expect(resource.status?.capabilities?.map((c) => `${c.name} ${c.provenance}`)).toEqual(["cloudnative-pg adopted"]);
    expect(condition(resource, "OperatorsReady")).toMatchObject({ status: "True", reason: "Ready" });
    const events = await eventsAbout(client, ns, "pg");
    expect(events.map((e) => e.reason)).toEqual(["CapabilityAdopted"]);
  });
});
