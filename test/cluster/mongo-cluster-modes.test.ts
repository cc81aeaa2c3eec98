import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RbacAuthorizationV1Api } from "@kubernetes/client-node";
import { App, Chart } from "cdk8s";
import { MongoCluster as MongoClusterConstruct } from "../../constructs/index.js";
import { API_GROUP } from "../../lib/api/group.js";
import { MONGODB_KUBERNETES } from "../../lib/catalog/mongodb-kubernetes.js";
import type { HelmCli } from "../../lib/cluster/helm-cli.js";
import { type KubeClient, orUndefined } from "../../lib/cluster/kube-client.js";
import { run } from "../../lib/cluster/process.js";
import { observeOptions, planContext, type ReconcileContext } from "../../lib/engine/context.js";
import type { EngineResource } from "../../lib/engine/kind-module.js";
import { observeResource } from "../../lib/engine/observe.js";
import { planResource } from "../../lib/engine/plan.js";
import type { MongoClusterStatus } from "../../lib/kinds/mongo-cluster/schema.js";
import { toolchainPaths } from "../../lib/local-plane/toolchain-paths.js";
import { destroy, up } from "../../providers/pulumi/runtime.js";
import { FIXTURE_CHARTS } from "../support/capabilities.js";
import { capabilitySuite } from "../support/capability-suite.js";
import { condition, eventually } from "../support/cluster.js";
import { TEST_TRUSTED_KEYS } from "../support/licence.js";
import { createCommunity, MONGO_CONSUMER, playMongoDBOperator, readCommunity } from "../support/mongodb.js";
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

const COMMUNITY = { group: "mongodbcommunity.mongodb.com", version: "v1", plural: "mongodbcommunity" };

const statusOf = (outcome: { plan: { status: unknown } }) => outcome.plan.status as MongoClusterStatus;
const decoded = (secret: { data?: Record<string, string> } | undefined, key: string) =>
  Buffer.from(secret?.data?.[key] ?? "", "base64").toString();

// MongoCluster on the real plane, one scenario per mode, its claims, then through each front end: the
// operator, the Pulumi runtime, cdk8s synth and `navique plan`. The MongoDB Controllers for Kubernetes are
// installed from their fixture chart (test/fixtures/charts/mongodb-kubernetes, standing in for chart 1.9.1);
// no pod runs here, so the test plays the operator (playMongoDBOperator) and says so where it does.
describe("MongoCluster modes", () => {
  // More MongoClusters live here at once than the Community edition allows (1), and claims are auto-wiring's.
  const suite = capabilitySuite({
    capabilities: [MONGODB_KUBERNETES],
    licence: { caps: { MongoCluster: 20 }, features: ["auto-wiring"] },
  });
  const { namespaces } = suite;
  let client: KubeClient;
  let helm: HelmCli;
  let context: ReconcileContext;
  beforeAll(() => {
    ({ client, helm, context } = suite);
  });

  it("managed: installs the MongoDB operator, generates the admin password, creates a MongoDBCommunity the CRD accepts; Ready once Running; Retain keeps it", async () => {
    const ns = await namespaces.create("mongo-managed");
    await createResource(client, "MongoCluster", ns, "docs", {});
    const playOperator = async () => {
      if (await readCommunity(client, ns, "docs")) await playMongoDBOperator(client, ns, "docs");
    };
    const ready = await reconcileUntil(context, "MongoCluster", ns, "docs", (o) => !o.requeue, playOperator);

    // The capability, installed from its chart with the catalog's values: one controller for every namespace.
    expect(statusOf(ready).capabilities).toEqual([
      expect.objectContaining({ name: "mongodb-kubernetes", provenance: "owned", chartVersion: "1.9.1" }),
    ]);
    const controller = await client.apps.readNamespacedDeployment({
      name: "mongodb-kubernetes-operator",
      namespace: "mongodb",
    });
    const container = controller.spec?.template.spec?.containers[0];
    expect(container?.image).toBe("quay.io/mongodb/mongodb-kubernetes:1.9.1");
    expect(container?.args).toEqual(["-watch-resource=mongodbcommunity"]);
    expect(container?.env?.find((e) => e.name === "WATCH_NAMESPACE")?.value).toBe("*");

    expect(statusOf(ready).connection).toEqual({
      host: `docs-svc.${ns}.svc`,
      port: 27017,
      credentialsSecret: { name: "docs-credentials", namespace: ns },
      url: `mongodb://docs-svc.${ns}.svc:27017`,
    });
    const stored = await readStoredResource(client, "MongoCluster", ns, "docs");
    expect(condition(stored, "Ready")).toMatchObject({
      status: "True",
      message: `MongoDB reachable at docs-svc.${ns}.svc:27017`,
    });
    expect(condition(stored, "DatastoreReady")?.message).toBe(
      `MongoDBCommunity ${ns}/docs is Ready: phase Running with 3 of 3 members`,
    );
    const secret = await client.core.readNamespacedSecret({ name: "docs-credentials", namespace: ns });
    const password = decoded(secret, "password");
    expect(password).toHaveLength(32);
    expect(decoded(secret, "username")).toBe("admin");

    const community = await readCommunity(client, ns, "docs");
    expect(community?.metadata.annotations?.["core.navique.com/owner"]).toBe(`MongoCluster/${ns}/docs`);
    expect(community?.spec).toMatchObject({
      type: "ReplicaSet",
      members: 3,
      version: "8.3.4",
      security: { authentication: { modes: ["SCRAM"], ignoreUnknownUsers: false } },
      users: [
        {
          name: "admin",
          db: "admin",
          passwordSecretRef: { name: "docs-credentials", key: "password" },
          roles: [{ name: "root", db: "admin" }],
          scramCredentialsSecretName: "docs-admin",
        },
      ],
      statefulSet: { spec: { template: { spec: { serviceAccountName: "docs-database" } } } },
    });
    // Its pods' identity, beside it: what the chart grants its own mongodb-kubernetes-appdb.
    const rbac = client.kubeconfig.makeApiClient(RbacAuthorizationV1Api);
    const role = await rbac.readNamespacedRole({ name: "docs-database", namespace: ns });
    expect(role.rules).toEqual([
      { apiGroups: [""], resources: ["secrets"], verbs: ["get"] },
      { apiGroups: [""], resources: ["pods"], verbs: ["patch", "delete", "get"] },
    ]);
    const binding = await rbac.readNamespacedRoleBinding({ name: "docs-database", namespace: ns });
    expect(binding.subjects).toEqual([{ kind: "ServiceAccount", name: "docs-database", namespace: ns }]);
    expect(await client.core.readNamespacedServiceAccount({ name: "docs-database", namespace: ns })).toBeDefined();

    // What the product applies, re-sent as a create under another name, in a strict dry run: every field is
    // one the CRD declares, of its type (the fixture CRD's, from chart 1.9.1's).
    const applied = ready.plan.steps.find(
      (s): s is Extract<typeof s, { kind: "apply" }> => s.kind === "apply" && s.object.kind === "MongoDBCommunity",
    );
    if (!applied) throw new Error("no MongoDBCommunity among the steps");
    await client.custom.createNamespacedCustomObject({
      ...COMMUNITY,
      namespace: ns,
      body: { ...applied.object, metadata: { ...applied.object.metadata, name: "docs-dry-run" } },
      dryRun: "All",
      fieldValidation: "Strict",
    });
    // The same dry run refuses a field the CRD does not declare: the check would catch an invented one.
    await expect(
      client.custom.createNamespacedCustomObject({
        ...COMMUNITY,
        namespace: ns,
        body: {
          ...applied.object,
          metadata: { ...applied.object.metadata, name: "docs-dry-run" },
          spec: { ...(applied.object.spec as object), replicas: 3 },
        },
        dryRun: "All",
        fieldValidation: "Strict",
      }),
    ).rejects.toMatchObject({ body: expect.stringContaining('unknown field \\"spec.replicas\\"') });

    // The generated password is in its Secret only: not in the replica set, the resource, the chart's values or an Event.
    const values = await run((await toolchainPaths()).helm, [
      "get",
      "values",
      "mongodb-kubernetes-operator",
      "--namespace",
      "mongodb",
      "--all",
      "--output",
      "json",
      "--kubeconfig",
      process.env.NAVIQUE_TEST_KUBECONFIG ?? "",
    ]);
    expect(JSON.parse(values.stdout)).toMatchObject({
      operator: { watchNamespace: "*", watchedResources: ["mongodbcommunity"], telemetry: { enabled: false } },
    });
    expectPlantedNowhere(password, {
      [`MongoDBCommunity ${ns}/docs`]: community,
      [`MongoCluster ${ns}/docs`]: stored,
      [`the Events of ${ns} and mongodb`]: await recordedEvents(client, ns, "mongodb"),
      "the operator release's values": values.stdout,
    });

    // Deleted under the default Retain: the replica set, its password and its pods' identity stay, released.
    await finalizeResources(context, "MongoCluster", ns);
    const kept = await readCommunity(client, ns, "docs");
    expect(kept?.metadata.labels?.["core.navique.com/owned-by"]).toBeUndefined();
    expect(kept?.metadata.annotations?.["core.navique.com/owner"]).toBeUndefined();
    const keptSecret = await client.core.readNamespacedSecret({ name: "docs-credentials", namespace: ns });
    expect(keptSecret.data?.password).toBe(secret.data?.password);
    const keptAccount = await client.core.readNamespacedServiceAccount({ name: "docs-database", namespace: ns });
    expect(keptAccount.metadata?.labels?.["core.navique.com/owned-by"]).toBeUndefined();
    const events = await client.events.listNamespacedEvent({ namespace: ns });
    expect(events.items.map((e) => e.note)).toContainEqual(
      expect.stringContaining(
        `MongoDBCommunity ${ns}/docs may hold data and was kept (deletionPolicy Retain) (MongoCluster ${ns}/docs deleted), with its password Secret(s) ${ns}/docs-credentials (passwords unchanged) and the service account its pods run as ${ns}/docs-database`,
      ),
    );

    // Created again under the same name, it never takes back the replica set it released: NameTaken.
    await createResource(client, "MongoCluster", ns, "docs", {});
    const taken = await reconcileUntil(context, "MongoCluster", ns, "docs", (o) => !o.requeue);
    expect(taken.plan.conditions.find((c) => c.type === "DatastoreReady")).toMatchObject({
      status: "False",
      reason: "NameTaken",
    });
    expect(taken.performed).toEqual([]);
    await finalizeResources(context, "MongoCluster", ns);
  }, 300_000);

  it("claims: each consumer gets a database and a user of its own, published once made; a claim that goes takes its user and Secret with it", async () => {
    const data = await namespaces.create("mongo-claims-data");
    const apps = await namespaces.create("mongo-claims-apps");
    const team = await namespaces.create("mongo-claims-team");
    await createResource(client, "MongoCluster", data, "shared", { managed: { members: 1, deletionPolicy: "Delete" } });
    await createReferenceGrant(client, data, "chat-uis", {
      from: [
        { group: API_GROUP, kind: "ChatUI", namespace: apps },
        { group: API_GROUP, kind: "ChatUI", namespace: team },
      ],
      to: [{ group: API_GROUP, kind: "MongoCluster", name: "shared" }],
    });
    // The claimants, of a consumer kind written for the test (test/support/mongodb.ts): never stored, they
    // reach the engine as the operator's watch cache would hand them.
    const consumer = (namespace: string): EngineResource => ({
      apiVersion: "core.navique.com/v1alpha1",
      kind: "ChatUI",
      metadata: { name: "chat", namespace, uid: `u-${namespace}`, generation: 1 },
      spec: { mongoRef: { name: "shared", namespace: data } },
      status: { conditions: [], admitted: true },
    });
    let claimants = [consumer(apps), consumer(team)];
    const withConsumers: ReconcileContext = {
      ...context,
      registry: [...context.registry, MONGO_CONSUMER],
      resources: (kind) => (kind === "ChatUI" ? (claimants as never[]) : undefined),
    };
    const playOperator = () => playMongoDBOperator(client, data, "shared");

    // Created by the operator's first pass, with the claims: not published until the operator made the users.
    const first = await reconcileUntil(withConsumers, "MongoCluster", data, "shared", (o) =>
      o.performed.some((step) => step.startsWith(`apply MongoDBCommunity ${data}/shared`)),
    );
    expect(statusOf(first).claims).toEqual([]);
    const made = await reconcileUntil(
      withConsumers,
      "MongoCluster",
      data,
      "shared",
      (o) => !o.requeue && (statusOf(o).claims ?? []).length === 2,
      playOperator,
    );
    const claims = statusOf(made).claims ?? [];
    expect(claims.map((c) => c.claimant)).toEqual([`ChatUI/${apps}/chat`, `ChatUI/${team}/chat`]);
    expect(new Set(claims.map((c) => c.user)).size).toBe(2);
    const users = (await readCommunity(client, data, "shared"))?.spec.users ?? [];
    expect(users.map((u) => u.name)).toEqual(["admin", ...claims.map((c) => c.user)]);
    const passwords: string[] = [];
    for (const claim of claims) {
      expect(claim.database).toBe(claim.user);
      expect(users.find((u) => u.name === claim.user)).toEqual({
        name: claim.user,
        db: claim.database,
        passwordSecretRef: { name: claim.credentialsSecret.name, key: "password" },
        roles: [
          { name: "readWrite", db: claim.database },
          { name: "dbAdmin", db: claim.database },
        ],
        scramCredentialsSecretName: claim.credentialsSecret.name,
        connectionStringSecretName: `${claim.credentialsSecret.name}-connection`,
      });
      const secret = await client.core.readNamespacedSecret({ name: claim.credentialsSecret.name, namespace: data });
      expect(decoded(secret, "username")).toBe(claim.user);
      passwords.push(decoded(secret, "password"));
    }

    // Each claimant reads its own claim and credentials through its grant, and wires itself from them.
    for (const [i, ns] of [apps, team].entries()) {
      const claimant = claimants[i] as EngineResource;
      const view = await observeResource(client, withConsumers.installer, MONGO_CONSUMER, claimant, {
        ...observeOptions(withConsumers),
        instances: () => ({ list: [], ahead: () => 0 }),
      });
      expect(view.claimed?.["spec.mongoRef"]?.credentials?.password).toBe(passwords[i]);
      const plan = planResource(MONGO_CONSUMER, claimant, view, planContext(withConsumers));
      expect(plan.steps.map((s) => (s as { object?: { data?: unknown } }).object?.data)).toEqual([
        { database: claims[i]?.database, user: claims[i]?.user, host: `shared-svc.${data}.svc` },
      ]);
      expect(ns).toBe(claimant.metadata.namespace);
    }

    // The passwords are in Secrets only: not in the replica set, the MongoCluster's status or an Event.
    expectPlantedNowhere(passwords, {
      [`MongoCluster ${data}/shared`]: await readStoredResource(client, "MongoCluster", data, "shared"),
      [`MongoDBCommunity ${data}/shared`]: await readCommunity(client, data, "shared"),
      [`the Events of ${data}, ${apps} and ${team}`]: await recordedEvents(client, data, apps, team),
    });

    // The apps consumer goes: its user leaves the replica set's spec (the agent removes it), its Secret goes.
    claimants = [consumer(team)];
    const after = await reconcileUntil(
      withConsumers,
      "MongoCluster",
      data,
      "shared",
      (o) => !o.requeue && (statusOf(o).claims ?? []).length === 1,
      playOperator,
    );
    expect(statusOf(after).claims?.map((c) => c.claimant)).toEqual([`ChatUI/${team}/chat`]);
    expect(((await readCommunity(client, data, "shared"))?.spec.users ?? []).map((u) => u.name)).toEqual([
      "admin",
      claims[1]?.user,
    ]);
    const gone = claims[0]?.credentialsSecret.name ?? "";
    expect(await orUndefined(client.core.readNamespacedSecret({ name: gone, namespace: data }))).toBeUndefined();

    // Deleted under Delete: the replica set goes, said by a Warning.
    await finalizeResources(withConsumers, "MongoCluster", data);
    expect(await readCommunity(client, data, "shared")).toBeUndefined();
    const deleted = await client.events.listNamespacedEvent({ namespace: data });
    expect(deleted.items.map((e) => [e.reason, e.note])).toContainEqual([
      "DatastoreDeleted",
      `deleting MongoDBCommunity ${data}/shared (MongoCluster ${data}/shared deleted) (deletionPolicy Delete): its data is lost unless you dumped it`,
    ]);
  }, 300_000);

  it("adopt: a MongoDBCommunity in another namespace, under a grant that names it; the credentials copied; refused otherwise", async () => {
    const data = await namespaces.create("mongo-adopt-data");
    const apps = await namespaces.create("mongo-adopt-apps");
    const planted = "Pl4nted-Mong0-Adopt-S3cret-7f1c";
    await createCommunity(client, data, "shared");
    await client.core.createNamespacedSecret({
      namespace: data,
      body: {
        metadata: { name: "shared-admin-app" },
        // What the operator writes for user app of db admin: the URIs embed the password.
        stringData: {
          username: "app",
          password: planted,
          "connectionString.standard": `mongodb://app:${planted}@shared-0.shared-svc.${data}.svc.cluster.local:27017/admin?replicaSet=shared&ssl=false`,
        },
      },
    });
    const spec = {
      mode: "adopt",
      adopt: {
        communityRef: { name: "shared", namespace: data },
        credentialsSecretRef: { name: "shared-admin-app", namespace: data },
      },
    };
    await createResource(client, "MongoCluster", apps, "docs", spec);
    const refused = await reconcileUntil(context, "MongoCluster", apps, "docs", () => true);
    expect(refused.plan.conditions[0]?.reason).toBe("ReferenceNotPermitted");
    // A grant that names another replica set opens nothing of this one.
    await createReferenceGrant(client, data, "apps-other", {
      from: [{ group: API_GROUP, kind: "MongoCluster", namespace: apps }],
      to: [
        { group: "mongodbcommunity.mongodb.com", kind: "MongoDBCommunity", name: "other" },
        { group: "", kind: "Secret", name: "shared-admin-app" },
      ],
    });
    const stillRefused = await reconcileUntil(context, "MongoCluster", apps, "docs", () => true);
    expect(stillRefused.plan.conditions[0]).toMatchObject({ status: "False", reason: "ReferenceNotPermitted" });
    expect(stillRefused.plan.conditions[0]?.message).toContain("spec.adopt.communityRef");
    expect(
      await orUndefined(client.core.readNamespacedSecret({ name: "docs-adopted-credentials", namespace: apps })),
    ).toBeUndefined();

    await createReferenceGrant(client, data, "apps-mongo", {
      from: [{ group: API_GROUP, kind: "MongoCluster", namespace: apps }],
      to: [
        { group: "mongodbcommunity.mongodb.com", kind: "MongoDBCommunity", name: "shared" },
        { group: "", kind: "Secret", name: "shared-admin-app" },
      ],
    });
    // Not Running yet (the operator, played, reports Pending): wired, not Ready.
    await playMongoDBOperator(client, data, "shared", "Pending");
    const waiting = await reconcileUntil(context, "MongoCluster", apps, "docs", (o) => o.performed.length > 0);
    expect(waiting.plan.conditions.find((c) => c.type === "DatastoreReady")).toMatchObject({
      status: "False",
      reason: "AdoptedMongoDBNotReady",
      message: `waiting for the adopted MongoDBCommunity ${data}/shared: phase Pending`,
    });
    await playMongoDBOperator(client, data, "shared");
    const adopted = await reconcileUntil(context, "MongoCluster", apps, "docs", (o) => !o.requeue);
    expect(statusOf(adopted)).toMatchObject({
      provenance: "adopted",
      connection: {
        host: `shared-svc.${data}.svc`,
        port: 27017,
        credentialsSecret: { name: "docs-adopted-credentials", namespace: apps },
        url: `mongodb://shared-svc.${data}.svc:27017`,
      },
    });
    const copy = await client.core.readNamespacedSecret({ name: "docs-adopted-credentials", namespace: apps });
    expect([decoded(copy, "username"), decoded(copy, "password")]).toEqual(["app", planted]);
    // Adopted, never touched: no mark of ours on the user's replica set, no capability installed for it.
    const shared = await readCommunity(client, data, "shared");
    expect(shared?.metadata.labels?.["core.navique.com/owned-by"]).toBeUndefined();
    expect(statusOf(adopted).capabilities).toEqual([]);
    // The planted password is in the two Secrets only.
    expectPlantedNowhere(planted, {
      [`MongoCluster ${apps}/docs`]: await readStoredResource(client, "MongoCluster", apps, "docs"),
      [`the Events of ${data} and ${apps}`]: await recordedEvents(client, data, apps),
    });

    // The grant revoked: the copy goes.
    await client.custom.deleteNamespacedCustomObject({
      group: API_GROUP,
      version: "v1alpha1",
      plural: "referencegrants",
      namespace: data,
      name: "apps-mongo",
    });
    await reconcileUntil(context, "MongoCluster", apps, "docs", (o) => o.plan.conditions[0]?.status === "False");
    await eventually("the copied credentials to be deleted", async () =>
      (await orUndefined(client.core.readNamespacedSecret({ name: "docs-adopted-credentials", namespace: apps })))
        ? undefined
        : true,
    );
    await finalizeResources(context, "MongoCluster", apps);
    expect(await readCommunity(client, data, "shared")).toBeDefined();
  }, 300_000);

  it("external: the Secret's keys checked; through the operator, the Pulumi runtime, cdk8s synth and navique plan", async () => {
    const ns = await namespaces.create("mongo-external");
    const planted = "Pl4nted-Mong0-External-S3cret-9d2e";
    await client.core.createNamespacedSecret({
      namespace: ns,
      body: { metadata: { name: "mongo-conn" }, stringData: { host: "mongo.example.internal", password: planted } },
    });
    const spec = { mode: "external" as const, external: { connectionSecretRef: { name: "mongo-conn" } } };
    await createResource(client, "MongoCluster", ns, "lacking", spec);
    const lacking = await reconcileUntil(context, "MongoCluster", ns, "lacking", () => true);
    expect(lacking.plan.conditions.find((c) => c.type === "DatastoreReady")).toMatchObject({
      status: "False",
      reason: "ConnectionSecretInvalid",
      message: `Secret ${ns}/mongo-conn lacks keys username: add them (host, port, username, password)`,
    });
    expect(condition(await readStoredResource(client, "MongoCluster", ns, "lacking"), "Stalled")?.status).toBe("True");
    await finalizeResources(context, "MongoCluster", ns);
    await client.core.patchNamespacedSecret({
      name: "mongo-conn",
      namespace: ns,
      body: [{ op: "add", path: "/data/username", value: Buffer.from("librechat").toString("base64") }],
    });
    await client.core.patchNamespacedSecret({
      name: "mongo-conn",
      namespace: ns,
      body: [
        { op: "add", path: "/data/port", value: Buffer.from("27019").toString("base64") },
        { op: "add", path: "/data/database", value: Buffer.from("chat").toString("base64") },
      ],
    });

    // The operator: watches the kind from the registry and reconciles it to Ready.
    await createResource(client, "MongoCluster", ns, "ops", spec);
    // What the operator logs is collected: the planted password must not be among it either.
    const logged: string[] = [];
    const operator = inProcessOperator(client, helm, { report: (line) => logged.push(line) });
    try {
      // Stopped whatever happens, also after a failed start: a watch left running would reconcile the
      // plane's resources long after this test.
      await operator.start();
      await eventually("the operator to make MongoCluster ops Ready", async () =>
        condition(await readStoredResource(client, "MongoCluster", ns, "ops"), "Ready")?.status === "True"
          ? true
          : undefined,
      );
    } finally {
      await operator.stop();
    }
    const ops = await readStoredResource(client, "MongoCluster", ns, "ops");
    expect((ops?.status as MongoClusterStatus | undefined)?.connection).toEqual({
      host: "mongo.example.internal",
      port: 27019,
      credentialsSecret: { name: "mongo-conn", namespace: ns },
      database: "chat",
      url: "mongodb://mongo.example.internal:27019",
    });
    expectPlantedNowhere(planted, {
      [`MongoCluster ${ns}/ops`]: ops,
      "the operator's log": logged.join("\n"),
      // None is recorded in external mode today: scanned against one that would say the password.
      [`the Events of ${ns}`]: mayHoldNothing(await recordedEvents(client, ns)),
    });
    await finalizeResources(context, "MongoCluster", ns);

    // The Pulumi runtime (what `pulumi up` and `destroy` run in the provider process), one runtime for every kind.
    const inputs = {
      kind: "MongoCluster",
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
      host: "mongo.example.internal",
      port: 27019,
      username: "librechat",
      password: planted,
      provenance: "external",
    });
    await destroy(inputs, TEST_TRUSTED_KEYS);
    expect(await readStoredResource(client, "MongoCluster", ns, "via-pulumi")).toBeUndefined();

    // cdk8s synth, then `navique plan -f` on what it wrote: the same engine's lines. One MongoCluster per
    // app: synth judges an app's instances against the Community cap (1) when the app declares no licence;
    // the CLI verifies the suite's licence, with the test key given by --trust.
    const out = await mkdtemp(join(tmpdir(), "navique-mongo-synth-"));
    try {
      const synth = (app: string, id: string, props: ConstructorParameters<typeof MongoClusterConstruct>[2]) => {
        const synthesizer = new App({ outdir: join(out, app) });
        new MongoClusterConstruct(new Chart(synthesizer, "mongo", { namespace: ns }), id, props);
        synthesizer.synth();
        return join(out, app, "mongo.k8s.yaml");
      };
      const files = [synth("git", "from-git", { spec }), synth("managed", "managed-one", {})];
      const synthesized = await readFile(files[0] ?? "", "utf8");
      expect(synthesized).toContain("kind: MongoCluster");
      const plan = await planTrustingTestKey(["-f", ...files], out);
      expect(plan.stdout).toContain(
        `MongoCluster ${ns}/from-git: create it, nothing else: Secret ${ns}/mongo-conn holds host, port, username and password: consumers are sent to mongo.example.internal:27019, which the product does not contact`,
      );
      expect(plan.stdout).toContain(`MongoCluster ${ns}/managed-one: capability mongodb-kubernetes:`);
      expect(plan.stdout).toContain(
        `MongoCluster ${ns}/managed-one: apply MongoDBCommunity ${ns}/managed-one (MongoDB 8.3.4, 3 member(s), 10Gi each, 0 claim(s))`,
      );
      expect(plan.code).toBe(2);
      expectPlantedNowhere(planted, { "what cdk8s wrote": synthesized, "navique plan's output": plan.stdout });
    } finally {
      await rm(out, { recursive: true, force: true });
    }
  }, 300_000);
});
