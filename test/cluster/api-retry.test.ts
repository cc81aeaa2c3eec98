import { randomBytes } from "node:crypto";
import { CoreV1Api, FlowcontrolApiserverV1Api, KubeConfig, RbacAuthorizationV1Api } from "@kubernetes/client-node";
import { type AttemptOutcome, DEFAULT_RETRY_POLICY, NO_RETRY } from "../../lib/cluster/api-retry.js";
import { KubeClient, statusOf } from "../../lib/cluster/kube-client.js";
import { createTestNamespace, eventually, testKubeConfig } from "../support/cluster.js";

// The apiserver's own 429, from API Priority and Fairness: a FlowSchema sends every request of one test
// ServiceAccount to a priority level of its own with a seat or two and no queue (limitResponse Reject),
// so concurrent requests beyond its seats are rejected at once with 429 and Retry-After — what a busy
// apiserver answers. The FlowSchema and priority level are cluster-scoped but named for this run and
// match this ServiceAccount only: no other suite's requests are affected.
describe("the Kubernetes client's retries, against the apiserver's real 429", () => {
  const admin = testKubeConfig();
  const flowcontrol = admin.makeApiClient(FlowcontrolApiserverV1Api);
  const core = admin.makeApiClient(CoreV1Api);
  const rbac = admin.makeApiClient(RbacAuthorizationV1Api);
  const suffix = randomBytes(3).toString("hex");
  const level = `test-hammer-${suffix}`;
  const CONCURRENT = 40;
  let namespace: Awaited<ReturnType<typeof createTestNamespace>>;
  let hammerConfig: KubeConfig;

  beforeAll(async () => {
    namespace = await createTestNamespace("api-retry");
    const ns = namespace.name;
    await core.createNamespacedServiceAccount({ namespace: ns, body: { metadata: { name: "hammer" } } });
    await rbac.createNamespacedRole({
      namespace: ns,
      body: {
        metadata: { name: "read-config-maps" },
        rules: [{ apiGroups: [""], resources: ["configmaps"], verbs: ["get", "list", "create", "patch"] }],
      },
    });
    await rbac.createNamespacedRoleBinding({
      namespace: ns,
      body: {
        metadata: { name: "hammer-reads" },
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "read-config-maps" },
        subjects: [{ kind: "ServiceAccount", name: "hammer", namespace: ns }],
      },
    });
    await flowcontrol.createPriorityLevelConfiguration({
      body: {
        metadata: { name: level },
        spec: {
          type: "Limited",
          limited: {
            nominalConcurrencyShares: 1,
            lendablePercent: 0,
            borrowingLimitPercent: 0,
            limitResponse: { type: "Reject" },
          },
        },
      },
    });
    await flowcontrol.createFlowSchema({
      body: {
        metadata: { name: level },
        spec: {
          priorityLevelConfiguration: { name: level },
          // Ahead of the built-in service-accounts (9000) and global-default (9900) schemas.
          matchingPrecedence: 500,
          distinguisherMethod: { type: "ByUser" },
          rules: [
            {
              subjects: [{ kind: "ServiceAccount", serviceAccount: { name: "hammer", namespace: ns } }],
              resourceRules: [
                { verbs: ["*"], apiGroups: ["*"], resources: ["*"], namespaces: ["*"], clusterScope: true },
              ],
              nonResourceRules: [{ verbs: ["*"], nonResourceURLs: ["*"] }],
            },
          ],
        },
      },
    });
    const token = await core.createNamespacedServiceAccountToken({
      name: "hammer",
      namespace: ns,
      body: { spec: { audiences: [], expirationSeconds: 3600 } },
    });
    const cluster = admin.getCurrentCluster();
    if (!cluster) throw new Error("the test kubeconfig has no current cluster");
    hammerConfig = new KubeConfig();
    hammerConfig.loadFromOptions({
      clusters: [cluster],
      users: [{ name: "hammer", token: token.status?.token ?? "" }],
      contexts: [{ name: "hammer", cluster: cluster.name, user: "hammer" }],
      currentContext: "hammer",
    });
  });

  afterAll(async () => {
    await flowcontrol.deleteFlowSchema({ name: level }).catch(() => undefined);
    await flowcontrol.deletePriorityLevelConfiguration({ name: level }).catch(() => undefined);
    await namespace?.cleanup();
  });

  /** CONCURRENT lists of the namespace's ConfigMaps at once; each settles to its status (200 or the error's). */
  async function hammer(client: KubeClient): Promise<number[]> {
    return Promise.all(
      Array.from({ length: CONCURRENT }, () =>
        client.core.listNamespacedConfigMap({ namespace: namespace.name }).then(
          () => 200,
          (error: unknown) => statusOf(error) ?? -1,
        ),
      ),
    );
  }

  // GIVEN the test ServiceAccount's requests limited to its priority level's seats, with no queue
  // WHEN a client without retries sends CONCURRENT requests at once
  // THEN the apiserver rejects some with 429: the setting below really exercises the retries. (APF's
  //      configuration controller applies new FlowSchemas within a moment; bounded to 20 rounds.)
  it("answers a burst from the limited identity with 429 when nothing retries", async () => {
    const unretried = new KubeClient(hammerConfig, { retry: NO_RETRY });
    const statuses = await eventually(
      "the apiserver to reject part of a burst with 429",
      async () => {
        const round = await hammer(unretried);
        return round.includes(429) ? round : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 500 },
    );
    expect(statuses.filter((status) => status !== 200 && status !== 429)).toEqual([]);
  });

  // GIVEN the same limit
  // WHEN a client with the product's default retry policy sends the same bursts
  // THEN every request succeeds, some of them after 429s the client waited out as the apiserver asked.
  it("makes every request of a burst succeed through its retries", async () => {
    const retries: AttemptOutcome[] = [];
    const retried = new KubeClient(hammerConfig, {
      retry: DEFAULT_RETRY_POLICY,
      onRetry: (_what, outcome) => retries.push(outcome),
    });
    // Until some request was refused and retried (on a busy machine a burst may not arrive at once
    // enough to exceed the seats): bounded to 20 bursts.
    for (let round = 0; round < 20 && retries.length === 0; round += 1) {
      expect(await hammer(retried)).toEqual(Array.from({ length: CONCURRENT }, () => 200));
    }
    expect(retries.length).toBeGreaterThan(0);
    expect(retries.every((outcome) => outcome.kind === "response" && outcome.status === 429)).toBe(true);
  });

  // GIVEN the same limit
  // WHEN the client's raw server-side apply (kube-client.ts sends it itself, not through client-node's
  //      HTTP library) is sent in bursts
  // THEN every apply succeeds too: the one retry policy covers both paths. (Bursts until an apply was
  //      refused and retried, bounded to 20.)
  it("makes every server-side apply of a burst succeed through its retries", async () => {
    const retried: string[] = [];
    const client = new KubeClient(hammerConfig, {
      onRetry: (what, outcome) =>
        retried.push(`${what} ${outcome.kind === "response" ? outcome.status : outcome.code}`),
    });
    for (let round = 0; round < 20 && !retried.some((line) => line.startsWith("PATCH")); round += 1) {
      const applied = await Promise.all(
        Array.from({ length: CONCURRENT }, (_, index) =>
          client.apply({
            apiVersion: "v1",
            kind: "ConfigMap",
            metadata: { name: `applied-${index}`, namespace: namespace.name },
            data: { round: String(round) },
          } as never),
        ),
      );
      expect(applied.map((object) => object.metadata?.name)).toEqual(
        Array.from({ length: CONCURRENT }, (_, index) => `applied-${index}`),
      );
    }
    expect(retried.some((line) => /^PATCH \/api\/v1\/namespaces\/.+\/configmaps\/applied-\d+ 429$/.test(line))).toBe(
      true,
    );
  });
});
