import type { ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Watch } from "@kubernetes/client-node";
import { parseAllDocuments } from "yaml";
import { buildApp } from "../../examples/cdk8s/app.js";
import type { Condition } from "../../lib/api/conditions.js";
import { API_GROUP, API_VERSION, FINALIZER } from "../../lib/api/group.js";
import { capabilityLockName } from "../../lib/capabilities/installer.js";
import { withLeaseLock } from "../../lib/capabilities/lease-lock.js";
import { CERT_MANAGER } from "../../lib/catalog/cert-manager.js";
import type { HelmCli } from "../../lib/cluster/helm-cli.js";
import type { KubeClient } from "../../lib/cluster/kube-client.js";
import { run, runUnchecked } from "../../lib/cluster/process.js";
import { REGISTRY } from "../../lib/kinds/registry.js";
import { pulumiEnvironment } from "../../lib/local-plane/pulumi-environment.js";
import {
  CAPABILITY_SUITE_SETUP_MS,
  FIXTURE_CHARTS,
  lockCapabilities,
  resetCapabilities,
  testClient,
  testHelm,
} from "../support/capabilities.js";
import { eventually, testKubeConfig } from "../support/cluster.js";
import {
  EXAMPLE_APPLICATIONS,
  EXAMPLE_CAPABILITIES,
  EXAMPLE_DATASTORES,
  exampleDatastore,
  playExampleControllers,
  prepareExampleCluster,
  removeExampleNamespaces,
} from "../support/example-cluster.js";
import { startOperatorProcess, stopOperatorProcess } from "../support/operator-process.js";
import { readStoredResource } from "../support/resources.js";
import { outputContains } from "../support/two-operators.js";
import { TYPESCRIPT_SOURCES_ENV } from "../support/typescript-sources.js";

const TSX = join(process.cwd(), "node_modules", ".bin", "tsx");
const CLI = join(process.cwd(), "lib", "cli", "main.ts");
const KINDS = REGISTRY.kinds.map((module) => module.definition.kind);
const DECISION = new RegExp(`^\\s*((?:${KINDS.join("|")}) \\S+: .*)$`);

/** The decision lines of an output: `<Kind> <ns>/<name>: …`, trimmed, in order. */
function decisionLines(output: string): string[] {
  return output.split("\n").flatMap((line) => {
    const match = DECISION.exec(line);
    return match?.[1] ? [match[1].trim()] : [];
  });
}

/** `<Kind> <namespace>/<name>` of a stored resource: how its decision lines begin. */
type Labelled = { kind?: string; metadata?: { namespace?: string; name?: string } };
const labelOf = (object: Labelled) => `${object.kind} ${object.metadata?.namespace}/${object.metadata?.name}`;

/**
 * Records the first OperatorsReady message each resource of the datastores' kinds gets, from a watch of
 * every write: a later pass may write another before a poll could read the first.
 */
async function firstOperatorsReady(): Promise<{ readonly seen: Map<string, string>; readonly stop: () => void }> {
  const watch = new Watch(testKubeConfig());
  const seen = new Map<string, string>();
  const plurals = REGISTRY.kinds
    .filter((module) => EXAMPLE_DATASTORES.some((d) => d.startsWith(`${module.definition.kind} `)))
    .map((module) => module.definition.plural);
  const requests = await Promise.all(
    plurals.map((plural) =>
      watch.watch(
        `/apis/${API_GROUP}/${API_VERSION}/${plural}`,
        {},
        (_type, object: Labelled & { status?: { conditions?: Condition[] } }) => {
          const message = object.status?.conditions?.find((c) => c.type === "OperatorsReady")?.message;
          if (message !== undefined && !seen.has(labelOf(object))) seen.set(labelOf(object), message);
        },
        () => undefined,
      ),
    ),
  );
  return {
    seen,
    stop: () => {
      for (const request of requests) request.abort();
    },
  };
}

// One cluster state, three front ends: `pulumi preview` of examples/pulumi, `navique plan` on the cdk8s
// synth of examples/cdk8s (the same datastores), and the operator reconciling the synthesized resources.
// They must report the same decisions, because one function makes them. No pod runs here: the test plays
// the datastores' controllers (test/support/example-cluster.ts).
describe("preview, synth-time plan and the operator agree", () => {
  let client: KubeClient;
  let helm: HelmCli;
  let unlock: () => Promise<void>;
  let work: string;
  let stopPlaying: (() => void) | undefined;
  let operator: ChildProcess | undefined;

  beforeAll(async () => {
    unlock = await lockCapabilities();
    client = testClient();
    helm = await testHelm();
    await resetCapabilities(client, helm, EXAMPLE_CAPABILITIES, { crds: false });
    await prepareExampleCluster(client, helm);
    stopPlaying = playExampleControllers(client);
    work = await mkdtemp(join(tmpdir(), "navique-agree-"));
  }, CAPABILITY_SUITE_SETUP_MS);

  afterAll(async () => {
    try {
      stopPlaying?.();
      if (operator) await stopOperatorProcess(operator);
      if (client && helm) {
        await removeExampleNamespaces(client, helm);
        await resetCapabilities(client, helm, EXAMPLE_CAPABILITIES, { crds: false });
      }
      if (work) await rm(work, { recursive: true, force: true });
    } finally {
      await unlock?.();
    }
  }, CAPABILITY_SUITE_SETUP_MS);

  it("reports the same capability and datastore decisions from all three", async () => {
    const environment = await pulumiEnvironment({ stateDir: join(work, "state"), passphrase: "agree" });
    const env = {
      ...environment.env,
      KUBECONFIG: process.env.NAVIQUE_TEST_KUBECONFIG,
      NAVIQUE_CHART_SOURCE: `dir:${FIXTURE_CHARTS}`,
      ...TYPESCRIPT_SOURCES_ENV,
    };
    const example = join(process.cwd(), "examples", "pulumi");
    await run("pulumi", ["stack", "init", "agree", "--non-interactive"], { cwd: example, env });
    const preview = decisionLines(
      (await run("pulumi", ["preview", "--non-interactive"], { cwd: example, env })).stdout,
    );

    buildApp(join(work, "synth")).synth();
    const synthesized = join(work, "synth", "navique-example.yaml");
    const planned = await runUnchecked(TSX, [
      CLI,
      "plan",
      "-f",
      synthesized,
      "--kubeconfig",
      process.env.NAVIQUE_TEST_KUBECONFIG ?? "",
      "--chart-source",
      `dir:${FIXTURE_CHARTS}`,
    ]);
    // Changes planned, none refused: exit 2 (docs/plan.md).
    expect(planned.code).toBe(2);
    const plan = decisionLines(planned.stdout);
    // Every datastore and application of the example is planned for.
    expect(
      [...EXAMPLE_DATASTORES, ...EXAMPLE_APPLICATIONS].filter((d) => !plan.some((line) => line.startsWith(`${d}: `))),
    ).toEqual([]);
    expect([...preview].sort()).toEqual([...plan].sort());

    // The operator, given the synthesized resources, decides the same: the first status of each names the
    // same capability decisions (it writes them in OperatorsReady before acting on them). cert-manager is
    // needed by two of them: the test holds its install lock, as another process installing it would,
    // until both have begun their first pass — each then decides on the cluster the plan saw, not on a
    // cert-manager the other has installed meanwhile.
    const first = await firstOperatorsReady();
    let letGo: () => void = () => undefined;
    let holding: Promise<void> = Promise.resolve();
    await new Promise<void>((locked) => {
      holding = withLeaseLock(
        client,
        capabilityLockName(CERT_MANAGER.name),
        () => {
          locked();
          return new Promise<void>((resolve) => (letGo = resolve));
        },
        { holder: "decisions-agree-test" },
      );
    });
    try {
      const started = startOperatorProcess();
      operator = started.process;
      for (const document of parseAllDocuments(readFileSync(synthesized, "utf8"))) {
        const object = document.toJS() as {
          kind: string;
          apiVersion: string;
          metadata: { name: string; namespace?: string };
        };
        if (object.kind === "Namespace" || KINDS.includes(object.kind))
          await client.apply(object, { fieldManager: "argocd-controller" });
      }
      const needingCertManager = [
        "PostgresCluster navique-example-platform/platform-db",
        "ClickHouseCluster navique-example-platform/langfuse-clickhouse",
      ].map(exampleDatastore);
      await outputContains(operator, started.output, "[cert-manager] waiting for decisions-agree-test");
      await eventually(
        "both consumers of cert-manager in their first pass (the finalizer it begins with)",
        async () => {
          const resources = await Promise.all(
            needingCertManager.map(({ kind, namespace, name }) => readStoredResource(client, kind, namespace, name)),
          );
          return resources.every((r) => r?.metadata.finalizers?.includes(FINALIZER)) ? true : undefined;
        },
      );
    } finally {
      letGo();
      await holding;
    }
    try {
      await eventually(
        "every datastore's first status",
        async () => (EXAMPLE_DATASTORES.every((d) => first.seen.has(d)) ? true : undefined),
        { timeoutMs: 180_000 },
      );
    } finally {
      first.stop();
    }
    const capabilityDecisions = (datastore: string) =>
      plan
        .filter((line) => line.startsWith(`${datastore}: capability `))
        .map((line) => line.replace(/^\S+ \S+: capability ([a-z-]+): /, "$1: "));
    const expected = EXAMPLE_DATASTORES.map((datastore) => {
      const decisions = capabilityDecisions(datastore);
      return [datastore, decisions.length > 0 ? decisions.join("; ") : "no capability operator is needed in this mode"];
    });
    expect(EXAMPLE_DATASTORES.map((datastore) => [datastore, first.seen.get(datastore)])).toEqual(expected);
    // Four of them install operators: cert-manager and CloudNativePG, cert-manager and the ClickHouse
    // operator, the redis-operator, the MongoDB controllers.
    expect(expected.filter(([, message]) => message?.includes(": install ")).map(([datastore]) => datastore)).toEqual([
      "PostgresCluster navique-example-platform/platform-db",
      "ClickHouseCluster navique-example-platform/langfuse-clickhouse",
      "RedisInstance navique-example-platform/langfuse-redis",
      "MongoCluster navique-example-apps/librechat-mongo",
    ]);
  });
});
