import { jest } from "@jest/globals";
import { REFERENCE_GRANT_PLURAL } from "../../lib/api/reference-grant.js";
import { CERT_MANAGER } from "../../lib/catalog/cert-manager.js";
import { CLOUDNATIVE_PG } from "../../lib/catalog/cloudnative-pg.js";
import { LITELLM_OPERATOR } from "../../lib/catalog/litellm-operator.js";
import type { HelmCli } from "../../lib/cluster/helm-cli.js";
import { type KubeClient, orUndefined } from "../../lib/cluster/kube-client.js";
import type { PostgresClusterStatus } from "../../lib/kinds/postgres-cluster/schema.js";
import { testClient } from "../support/capabilities.js";
import { capabilitySuite } from "../support/capability-suite.js";
import { condition, eventually } from "../support/cluster.js";
import { inProcessOperator } from "../support/operator.js";
import { playCnpgClusterReady, readCnpgCluster } from "../support/postgres.js";
import { finalizeResources, gatewayClaimingAcross, readStoredResource, registered } from "../support/resources.js";

const decoded = (secret: { data?: Record<string, string> } | undefined, key: string) =>
  Buffer.from(secret?.data?.[key] ?? "", "base64").toString();

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** How long the steady state is watched: many passes at the in-process operator's 300 ms requeue and resync. */
const STEADY_MS = 5_000;

// The operator's steady state around a claim made across namespaces (issue 30): a Gateway in one namespace
// auto-wired to a PostgresCluster in another, under a grant there. While nothing changes, its passes read
// the watch caches and write nothing: no apply of the Gateway's copy of its database URL, no list of
// ReferenceGrants by the cluster's passes. A change still acts at once: a rotated password is copied
// again, a grant removed revokes the claim and the copy. No CNPG or LiteLLM pod runs here: the test writes
// the Cluster status CNPG would (playCnpgClusterReady); the LiteLLM instance is left unready, so the
// Gateway keeps waiting and its passes keep coming.
describe("the operator's steady state around a claim from another namespace", () => {
  const suite = capabilitySuite({
    capabilities: [LITELLM_OPERATOR, CLOUDNATIVE_PG, CERT_MANAGER],
    licence: { features: ["auto-wiring"], caps: { Gateway: 5 } },
  });
  const { namespaces } = suite;
  let client: KubeClient;
  let helm: HelmCli;
  beforeAll(() => {
    ({ client, helm } = suite);
  });

  it("writes no unchanged copy and lists no grant while nothing changes; a rotation is copied, a grant removed revokes at once", async () => {
    const data = await namespaces.create("steady-claims-data");
    const apps = await namespaces.create("steady-claims-apps");
    await gatewayClaimingAcross(client, data, apps);

    // The operator's own client, its requests counted: the server-side applies of the Gateway's copy, and
    // the lists of ReferenceGrants (its grants watch lists once when it starts, none after while it runs).
    const operatorClient = testClient();
    const applies = jest.spyOn(operatorClient, "apply");
    const lists = jest.spyOn(operatorClient.custom, "listNamespacedCustomObject");
    const copyApplies = () =>
      applies.mock.calls.filter(
        ([object]) =>
          object.kind === "Secret" && object.metadata.name === "llm-database" && object.metadata.namespace === apps,
      ).length;
    const grantLists = () => lists.mock.calls.filter(([request]) => request.plural === REFERENCE_GRANT_PLURAL).length;
    // The passes themselves, counted where every pass asks its kind for the desired state.
    const gatewayPasses = jest.spyOn(registered("Gateway"), "desired");
    const clusterPasses = jest.spyOn(registered("PostgresCluster"), "desired");
    const operator = inProcessOperator(operatorClient, helm, { watchNamespaces: [data, apps] });
    await operator.start();
    try {
      const copied = await eventually(
        "the operator to copy the claimed database's URL into Gateway llm's namespace",
        async () => {
          if (await readCnpgCluster(client, data, "shared")) await playCnpgClusterReady(client, data, "shared");
          return orUndefined(client.core.readNamespacedSecret({ name: "llm-database", namespace: apps }));
        },
        { timeoutMs: 180_000 },
      );
      await eventually("Gateway llm to wait for its LiteLLM instance", async () => {
        const ready = condition(await readStoredResource(client, "Gateway", apps, "llm"), "Ready");
        return ready?.status === "False" && /LiteLLM/i.test(ready.message ?? "") ? true : undefined;
      });

      // WHEN nothing changes for a while: passes of both keep coming, from the watch caches.
      const [copiesBefore, listsBefore, gatewaysBefore, clustersBefore] = [
        copyApplies(),
        grantLists(),
        gatewayPasses.mock.calls.length,
        clusterPasses.mock.calls.length,
      ];
      await sleep(STEADY_MS);
      expect(gatewayPasses.mock.calls.length - gatewaysBefore).toBeGreaterThan(3);
      expect(clusterPasses.mock.calls.length - clustersBefore).toBeGreaterThan(3);
      // THEN the copy, equal to what is stored, is never applied again; no grant is listed.
      expect(copyApplies() - copiesBefore).toBe(0);
      expect(grantLists() - listsBefore).toBe(0);
      const unchanged = await client.core.readNamespacedSecret({ name: "llm-database", namespace: apps });
      expect(unchanged.metadata?.resourceVersion).toBe(copied.metadata?.resourceVersion);

      // WHEN the claim's password is rotated (its Secret deleted, made again by the cluster's pass): the
      // copy's source changed, and the copy is written again with the new password.
      const shared = await readStoredResource(client, "PostgresCluster", data, "shared");
      const claim = (shared?.status as PostgresClusterStatus | undefined)?.claims?.[0];
      const claimSecret = claim?.credentialsSecret.name ?? "";
      const before = decoded(
        await client.core.readNamespacedSecret({ name: claimSecret, namespace: data }),
        "password",
      );
      const copiesBeforeRotation = copyApplies();
      await client.core.deleteNamespacedSecret({ name: claimSecret, namespace: data });
      await eventually(
        "the Gateway's copy to carry the rotated password",
        async () => {
          const now = await orUndefined(client.core.readNamespacedSecret({ name: claimSecret, namespace: data }));
          const password = decoded(now, "password");
          if (!password || password === before) return undefined;
          const copy = await client.core.readNamespacedSecret({ name: "llm-database", namespace: apps });
          return decoded(copy, "url").includes(`:${encodeURIComponent(password)}@`) ? true : undefined;
        },
        { timeoutMs: 30_000 },
      );
      expect(copyApplies()).toBeGreaterThan(copiesBeforeRotation);

      // WHEN the grant is removed: the watch's cache no longer holds it, and the very next passes revoke
      // what it allowed — the Gateway refused, its copy deleted, the cluster's claim dropped — with no list.
      const listsBeforeRevocation = grantLists();
      await client.custom.deleteNamespacedCustomObject({
        group: "core.navique.com",
        version: "v1alpha1",
        plural: REFERENCE_GRANT_PLURAL,
        namespace: data,
        name: "gateways",
      });
      await eventually(
        "the grant's removal to revoke the claim and the copy",
        async () => {
          const gateway = await readStoredResource(client, "Gateway", apps, "llm");
          const cluster = await readStoredResource(client, "PostgresCluster", data, "shared");
          const copy = await orUndefined(client.core.readNamespacedSecret({ name: "llm-database", namespace: apps }));
          const claims = (cluster?.status as PostgresClusterStatus | undefined)?.claims ?? [];
          const refused = condition(gateway, "Ready")?.reason === "ReferenceNotPermitted";
          return refused && !copy && claims.length === 0 ? true : undefined;
        },
        { timeoutMs: 10_000 },
      );
      expect(grantLists() - listsBeforeRevocation).toBe(0);
    } finally {
      await operator.stop();
      gatewayPasses.mockRestore();
      clusterPasses.mockRestore();
      await finalizeResources(suite.context, "Gateway", apps);
      await finalizeResources(suite.context, "PostgresCluster", data);
    }
  }, 300_000);
});
