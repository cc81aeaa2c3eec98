import { type KubeClient, statusOf } from "../../lib/cluster/kube-client.js";
import { createReconcileContext, type ReconcileContext } from "../../lib/reconcile/context.js";
import { create, destroy } from "../../providers/pulumi/runtime.js";
import {
  CAPABILITY_SUITE_SETUP_MS,
  FIXTURE_CHARTS,
  FIXTURE_SOURCE,
  lockCapabilities,
  resetCapabilities,
  testClient,
  testHelm,
} from "../support/capabilities.js";
import { eventually } from "../support/cluster.js";
import { removeLicence } from "../support/licence.js";
import { suiteNamespaces } from "../support/namespace-content.js";
import { createConnectionSecret, createPostgresCluster, readPostgresCluster } from "../support/postgres.js";

// Pulumi records nothing of a create that fails: what the provider wrote into the cluster for it must go
// again, or it is a resource no state knows of — here a PostgresCluster with the product's finalizer,
// holding a seat of the Community cap. The provider's own code, called in-process as Pulumi's provider
// process calls it.
describe("a Pulumi create that fails", () => {
  let client: KubeClient;
  let context: ReconcileContext;
  let unlock: (() => Promise<void>) | undefined;
  const namespaces = suiteNamespaces();

  beforeAll(async () => {
    unlock = await lockCapabilities();
    client = testClient();
    const helm = await testHelm();
    // No licence (Community: 2 PostgresClusters) and nothing of the product left from another suite.
    await removeLicence(client);
    await resetCapabilities(client, helm, [], { crds: false });
    context = createReconcileContext({ client, helm, source: FIXTURE_SOURCE });
  }, CAPABILITY_SUITE_SETUP_MS);
  afterAll(async () => {
    if (context) await namespaces.discard(context);
    await unlock?.();
  });

  const inputs = (namespace: string, name: string) => ({
    kind: "PostgresCluster",
    namespace,
    name,
    spec: { mode: "external", external: { connectionSecretRef: { name: "pg" } } },
    kubeconfig: process.env.NAVIQUE_TEST_KUBECONFIG ?? "",
    chartSource: `dir:${FIXTURE_CHARTS}`,
    timeoutSeconds: 60,
  });

  it("removes the custom resource it recorded, so that no seat stays taken; one that existed before stays", async () => {
    const ns = await namespaces.create("failed-create");
    await createConnectionSecret(client, ns);
    await create(inputs(ns, "first"));
    await create(inputs(ns, "second"));

    // The third is refused by the Community cap: the create fails, and leaves nothing behind.
    const refused = create(inputs(ns, "third"));
    await expect(refused).rejects.toThrow(`PostgresCluster ${ns}/third: refused by the licence`);
    await expect(refused).rejects.toThrow(
      `(the PostgresCluster ${ns}/third this create recorded was removed: nothing is left in the cluster)`,
    );
    expect(await readPostgresCluster(client, ns, "third")).toBeUndefined();

    // A seat freed, the same create succeeds.
    await destroy(inputs(ns, "second"));
    await expect(create(inputs(ns, "third"))).resolves.toMatchObject({ id: `${ns}/third` });

    // One created before by another front end (kubectl here), refused too, is not the create's to remove.
    await createPostgresCluster(client, ns, "fourth", inputs(ns, "fourth").spec as never);
    await expect(create(inputs(ns, "fourth"))).rejects.toThrow(
      `(PostgresCluster ${ns}/fourth existed before this create: left as it is)`,
    );
    expect(await readPostgresCluster(client, ns, "fourth")).toBeDefined();

    // The seats given back for the next tests.
    for (const name of ["first", "third", "fourth"]) await destroy(inputs(ns, name));
  });

  it("stops at once on what waiting cannot change (a connection Secret lacking a key), but waits for a Secret not there yet", async () => {
    const ns = await namespaces.create("stalled-create");
    // Ten minutes to wait: had it waited, the test's own timeout would fail it first.
    const patient = { ...inputs(ns, "lacking"), timeoutSeconds: 600 };
    await client.core.createNamespacedSecret({
      namespace: ns,
      body: { metadata: { name: "pg" }, stringData: { host: "pg.internal", password: "p" } },
    });
    const stalled = create(patient);
    const said = `PostgresCluster ${ns}/lacking: Secret ${ns}/pg lacks keys username: add them (host, port, username, password)`;
    await expect(stalled).rejects.toThrow(said);
    await expect(stalled).rejects.toThrow("this create recorded was removed: nothing is left in the cluster");
    await expect(stalled).rejects.not.toThrow("was not Ready after");
    expect(await readPostgresCluster(client, ns, "lacking")).toBeUndefined();

    // The Secret missing is not stalled: another tool (External Secrets, the same Pulumi program) may
    // still make it. The create waits, and completes once it is there.
    const waiting = create({
      ...patient,
      name: "later",
      spec: { mode: "external", external: { connectionSecretRef: { name: "later" } } },
    });
    await eventually("the PostgresCluster recorded, waiting for its Secret", async () => {
      const resource = await readPostgresCluster(client, ns, "later");
      const ready = resource?.status?.conditions.find((c) => c.type === "Ready");
      return ready?.reason === "ConnectionSecretInvalid" ? resource : undefined;
    });
    await client.core.createNamespacedSecret({
      namespace: ns,
      body: { metadata: { name: "later" }, stringData: { host: "pg.internal", username: "u", password: "p" } },
    });
    await expect(waiting).resolves.toMatchObject({ id: `${ns}/later`, outs: { host: "pg.internal" } });
  });

  it("refused by the apiserver (a cluster's admission policy), fails with what the apiserver said and what to do", async () => {
    const ns = await namespaces.create("refused-create");
    await createConnectionSecret(client, ns);
    // A rule of the cluster's own, in CEL, as its administrators would write one: kube-apiserver enforces
    // it itself (no webhook pod). Applied to this suite's namespace only.
    const policy = {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingAdmissionPolicy",
      metadata: { name: `navique-test-${ns}` },
      spec: {
        failurePolicy: "Fail",
        matchConstraints: {
          resourceRules: [
            {
              apiGroups: ["core.navique.com"],
              apiVersions: ["*"],
              operations: ["CREATE", "UPDATE"],
              resources: ["postgresclusters"],
            },
          ],
        },
        validations: [
          {
            expression: "!object.metadata.name.startsWith('legacy-')",
            message: "names starting with legacy- are reserved for the old platform",
          },
        ],
      },
    };
    const binding = {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingAdmissionPolicyBinding",
      metadata: { name: `navique-test-${ns}` },
      spec: {
        policyName: policy.metadata.name,
        validationActions: ["Deny"],
        matchResources: { namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": ns } } },
      },
    };
    const refusedName = "legacy-orders";
    try {
      await client.apply(policy);
      await client.apply(binding);
      // The apiserver picks a new policy up within a second or so: probed without writing anything.
      const probe = {
        apiVersion: "core.navique.com/v1alpha1",
        kind: "PostgresCluster",
        metadata: { name: refusedName, namespace: ns },
        spec: inputs(ns, refusedName).spec,
      };
      await eventually("the admission policy in force", async () => {
        try {
          await client.apply(probe, { dryRun: true });
          return undefined;
        } catch (error) {
          return statusOf(error) === 422 ? true : undefined;
        }
      });

      const refused = create(inputs(ns, refusedName));
      await expect(refused).rejects.toThrow(`PostgresCluster ${ns}/${refusedName}: the apiserver refused it (422): `);
      await expect(refused).rejects.toThrow("names starting with legacy- are reserved for the old platform");
      await expect(refused).rejects.toThrow(
        "Correct the field it names in the component's args, or ask who runs the cluster about the rule that refuses it",
      );
      // No object dump: one line.
      await expect(refused).rejects.toThrow(/^[^\n{]*$/);
      expect(await readPostgresCluster(client, ns, refusedName)).toBeUndefined();
    } finally {
      await client.delete(binding);
      await client.delete(policy);
    }
  });
});
