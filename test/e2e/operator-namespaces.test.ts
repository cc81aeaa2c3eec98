import { FINALIZER } from "../../lib/api/group.js";
import { ensureNaviqueCrds } from "../../lib/apply/navique-crds.js";
import type { HelmCli } from "../../lib/cluster/helm-cli.js";
import type { KubeClient } from "../../lib/cluster/kube-client.js";
import type { NaviqueOperator } from "../../providers/operator/operator.js";
import { CAPABILITY_SUITE_SETUP_MS, lockCapabilities, testClient, testHelm } from "../support/capabilities.js";
import { condition, createTestNamespace, eventually } from "../support/cluster.js";
import { applyLicence, removeLicence, testLicenceToken } from "../support/licence.js";
import { discardNamespace } from "../support/namespace-content.js";
import { inProcessOperator } from "../support/operator.js";
import {
  createConnectionSecret,
  createPostgresCluster,
  eventsAbout,
  readPostgresCluster,
} from "../support/postgres.js";

// An operator started with --watch-namespaces serves those namespaces only: it reconciles what is in
// them, leaves everything elsewhere to another operator, and refuses — saying why — to adopt from a
// namespace it does not serve (SPEC 3.4). Caps stay cluster-wide, so the test licenses room for all.
describe("the operator with --watch-namespaces", () => {
  let client: KubeClient;
  let helm: HelmCli;
  let unlock: () => Promise<void>;
  let operator: NaviqueOperator;
  let served = "";
  let elsewhere = "";

  beforeAll(async () => {
    unlock = await lockCapabilities();
    client = testClient();
    helm = await testHelm();
    await ensureNaviqueCrds(client);
    await applyLicence(client, testLicenceToken({ caps: { PostgresCluster: 10 } }));
    served = (await createTestNamespace("served")).name;
    elsewhere = (await createTestNamespace("elsewhere")).name;
    for (const namespace of [served, elsewhere]) {
      await createConnectionSecret(client, namespace);
    }
    operator = inProcessOperator(client, helm, { watchNamespaces: [served] });
    await operator.start();
  }, CAPABILITY_SUITE_SETUP_MS);

  afterAll(async () => {
    // The operator finalizes the served namespace's PostgresClusters as the namespace goes.
    if (served) await discardNamespace(client, served);
    await operator?.stop();
    if (elsewhere) await discardNamespace(client, elsewhere);
    if (client) await removeLicence(client);
    await unlock?.();
  });

  it("reconciles what is in a served namespace and leaves the rest untouched", async () => {
    const external = { mode: "external" as const, external: { connectionSecretRef: { name: "pg" } } };
    await createPostgresCluster(client, elsewhere, "theirs", external);
    await createPostgresCluster(client, served, "ours", external);
    const ours = await eventually("the served PostgresCluster to be Ready", async () => {
      const resource = await readPostgresCluster(client, served, "ours");
      return condition(resource, "Ready")?.status === "True" ? resource : undefined;
    });
    expect(ours.metadata.finalizers).toEqual([FINALIZER]);
    // Many resyncs (every 300 ms) have passed by now: the other namespace's resource was never touched.
    const theirs = await readPostgresCluster(client, elsewhere, "theirs");
    expect(theirs?.status).toBeUndefined();
    expect(theirs?.metadata.finalizers).toBeUndefined();
    expect(await eventsAbout(client, elsewhere, "theirs")).toEqual([]);
  });

  it("refuses to adopt from a namespace it does not serve, with a condition and an Event that say what to do", async () => {
    await createPostgresCluster(client, served, "adopter", {
      mode: "adopt",
      adopt: {
        clusterRef: { name: "shared", namespace: elsewhere },
        credentialsSecretRef: { name: "pg", namespace: elsewhere },
      },
    });
    const refused = await eventually("the adoption to be refused", async () => {
      const resource = await readPostgresCluster(client, served, "adopter");
      return condition(resource, "Ready")?.reason === "NamespaceNotWatched" ? resource : undefined;
    });
    const message = `spec.adopt.clusterRef.namespace "${elsewhere}" and spec.adopt.credentialsSecretRef.namespace "${elsewhere}" are outside the namespaces this operator serves (--watch-namespaces ${served}); nothing was done. Add them to --watch-namespaces, or adopt from a served namespace`;
    expect(condition(refused, "Ready")?.message).toBe(message);
    expect(refused.status?.emitted).toEqual([]);
    expect(await eventsAbout(client, served, "adopter")).toEqual([
      { type: "Warning", reason: "NamespaceNotWatched", note: message },
    ]);
  });
});
