import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";
import { CERT_MANAGER } from "../../lib/catalog/cert-manager.js";
import { CLOUDNATIVE_PG } from "../../lib/catalog/cloudnative-pg.js";
import type { HelmCli } from "../../lib/cluster/helm-cli.js";
import type { KubeClient } from "../../lib/cluster/kube-client.js";
import { run, runUnchecked } from "../../lib/cluster/process.js";
import { pulumiEnvironment } from "../../lib/local-plane/pulumi-environment.js";
import { createReconcileContext } from "../../lib/reconcile/context.js";
import type { NaviqueOperator } from "../../providers/operator/operator.js";
import {
  CAPABILITY_SUITE_SETUP_MS,
  FIXTURE_SOURCE,
  lockCapabilities,
  resetCapabilities,
  testClient,
  testHelm,
} from "../support/capabilities.js";
import { condition, createTestNamespace, eventually } from "../support/cluster.js";
import { applyLicence, removeLicence, testLicenceToken } from "../support/licence.js";
import { inProcessOperator } from "../support/operator.js";
import {
  createConnectionSecret,
  createPostgresCluster,
  deletePostgresCluster,
  eventsAbout,
  readPostgresCluster,
  reconcileUntil,
} from "../support/postgres.js";
import { readStack } from "../support/stack.js";
import { TYPESCRIPT_SOURCES_ENV } from "../support/typescript-sources.js";

const TSX = join(process.cwd(), "node_modules", ".bin", "tsx");
const CLI = join(process.cwd(), "lib", "cli", "main.ts");
const PROGRAM = join(process.cwd(), "test", "fixtures", "pulumi", "capped-program");
const EXTERNAL = { mode: "external" as const, external: { connectionSecretRef: { name: "pg" } } };

// The licence seen by every front end. Part one runs on the built-in Community defaults (no License):
// two PostgresClusters are admitted, a third is refused by preview, plan and operator alike. Part two
// licenses more with a key this test trusts, then lets the licence expire under an injected clock.
describe("licence enforcement across the front ends", () => {
  let client: KubeClient;
  let helm: HelmCli;
  let unlock: () => Promise<void>;
  let work: string;
  let ns: string;
  let operator: NaviqueOperator | undefined;
  let clock = new Date("2027-01-10T00:00:00Z");

  beforeAll(async () => {
    unlock = await lockCapabilities();
    client = testClient();
    helm = await testHelm();
    await resetCapabilities(client, helm, [CLOUDNATIVE_PG, CERT_MANAGER], { crds: false });
    await removeLicence(client);
    ns = (await createTestNamespace("licence")).name;
    await createConnectionSecret(client, ns);
    work = await mkdtemp(join(tmpdir(), "navique-licence-"));
  }, CAPABILITY_SUITE_SETUP_MS);

  afterAll(async () => {
    await operator?.stop();
    if (helm) await resetCapabilities(client, helm, [CLOUDNATIVE_PG, CERT_MANAGER], { crds: false });
    if (ns) await client.core.deleteNamespace({ name: ns });
    if (client) await removeLicence(client);
    if (work) await rm(work, { recursive: true, force: true });
    await unlock?.();
  });

  it("Community: a third PostgresCluster is refused and a Stack skipped by pulumi preview and navique plan; the operator refuses the PostgresCluster, the first two untouched", async () => {
    const context = createReconcileContext({ client, helm, source: FIXTURE_SOURCE });
    for (const name of ["one", "two"]) {
      await createPostgresCluster(client, ns, name, EXTERNAL);
      await reconcileUntil(context, ns, name, (o) => !o.requeue);
    }
    const refusal = `PostgresCluster ${ns}/three: refused by the licence: PostgresCluster ${ns}/three is refused: the Community edition allows 2 PostgresCluster instance(s) and 2 come before it (admitted earlier or created first); nothing was created for it. Delete an unused PostgresCluster, or ask your navique account contact for a licence that includes it, then apply it as the License named \`navique\``;

    const environment = await pulumiEnvironment({ stateDir: join(work, "state"), passphrase: "licence" });
    const env = {
      ...environment.env,
      KUBECONFIG: process.env.NAVIQUE_TEST_KUBECONFIG,
      NAVIQUE_TEST_NAMESPACE: ns,
      ...TYPESCRIPT_SOURCES_ENV,
    };
    await run("pulumi", ["stack", "init", "capped", "--non-interactive"], { cwd: PROGRAM, env });
    const skip = `Stack ${ns}/bundle: skipped by the licence: Stack ${ns}/bundle uses feature "stack", which the Community edition does not include; it is skipped. To use it, ask your navique account contact for a licence that includes it, then apply it as the License named \`navique\``;
    const preview = (await run("pulumi", ["preview", "--non-interactive"], { cwd: PROGRAM, env })).stdout;
    expect(preview).toContain(refusal);
    expect(preview).toContain(skip);
    expect(await readPostgresCluster(client, ns, "three")).toBeUndefined();
    expect(await readStack(client, ns, "bundle")).toBeUndefined();

    const file = join(work, "three.yaml");
    const documents = [
      {
        apiVersion: "core.navique.com/v1alpha1",
        kind: "PostgresCluster",
        metadata: { name: "three", namespace: ns },
        spec: EXTERNAL,
      },
      { apiVersion: "core.navique.com/v1alpha1", kind: "Stack", metadata: { name: "bundle", namespace: ns }, spec: {} },
    ];
    await writeFile(file, documents.map((d) => stringify(d)).join("---\n"));
    const plan = await runUnchecked(TSX, [
      CLI,
      "plan",
      "-f",
      file,
      "--kubeconfig",
      process.env.NAVIQUE_TEST_KUBECONFIG ?? "",
    ]);
    expect(plan.stdout.trim().split("\n")).toEqual([refusal, skip]);
    // A refusal fails the plan as a CI gate (docs/plan.md).
    expect(plan.code).toBe(1);

    operator = inProcessOperator(client, helm, { resyncMs: 500, now: () => clock });
    await operator.start();
    await createPostgresCluster(client, ns, "three", EXTERNAL);
    const refused = await eventually("the operator to refuse three", async () => {
      const resource = await readPostgresCluster(client, ns, "three");
      return condition(resource, "Licensed")?.status === "False" ? resource : undefined;
    });
    expect(condition(refused, "Licensed")?.reason).toBe("InstanceCapExceeded");
    expect(refused?.status?.emitted).toEqual([]);
    expect(await eventsAbout(client, ns, "three")).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          type: "Warning",
          reason: "InstanceCapExceeded",
          note: expect.stringContaining("the Community edition allows 2"),
        }),
      ]),
    );
    for (const name of ["one", "two"])
      expect(condition(await readPostgresCluster(client, ns, name), "Ready")?.status).toBe("True");
  });

  it("a licence raises the cap; at expiry the operator downgrades with an Event, keeps what runs and refuses only new instances", async () => {
    await applyLicence(
      client,
      testLicenceToken({
        caps: { PostgresCluster: 3 },
        notBefore: "2027-01-01T00:00:00Z",
        expiresAt: "2027-01-11T00:00:00Z",
      }),
    );
    const admitted = await eventually("three to be admitted under the licence", async () => {
      const resource = await readPostgresCluster(client, ns, "three");
      return condition(resource, "Ready")?.status === "True" ? resource : undefined;
    });
    expect(condition(admitted, "Licensed")).toMatchObject({
      status: "True",
      message: "admitted under licence lic-test",
    });

    clock = new Date("2027-01-12T00:00:00Z");
    const license = await eventually("the License to show the Community edition", async () => {
      const current = (await client.custom.getClusterCustomObject({
        group: "core.navique.com",
        version: "v1alpha1",
        plural: "licenses",
        name: "navique",
      })) as {
        status?: { edition?: string; conditions?: { reason: string }[] };
      };
      return current.status?.edition === "Community" ? current : undefined;
    });
    expect(license.status?.conditions?.[0]?.reason).toBe("expired");
    const events = await client.events.listNamespacedEvent({ namespace: "default" });
    const downgrade = events.items.find((e) => e.reason === "LicenseDowngraded" && e.regarding?.name === "navique");
    expect(downgrade?.note).toContain("downgraded to the Community edition. Nothing running was deleted or changed");

    // Everything admitted keeps running; a new instance is refused under the Community caps.
    await eventually("a resync under Community", async () =>
      (await readPostgresCluster(client, ns, "three"))?.status?.observedGeneration !== undefined ? true : undefined,
    );
    for (const name of ["one", "two", "three"]) {
      const resource = await readPostgresCluster(client, ns, name);
      expect(condition(resource, "Ready")?.status).toBe("True");
      expect(condition(resource, "Licensed")?.status).toBe("True");
    }
    await createPostgresCluster(client, ns, "four", EXTERNAL);
    const four = await eventually("four to be refused", async () => {
      const resource = await readPostgresCluster(client, ns, "four");
      return condition(resource, "Licensed")?.status === "False" ? resource : undefined;
    });
    expect(condition(four, "Licensed")?.message).toContain(
      "the Community edition (expired: licence lic-test expired at 2027-01-11T00:00:00Z",
    );

    // Room freed (two admitted instances deleted, one left under a cap of 2): the waiting one gets in.
    await deletePostgresCluster(client, ns, "one");
    await deletePostgresCluster(client, ns, "two");
    await eventually("four to be admitted once one and two are gone", async () =>
      condition(await readPostgresCluster(client, ns, "four"), "Licensed")?.status === "True" ? true : undefined,
    );
  });

  // A resync passes over a resource refused from unchanged inputs (providers/operator/refused-resources.ts):
  // a freed seat must therefore reach the refused at once, from the deletion's watch event. The resync
  // here is ten minutes: only the event can admit it within the test.
  it("a seat freed by a deletion admits the waiting resource at once, without a resync", async () => {
    await operator?.stop();
    operator = inProcessOperator(client, helm, { resyncMs: 600_000, now: () => clock });
    await operator.start();
    await createPostgresCluster(client, ns, "five", EXTERNAL);
    const refused = await eventually("five to be refused", async () => {
      const resource = await readPostgresCluster(client, ns, "five");
      return condition(resource, "Licensed")?.status === "False" ? resource : undefined;
    });
    expect(condition(refused, "Licensed")?.reason).toBe("InstanceCapExceeded");
    await deletePostgresCluster(client, ns, "three");
    const admitted = await eventually("five to be admitted once three is gone", async () => {
      const resource = await readPostgresCluster(client, ns, "five");
      return condition(resource, "Ready")?.status === "True" ? resource : undefined;
    });
    expect(admitted?.status?.admitted).toBe(true);
  });
});
