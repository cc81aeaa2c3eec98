import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CERT_MANAGER } from "../../lib/catalog/cert-manager.js";
import { CLOUDNATIVE_PG } from "../../lib/catalog/cloudnative-pg.js";
import type { HelmCli } from "../../lib/cluster/helm-cli.js";
import type { KubeClient } from "../../lib/cluster/kube-client.js";
import type { ReconcileContext } from "../../lib/engine/context.js";
import { createReconcileContext } from "../../lib/reconcile/context.js";
import {
  CAPABILITY_SUITE_SETUP_MS,
  FIXTURE_SOURCE,
  lockCapabilities,
  resetCapabilities,
  testClient,
  testHelm,
} from "../support/capabilities.js";
import { condition } from "../support/cluster.js";
import {
  adoptingPostgresCluster,
  installCloudnativePg,
  naviqueCrdsServed,
  USER_PASSWORD,
} from "../support/failing-step.js";
import { TEST_TRUSTED_KEYS } from "../support/licence.js";
import { suiteNamespaces } from "../support/namespace-content.js";
import {
  createPostgresCluster,
  eventsAbout,
  readPostgresCluster,
  reconcilePostgresCluster,
} from "../support/postgres.js";

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
});
