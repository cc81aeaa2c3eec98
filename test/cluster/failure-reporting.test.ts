import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CERT_MANAGER } from "../../lib/catalog/cert-manager.js";
import { CLOUDNATIVE_PG } from "../../lib/catalog/cloudnative-pg.js";
import type { HelmCli } from "../../lib/cluster/helm-cli.js";
import { KubeClient, statusOf } from "../../lib/cluster/kube-client.js";
import type { ReconcileContext } from "../../lib/engine/context.js";
import { CNPG_API_VERSION } from "../../lib/kinds/postgres-cluster/cnpg.js";
import { createReconcileContext } from "../../lib/reconcile/context.js";
import {
  CAPABILITY_SUITE_SETUP_MS,
  FIXTURE_SOURCE,
  lockCapabilities,
  resetCapabilities,
  testClient,
  testHelm,
} from "../support/capabilities.js";
import { condition, eventually } from "../support/cluster.js";
import {
  adoptingPostgresCluster,
  installCloudnativePg,
  naviqueCrdsServed,
  USER_PASSWORD,
} from "../support/failing-step.js";
import { applyLicence, removeLicence, TEST_TRUSTED_KEYS, testLicenceToken } from "../support/licence.js";
import { suiteNamespaces } from "../support/namespace-content.js";
import {
  createPostgresCluster,
  eventsAbout,
  readPostgresCluster,
  reconcilePostgresCluster,
} from "../support/postgres.js";

/** `text` as a regular expression that matches it literally. */
function literally(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** Reconciles a PostgresCluster `passes` times, each from a fresh read, and returns what each pass threw. */
async function failingPasses(context: ReconcileContext, namespace: string, name: string, passes: number) {
  const thrown: string[] = [];
  for (let pass = 0; pass < passes; pass++) {
    const resource = await readPostgresCluster(context.client, namespace, name);
    if (!resource) throw new Error(`PostgresCluster ${namespace}/${name} does not exist`);
    thrown.push(
      await reconcilePostgresCluster(context, resource).then(
        () => "no error",
        (error: unknown) => (error instanceof Error ? error.message : String(error)),
      ),
    );
  }
  return thrown;
}

// A step that fails is reported on the resource, not only in a log: its phase condition and Ready False
// with the cause and what to do, one Warning Event per cause however often it is retried, and the pass's
// error says the same in one line (the operator's log, `pulumi up`'s error).
describe("a failing step is reported on the PostgresCluster", () => {
  let client: KubeClient;
  let helm: HelmCli;
  let context: ReconcileContext;
  let unlock: (() => Promise<void>) | undefined;
  const namespaces = suiteNamespaces();
  const namespace = (suite: string) => namespaces.create(suite);
  const webhookConfiguration = "navique-test-failing-gate";

  beforeAll(async () => {
    client = testClient();
    helm = await testHelm();
    unlock = await lockCapabilities();
    await naviqueCrdsServed(client);
    await resetCapabilities(client, helm, [CLOUDNATIVE_PG, CERT_MANAGER], { crds: false });
    context = createReconcileContext({ client, helm, source: FIXTURE_SOURCE, trustedKeys: TEST_TRUSTED_KEYS });
  }, CAPABILITY_SUITE_SETUP_MS);
  afterAll(async () => {
    // A setup that never got the lock has nothing to clean up.
    if (!unlock) return;
    try {
      await client.delete({
        apiVersion: "admissionregistration.k8s.io/v1",
        kind: "ValidatingWebhookConfiguration",
        metadata: { name: webhookConfiguration },
      });
      await client.delete({
        apiVersion: "v1",
        kind: "Service",
        metadata: { name: "cnpg-webhook-service", namespace: CLOUDNATIVE_PG.release.namespace },
      });
      await removeLicence(client);
      await namespaces.discard(context);
      await resetCapabilities(client, helm, [CLOUDNATIVE_PG, CERT_MANAGER], { crds: false });
    } finally {
      await unlock();
    }
  });

  it("a capability install that fails: OperatorsReady and Ready False with the cause, one Warning Event after three passes", async () => {
    const ns = await namespace("fail-install");
    // A chart mirror without the charts: the install cannot even start.
    const empty = await mkdtemp(join(tmpdir(), "no-charts-"));
    const broken = createReconcileContext({
      client,
      helm,
      source: { kind: "directory", path: empty },
      trustedKeys: TEST_TRUSTED_KEYS,
    });
    await createPostgresCluster(client, ns, "pg", {});

    const thrown = await failingPasses(broken, ns, "pg", 3);

    const message = `the install of capability cert-manager found no chart: the chart mirror ${empty} has neither cert-manager-${CERT_MANAGER.chart.version}.tgz nor cert-manager/: add the packaged chart`;
    expect(thrown).toEqual(
      Array(3).fill(`PostgresCluster ${ns}/pg: OperatorsReady False (ChartUnavailable): ${message}`),
    );
    const resource = await readPostgresCluster(client, ns, "pg");
    expect(condition(resource, "OperatorsReady")).toMatchObject({
      status: "False",
      reason: "ChartUnavailable",
      message,
    });
    expect(condition(resource, "Ready")).toMatchObject({ status: "False", reason: "ChartUnavailable", message });
    // A chart source may come back: retried, not Stalled.
    expect(condition(resource, "Stalled")).toBeUndefined();
    expect(await eventsAbout(client, ns, "pg")).toEqual([
      { type: "Warning", reason: "ChartUnavailable", note: message },
    ]);
  });

  it("an object the apiserver refuses (422): DatastoreReady and Ready False naming the object, the apiserver's message and what to do; one Warning Event after three passes", async () => {
    await installCloudnativePg(context);
    const ns = await namespace("fail-apply");
    await adoptingPostgresCluster(context, ns, "chat", { blocked: true });

    const thrown = await failingPasses(context, ns, "chat", 3);

    // The apiserver's own words for a write to an immutable Secret's data (a real 422, not a mock).
    const message = `the apiserver refused the apply of Secret ${ns}/chat-adopted-credentials (422): Secret "chat-adopted-credentials" is invalid: data: Forbidden: field is immutable when \`immutable\` is set. Correct what it names (this resource's spec or name, or the object in the way) and the next retry applies it`;
    expect(thrown).toEqual(
      Array(3).fill(`PostgresCluster ${ns}/chat: DatastoreReady False (ApplyRejected): ${message}`),
    );
    const resource = await readPostgresCluster(client, ns, "chat");
    expect(condition(resource, "DatastoreReady")).toMatchObject({ status: "False", reason: "ApplyRejected", message });
    expect(condition(resource, "Ready")).toMatchObject({ status: "False", reason: "ApplyRejected", message });
    // A retry cannot pass an apiserver's refusal: Stalled (kstatus Failed) until someone changes the cause.
    expect(condition(resource, "Stalled")).toMatchObject({ status: "True", reason: "ApplyRejected", message });
    expect(await eventsAbout(client, ns, "chat")).toEqual([
      { type: "Warning", reason: "ApplyRejected", note: message },
    ]);
    // The copy carries the user's password: it is in no condition, no Event and no error.
    expect(JSON.stringify({ thrown, status: resource?.status })).not.toContain(USER_PASSWORD);
  });

  it("an admission webhook that cannot be called: AdmissionWebhookFailed naming the webhook, its Service and what to do, in one pass of at most 15 s, the apply sent once", async () => {
    await installCloudnativePg(context);
    const ns = await namespace("fail-webhook");
    // A webhook on CNPG Clusters of this namespace only, served as the cloudnative-pg chart serves its own
    // (Service cnpg-webhook-service in the release namespace) by a Service with no endpoint: no pod runs
    // here, so the apiserver's call fails for real, as it does while the chart's Deployment is not Ready.
    // Cluster-wide, hence under the capability lock, and removed by the suite's cleanup.
    await client.apply({
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "cnpg-webhook-service", namespace: CLOUDNATIVE_PG.release.namespace },
      spec: { ports: [{ port: 443, targetPort: 9443 }], selector: { app: "gate" } },
    } as never);
    await client.apply({
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingWebhookConfiguration",
      metadata: { name: webhookConfiguration },
      webhooks: [
        {
          name: "vcluster.gate.navique.test",
          admissionReviewVersions: ["v1"],
          sideEffects: "None",
          failurePolicy: "Fail",
          timeoutSeconds: 5,
          clientConfig: {
            service: {
              name: "cnpg-webhook-service",
              namespace: CLOUDNATIVE_PG.release.namespace,
              path: "/validate",
              port: 443,
            },
          },
          namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": ns } },
          rules: [
            {
              apiGroups: ["postgresql.cnpg.io"],
              apiVersions: ["*"],
              operations: ["CREATE", "UPDATE"],
              resources: ["clusters"],
            },
          ],
        },
      ],
    } as never);
    // The apiserver learns of a new webhook configuration through an informer: wait until a dry-run apply
    // of a Cluster in the namespace meets it.
    await eventually("the webhook to be in force", async () => {
      const probe = {
        apiVersion: CNPG_API_VERSION,
        kind: "Cluster",
        metadata: { name: "probe", namespace: ns },
        spec: { instances: 1, storage: { size: "1Gi" } },
      };
      const refused = await client.apply(probe as never, { dryRun: true }).then(
        () => false,
        (error: unknown) => statusOf(error) === 500,
      );
      return refused ? true : undefined;
    });
    const retried: string[] = [];
    const counting = createReconcileContext({
      client: KubeClient.fromFile(process.env.NAVIQUE_TEST_KUBECONFIG ?? "", {
        onRetry: (what, outcome) => retried.push(`${what}: ${JSON.stringify(outcome)}`),
      }),
      helm,
      source: FIXTURE_SOURCE,
      trustedKeys: TEST_TRUSTED_KEYS,
    });
    // The suite's earlier PostgresClusters fill the Community edition's cap: room for this one. The
    // License is cluster-wide (under the capability lock) and removed by the suite's cleanup.
    await applyLicence(client, testLicenceToken({ caps: { PostgresCluster: 50 } }));
    await createPostgresCluster(client, ns, "pg", {});

    const started = Date.now();
    const [first] = await failingPasses(counting, ns, "pg", 1);
    const took = Date.now() - started;
    await failingPasses(counting, ns, "pg", 1);

    // The apiserver's words up to the transport's cause, which depends on the network the apiserver dials
    // through (connection refused, a timeout, a TLS error): kube-apiserver's ErrCallingWebhook wording.
    const said = `Internal error occurred: failed calling webhook "vcluster.gate.navique.test": failed to call webhook: Post "https://cnpg-webhook-service.cnpg-system.svc:443/validate?timeout=5s": `;
    const pattern = `${literally(`admission webhook "vcluster.gate.navique.test" could not be called for the apply of Cluster ${ns}/pg (500): ${said}`)}.+${literally(". Its Service cnpg-system/cnpg-webhook-service has no ready endpoint or does not answer: check the Deployment behind it; it belongs to capability cloudnative-pg (release cnpg-system/cloudnative-pg): check that its controller is Ready. The next pass retries")}`;
    const message = new RegExp(`^${pattern}$`);
    expect(first).toMatch(
      new RegExp(
        `^${literally(`PostgresCluster ${ns}/pg: DatastoreReady False (AdmissionWebhookFailed): `)}${pattern}$`,
      ),
    );
    expect(took).toBeLessThanOrEqual(15_000);
    expect(retried).toEqual([]);
    const resource = await readPostgresCluster(client, ns, "pg");
    expect(condition(resource, "DatastoreReady")).toMatchObject({
      status: "False",
      reason: "AdmissionWebhookFailed",
      message: expect.stringMatching(message),
    });
    expect(condition(resource, "Ready")).toMatchObject({ status: "False", reason: "AdmissionWebhookFailed" });
    // A webhook's Deployment becomes Ready by itself: retried, not Stalled.
    expect(condition(resource, "Stalled")).toBeUndefined();
    const events = await eventsAbout(client, ns, "pg");
    expect(events).toEqual([
      { type: "Warning", reason: "AdmissionWebhookFailed", note: expect.stringMatching(message) },
    ]);
  });
});
