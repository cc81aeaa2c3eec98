import type { ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseAllDocuments } from "yaml";
import { buildApp } from "../../examples/cdk8s/app.js";
import { CERT_MANAGER } from "../../lib/catalog/cert-manager.js";
import { CLOUDNATIVE_PG } from "../../lib/catalog/cloudnative-pg.js";
import type { HelmCli } from "../../lib/cluster/helm-cli.js";
import type { KubeClient } from "../../lib/cluster/kube-client.js";
import { run, runUnchecked } from "../../lib/cluster/process.js";
import { pulumiEnvironment } from "../../lib/local-plane/pulumi-environment.js";
import {
  CAPABILITY_SUITE_SETUP_MS,
  FIXTURE_CHARTS,
  lockCapabilities,
  resetCapabilities,
  testClient,
  testHelm,
} from "../support/capabilities.js";
import { eventually } from "../support/cluster.js";
import { playExampleCnpg, prepareExampleCluster, removeExampleNamespaces } from "../support/example-cluster.js";
import { startOperatorProcess, stopOperatorProcess } from "../support/operator-process.js";
import { readPostgresCluster } from "../support/postgres.js";
import { TYPESCRIPT_SOURCES_ENV } from "../support/typescript-sources.js";

const TSX = join(process.cwd(), "node_modules", ".bin", "tsx");
const CLI = join(process.cwd(), "lib", "cli", "main.ts");
const DECISION = /^\s*(PostgresCluster \S+: .*)$/;

/** The decision lines of an output: `PostgresCluster <ns>/<name>: …`, trimmed, in order. */
function decisionLines(output: string): string[] {
  return output.split("\n").flatMap((line) => {
    const match = DECISION.exec(line);
    return match?.[1] ? [match[1].trim()] : [];
  });
}

// One cluster state, three front ends: `pulumi preview` of examples/pulumi, `navique plan` on the cdk8s
// synth of examples/cdk8s (the same two PostgresClusters), and the operator reconciling the synthesized
// resources. They must report the same decisions, because one function makes them.
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
    await resetCapabilities(client, helm, [CLOUDNATIVE_PG, CERT_MANAGER], { crds: false });
    await prepareExampleCluster(client, helm);
    stopPlaying = playExampleCnpg(client);
    work = await mkdtemp(join(tmpdir(), "navique-agree-"));
  }, CAPABILITY_SUITE_SETUP_MS);

  afterAll(async () => {
    try {
      stopPlaying?.();
      if (operator) await stopOperatorProcess(operator);
      if (client && helm) {
        await removeExampleNamespaces(client, helm);
        await resetCapabilities(client, helm, [CLOUDNATIVE_PG, CERT_MANAGER], { crds: false });
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
    expect(plan.length).toBeGreaterThanOrEqual(8);
    expect([...preview].sort()).toEqual([...plan].sort());

    // The operator, given the synthesized resources, decides the same: its first status names the same
    // capability decisions (it writes them in OperatorsReady before acting on them).
    operator = startOperatorProcess().process;
    for (const document of parseAllDocuments(readFileSync(synthesized, "utf8"))) {
      const object = document.toJS() as {
        kind: string;
        apiVersion: string;
        metadata: { name: string; namespace?: string };
      };
      if (object.kind === "Namespace" || object.kind === "PostgresCluster")
        await client.apply(object, { fieldManager: "argocd-controller" });
    }
    const operatorsReady = await eventually("the operator's first status of platform-db", async () => {
      const resource = await readPostgresCluster(client, "navique-example-platform", "platform-db");
      return resource?.status?.conditions.find((c) => c.type === "OperatorsReady");
    });
    const capabilityDecisions = plan
      .filter((line) => line.startsWith("PostgresCluster navique-example-platform/platform-db: capability "))
      .map((line) => line.replace(/^PostgresCluster \S+: capability ([a-z-]+): /, "$1: "));
    expect(capabilityDecisions).toHaveLength(2);
    expect(operatorsReady.message).toBe(capabilityDecisions.join("; "));
  });
});
