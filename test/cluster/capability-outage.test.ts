import { join } from "node:path";
import { OWNERSHIP_MARKS } from "../../lib/api/group.js";
import { REDIS_OPERATOR } from "../../lib/catalog/redis-operator.js";
import type { HelmCli } from "../../lib/cluster/helm-cli.js";
import type { KubeClient } from "../../lib/cluster/kube-client.js";
import type { ReconcileContext } from "../../lib/engine/context.js";
import type { NaviqueOperator } from "../../providers/operator/operator.js";
import { FIXTURE_CHARTS, releaseRecords } from "../support/capabilities.js";
import { capabilitySuite } from "../support/capability-suite.js";
import { condition, eventually } from "../support/cluster.js";
import { inProcessOperator } from "../support/operator.js";
import { recordedEvents } from "../support/planted-secret.js";
import { playRedisOperator } from "../support/redis.js";
import { createResource, finalizeResources, readStoredResource } from "../support/resources.js";

const { name: RELEASE, namespace: RELEASE_NAMESPACE } = REDIS_OPERATOR.release;
/** The fixture chart's controller Deployment, named as upstream's (values redisOperator.name). */
const CONTROLLER = "redis-operator";
const CONTROLLER_LABEL = `Deployment ${RELEASE_NAMESPACE}/${CONTROLLER}`;

// A capability's controller that stops serving — scaled to 0, its release uninstalled by hand — is said
// on the resources relying on it at once (OperatorsReady and Ready False, OperatorUnavailable, naming
// the capability and its Deployment; one Warning Event), and the product restores what it owns; an
// Adopted controller is only reported. No pod of the redis-operator runs: kube-controller-manager and
// kwok run its Deployment's pods, and scale them down and up, as for any Deployment; the test plays the
// Redis StatefulSet the operator would create (test/support/redis.ts).
describe("a capability whose controller stops serving", () => {
  const suite = capabilitySuite({ capabilities: [REDIS_OPERATOR] });
  const { namespaces } = suite;
  let client: KubeClient;
  let helm: HelmCli;
  let context: ReconcileContext;
  let operator: NaviqueOperator | undefined;
  const reports: string[] = [];
  beforeAll(() => {
    ({ client, helm, context } = suite);
  });
  afterEach(async () => {
    await operator?.stop();
    operator = undefined;
  });

  /**
   * The operator in process with a resync far beyond the test's length: whatever it does after its first
   * passes, a watch event started it (a resource not Ready is looked at again every 300 ms, as always).
   */
  const startOperator = async () => {
    operator = inProcessOperator(client, helm, { resyncMs: 3_600_000, report: (line) => reports.push(line) });
    await operator.start();
  };
  const ready = async (ns: string) => {
    const at = condition(await readStoredResource(client, "RedisInstance", ns, "cache"), "Ready");
    return at ? { status: at.status, reason: at.reason, message: at.message } : undefined;
  };
  const becomesReady = (ns: string, what: string) =>
    eventually(what, async () => {
      await playRedisOperator(client, ns, "cache");
      const now = await ready(ns);
      if (now?.status !== "True") throw new Error(`Ready is ${now?.status} (${now?.reason}): ${now?.message}`);
      return true;
    });
  const scaleController = (replicas: number) =>
    client.apps.patchNamespacedDeployment({
      name: CONTROLLER,
      namespace: RELEASE_NAMESPACE,
      body: [{ op: "replace", path: "/spec/replicas", value: replicas }],
    });
  const controller = () => client.apps.readNamespacedDeployment({ name: CONTROLLER, namespace: RELEASE_NAMESPACE });
  const outageEvents = async (ns: string) =>
    (await recordedEvents(client, ns)).filter((e) => e.reason === "OperatorUnavailable" && e.type === "Warning");

  it("Owned: scaled to 0, the RedisInstance says so at once and its replicas are restored; uninstalled by hand, it says so while the release is installed again", async () => {
    const ns = await namespaces.create("outage-owned");
    await createResource(client, "RedisInstance", ns, "cache", {});
    await startOperator();
    try {
      await becomesReady(ns, "the operator to install the redis-operator and make RedisInstance cache Ready");
      const revisions = (await releaseRecords(client, RELEASE_NAMESPACE, RELEASE)).length;

      // WHEN the controller is scaled to 0 by hand.
      await scaleController(0);
      const lost = await eventually("Ready False naming the redis-operator and its Deployment", async () => {
        const now = await ready(ns);
        return now?.status === "False" && now.message.includes(CONTROLLER_LABEL) ? now : undefined;
      });
      expect(lost.reason).toBe("OperatorUnavailable");
      expect(lost.message).toMatch(/^redis-operator: /);
      // THEN the product re-applies its release: the replicas are back, served, and the resource Ready.
      await eventually("the controller's replica restored and available", async () => {
        const now = await controller();
        return now.spec?.replicas === 1 && now.status?.availableReplicas === 1 ? true : undefined;
      });
      await becomesReady(ns, "RedisInstance cache to be Ready again");
      const records = await releaseRecords(client, RELEASE_NAMESPACE, RELEASE);
      expect(records.length).toBe(revisions + 1);
      for (const record of records) expect(record.metadata?.labels).toMatchObject(OWNERSHIP_MARKS);
      // One Warning, from the pass that saw the controller scaled to 0: it restored the release.
      const restoring = new RegExp(
        `^redis-operator: (${CONTROLLER_LABEL} has no available replica \\(scaled to 0\\); )?restore redis-operator: ${CONTROLLER_LABEL} scaled to 0 of the 1 replica its release declares; re-applying release ${RELEASE_NAMESPACE}/${RELEASE} ${REDIS_OPERATOR.chart.version} with the product's values \\(release `,
      );
      const scaledDown = (await outageEvents(ns)).map((e) => e.note ?? "");
      expect(scaledDown).toHaveLength(1);
      expect(scaledDown[0]).toMatch(restoring);
      const events = await recordedEvents(client, ns);
      expect(events.filter((e) => e.reason === "CapabilityRestored").map((e) => e.note)).toEqual([
        `restored redis-operator: re-applied release ${RELEASE_NAMESPACE}/${RELEASE} ${REDIS_OPERATOR.chart.version} with the product's values`,
      ]);

      // WHEN the release is uninstalled by hand: said before it is installed again, not once it is back.
      await helm.uninstall(RELEASE, RELEASE_NAMESPACE);
      const gone = await eventually(
        "Ready False while the redis-operator is installed again",
        async () => {
          const now = await ready(ns);
          return now?.status === "False" ? now : undefined;
        },
        { intervalMs: 50 },
      );
      // What it says depends on where helm's uninstall was: the release uninstalling, or gone.
      expect(gone.reason).toBe("OperatorUnavailable");
      expect(gone.message).toMatch(/^redis-operator: /);
      expect(gone.message).toContain(`${RELEASE_NAMESPACE}/${RELEASE}`);
      await becomesReady(ns, "RedisInstance cache to be Ready with the redis-operator installed again");
      expect((await releaseRecords(client, RELEASE_NAMESPACE, RELEASE))[0]?.metadata?.labels).toMatchObject(
        OWNERSHIP_MARKS,
      );
      // One Event per outage.
      const both = (await outageEvents(ns)).map((e) => e.note ?? "");
      expect(both).toHaveLength(2);
      expect(both).toContain(scaledDown[0]);
    } finally {
      await operator?.stop();
      await finalizeResources(context, "RedisInstance", ns);
    }
  }, 300_000);

  it("Adopted: scaled to 0, the RedisInstance says so and nothing is restored", async () => {
    // The redis-operator installed by someone else: a release of the expected name without the marks.
    await helm.uninstall(RELEASE, RELEASE_NAMESPACE, { wait: true });
    await helm.install(RELEASE, join(FIXTURE_CHARTS, REDIS_OPERATOR.chart.name), {
      namespace: RELEASE_NAMESPACE,
      createNamespace: true,
      wait: false,
    });
    const ns = await namespaces.create("outage-adopted");
    await createResource(client, "RedisInstance", ns, "cache", {});
    await startOperator();
    try {
      await becomesReady(ns, "RedisInstance cache to be Ready on the adopted redis-operator");
      await scaleController(0);
      const lost = await eventually("Ready False naming the adopted controller", async () => {
        const now = await ready(ns);
        return now?.status === "False" ? now : undefined;
      });
      expect(lost).toEqual({
        status: "False",
        reason: "OperatorUnavailable",
        message: `redis-operator: ${CONTROLLER_LABEL} has no available replica (scaled to 0); adopted: the product leaves it to whoever installed it`,
      });
      expect((await outageEvents(ns)).map((e) => e.note)).toEqual([lost.message]);
      // Passes go on (it is looked at again every 300 ms while not Ready): none touches the release.
      const passes = () => reports.filter((line) => line.startsWith(`[${ns}/cache]`)).length;
      const seen = passes();
      await eventually("three more passes over RedisInstance cache", async () =>
        passes() >= seen + 3 ? true : undefined,
      );
      expect((await controller()).spec?.replicas).toBe(0);
      const records = await releaseRecords(client, RELEASE_NAMESPACE, RELEASE);
      expect(records.map((r) => r.metadata?.labels?.version)).toEqual(["1"]);
      expect(await ready(ns)).toEqual(lost);
    } finally {
      await operator?.stop();
      await finalizeResources(context, "RedisInstance", ns);
    }
  }, 300_000);
});
