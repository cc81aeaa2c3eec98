import type { ChildProcess } from "node:child_process";
import { CERT_MANAGER } from "../../lib/catalog/cert-manager.js";
import { CLOUDNATIVE_PG } from "../../lib/catalog/cloudnative-pg.js";
import { REDIS_OPERATOR } from "../../lib/catalog/redis-operator.js";
import type { HelmCli } from "../../lib/cluster/helm-cli.js";
import type { KubeClient } from "../../lib/cluster/kube-client.js";
import {
  CAPABILITY_SUITE_SETUP_MS,
  lockCapabilities,
  resetCapabilities,
  testClient,
  testHelm,
} from "../support/capabilities.js";
import { condition, createTestNamespace, eventually } from "../support/cluster.js";
import {
  DRIFT_POSTGRES,
  DRIFT_REDIS,
  type DriftCase,
  emittedObjectCases,
  playControllers,
  releaseUninstalled,
  timeToCorrect,
} from "../support/drift.js";
import { naviqueCrdsServed } from "../support/failing-step.js";
import { discardNamespace } from "../support/namespace-content.js";
import { startOperatorProcess, stopOperatorProcess } from "../support/operator-process.js";
import { createResource, readStoredResource } from "../support/resources.js";

/** The operator's default resync (OperatorOptions.resyncMs): what is corrected before it was corrected by a watch. */
const DEFAULT_RESYNC_MS = 30_000;
/** Well before the resync: a correction left to the resync misses it, but for a resync falling in this window by chance. */
const CORRECTED_WITHIN_MS = 5_000;
/**
 * A release's reinstall starts (its first record) only after the installer's checks: every object the chart
 * renders dry-run server-side first (ADR 0011), ~5 s for cloudnative-pg on a busy machine. Still well before
 * the resync: left to it, the reinstall would start 0–30 s plus those checks after the uninstall.
 */
const REINSTALL_STARTED_WITHIN_MS = 12_000;
const CAPABILITIES = [CERT_MANAGER, CLOUDNATIVE_PG, REDIS_OPERATOR];

// Drift of everything the product emits, corrected by the operator's watches at its DEFAULT resync (30 s):
// `navique operator` in its own process, as users run it. CloudNativePG and the redis-operator cannot run
// here: the test plays them (playControllers), writing the Cluster status CNPG writes and creating the
// StatefulSet the redis-operator creates. Each emitted object must be put back within 5 s of the
// disturbance, a release's reinstall start within 12 s; were a kind or the releases not watched, the
// correction would wait for the resync — up to 30 s, in time only when a resync happens to fall in the window.
describe("the operator corrects drift at its default resync", () => {
  let client: KubeClient;
  let helm: HelmCli;
  let unlock: (() => Promise<void>) | undefined;
  let operator: ChildProcess | undefined;
  let output: () => string = () => "";
  let stopPlaying: (() => void) | undefined;
  let ns = "";

  const ready = async (kind: string, name: string) =>
    condition(await readStoredResource(client, kind, ns, name), "Ready")?.status === "True" ? true : undefined;
  const bothReady = () =>
    eventually(
      "the PostgresCluster and the RedisInstance to be Ready",
      async () =>
        ((await ready("PostgresCluster", DRIFT_POSTGRES)) && (await ready("RedisInstance", DRIFT_REDIS))) || undefined,
      { timeoutMs: 120_000 },
    );

  beforeAll(async () => {
    client = testClient();
    helm = await testHelm();
    unlock = await lockCapabilities();
    await naviqueCrdsServed(client);
    await resetCapabilities(client, helm, CAPABILITIES, { crds: false });
    ns = (await createTestNamespace("drift")).name;
    const started = startOperatorProcess();
    operator = started.process;
    output = started.output;
    stopPlaying = playControllers(client, ns);
    await createResource(client, "PostgresCluster", ns, DRIFT_POSTGRES, {
      databases: [{ name: "app1" }],
      managed: { deletionPolicy: "Delete" },
    });
    await createResource(client, "RedisInstance", ns, DRIFT_REDIS, { managed: { deletionPolicy: "Delete" } });
    await bothReady();
  }, CAPABILITY_SUITE_SETUP_MS);

  afterAll(async () => {
    if (!unlock) return;
    try {
      stopPlaying?.();
      if (operator) {
        expect(await stopOperatorProcess(operator)).toBe(0);
        expect(output()).toContain("[operator] stopped");
      }
      // Finalizes the resources left (in this process: the operator is stopped), then empties the namespace.
      if (helm) await resetCapabilities(client, helm, CAPABILITIES, { crds: false });
      if (ns) await discardNamespace(client, ns);
    } finally {
      await unlock();
    }
  });

  const corrects = async (drift: DriftCase, withinMs: number) => {
    const disturbed = await drift.disturb();
    // Waited for past the resync: a failure says how late the correction came, or that it never did.
    const took = await timeToCorrect(disturbed, { timeoutMs: DEFAULT_RESYNC_MS * 2, intervalMs: 100 });
    if (took === undefined) throw new Error(`${drift.name}: not corrected within ${(DEFAULT_RESYNC_MS * 2) / 1000} s`);
    expect(took).toBeLessThan(withinMs);
    await bothReady();
  };

  it.each(["CNPG Cluster edited", "CNPG Cluster deleted", "CNPG Database edited", "CNPG Database deleted"])(
    "puts back the %s within 5 s",
    async (name) => {
      const drift = emittedObjectCases(client, ns).find((c) => c.name === name);
      if (!drift) throw new Error(`no drift case ${name}`);
      await corrects(drift, CORRECTED_WITHIN_MS);
    },
  );

  it("re-creates a generated Secret deleted by hand within 5 s, with a new password and a Warning", async () => {
    const drift = emittedObjectCases(client, ns).find((c) => c.name === "generated Secret deleted");
    if (!drift) throw new Error("no drift case for the generated Secret");
    await corrects(drift, CORRECTED_WITHIN_MS);
    // The Event is recorded after the pass's writes: the Secret can be read back a moment before it.
    const rotated = await eventually(
      `a CredentialsRotated Event on PostgresCluster ${ns}/${DRIFT_POSTGRES}`,
      async () => {
        const events = await client.events.listNamespacedEvent({ namespace: ns });
        return events.items.find((e) => e.reason === "CredentialsRotated" && e.regarding?.name === DRIFT_POSTGRES);
      },
      { timeoutMs: CORRECTED_WITHIN_MS },
    );
    expect(rotated.type).toBe("Warning");
  });

  it.each(["Redis edited", "Redis deleted"])("puts back the %s within 5 s", async (name) => {
    const drift = emittedObjectCases(client, ns).find((c) => c.name === name);
    if (!drift) throw new Error(`no drift case ${name}`);
    await corrects(drift, CORRECTED_WITHIN_MS);
  });

  it.each([
    ["cloudnative-pg", CLOUDNATIVE_PG],
    ["redis-operator", REDIS_OPERATOR],
    // A prerequisite: needed by the PostgresCluster through cloudnative-pg, not named by its spec.
    ["cert-manager", CERT_MANAGER],
  ] as const)("starts reinstalling the %s release uninstalled by hand within 12 s", async (_name, entry) => {
    const disturbed = await releaseUninstalled(client, helm, entry).disturb();
    const started = disturbed.started ?? disturbed.corrected;
    const took = await timeToCorrect(
      { at: disturbed.at, corrected: started },
      { timeoutMs: DEFAULT_RESYNC_MS * 2, intervalMs: 100 },
    );
    if (took === undefined)
      throw new Error(`${entry.name}: not reinstalled within ${(DEFAULT_RESYNC_MS * 2) / 1000} s`);
    expect(took).toBeLessThan(REINSTALL_STARTED_WITHIN_MS);
    // Then deployed — one record, the reinstall's, once its install has finished —, and the resources
    // needing it Ready again.
    const statuses = async () =>
      (
        await client.core.listNamespacedSecret({
          namespace: entry.release.namespace,
          labelSelector: `owner=helm,name=${entry.release.name}`,
        })
      ).items.map((r) => r.metadata?.labels?.status);
    await eventually(
      `${entry.name}'s reinstall to be deployed`,
      async () => ((await statuses()).some((status) => status?.startsWith("pending")) ? undefined : true),
      { timeoutMs: 120_000 },
    );
    expect(await statuses()).toEqual(["deployed"]);
    await bothReady();
  });
});
