import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildApp } from "../../examples/cdk8s/app.js";
import { CapabilityInstaller } from "../../lib/capabilities/installer.js";
import { CRD_COLLECTION } from "../../lib/cluster/crd-metadata.js";
import type { HelmCli } from "../../lib/cluster/helm-cli.js";
import { readPlanInputs } from "../../lib/engine/plan-inputs.js";
import { planClient, planInputs } from "../../lib/engine/plan-run.js";
import { REGISTRY } from "../../lib/kinds/registry.js";
import { createReconcileContext } from "../../lib/reconcile/context.js";
import { FIXTURE_SOURCE, testHelm } from "../support/capabilities.js";

const KUBECONFIG = process.env.NAVIQUE_TEST_KUBECONFIG ?? "";

/**
 * A plan run's client (as `navique plan` makes it), with every request it sends recorded as `METHOD path`,
 * and with what it accepted (a whole object, its metadata…): the same path read as two things is two reads.
 */
function recordedPlanClient() {
  const sent: string[] = [];
  const reads: string[] = [];
  const client = planClient(KUBECONFIG, (method, path, accept) => {
    sent.push(`${method} ${path}`);
    reads.push(`${method} ${path} (${accept})`);
  });
  return { client, sent, reads };
}

/** What was sent more than once. */
const twice = (requests: readonly string[]) => requests.filter((request, index) => requests.indexOf(request) !== index);

const isCrdRead = (request: string) => request.startsWith(`GET ${CRD_COLLECTION}`);

// `navique plan` judges every resource against one reading of the cluster (issue 31): each thing it reads
// is read once per run, however many resources or capabilities look at it. Read-only: the shared plane is
// left as found, whatever capabilities other suites have installed there.
describe("navique plan reads the cluster once per run", () => {
  let helm: HelmCli;
  let work: string;

  beforeAll(async () => {
    helm = await testHelm();
    work = await mkdtemp(join(tmpdir(), "navique-plan-reads-"));
  });
  afterAll(async () => {
    await rm(work, { recursive: true, force: true });
  });

  it("plans the example platform sending each request once: discovery once, the CRDs at most once, no write", async () => {
    // GIVEN the example platform, synthesized as a user's CI job synthesizes it
    buildApp(work).synth();
    const inputs = await readPlanInputs([join(work, "navique-example.yaml")], REGISTRY);
    expect(inputs.problems).toEqual([]);
    expect(inputs.resources.length).toBeGreaterThan(5);

    // WHEN it is planned through a plan run's client
    const { client, sent, reads } = recordedPlanClient();
    const context = createReconcileContext({ client, helm, source: FIXTURE_SOURCE });
    const run = await planInputs(context, REGISTRY, inputs);

    // THEN every resource was judged, and nothing was read twice
    expect(run.resources).toHaveLength(inputs.resources.length);
    expect(twice(reads)).toEqual([]);
    // discovery as a whole, one document per root (/api, /apis), once (a kind missing from it, as another
    // suite's CRD comes or goes, is looked up in its version's resource list)
    expect(sent.filter((request) => request === "GET /api" || request === "GET /apis").sort()).toEqual([
      "GET /api",
      "GET /apis",
    ]);
    // the CRDs, whatever the charts of the capabilities it would install render, in one list at most
    expect(sent.filter(isCrdRead).length).toBeLessThanOrEqual(1);
    expect(sent.filter((request) => !request.startsWith("GET "))).toEqual([]);
    expect(client.writes).toBe(0);
    // and the client counts what it sent, not what it served again
    expect(client.requests).toBe(sent.length);
  });

  it("reads the CRDs of every chart it foresees an install of in one list, never one by one", async () => {
    // GIVEN a plan run's client, and three capabilities whose fixture charts render CRDs (25, 11 and 2)
    const { client, sent, reads } = recordedPlanClient();
    const installer = new CapabilityInstaller({ client, helm, source: FIXTURE_SOURCE });

    // WHEN the run foresees whether installing each would collide with what exists (as it does for every
    // capability it would install or upgrade)
    const foresights = await Promise.all(
      ["external-secrets", "cloudnative-pg", "clickhouse-operator"].map((name) => installer.foreseeConflict(name)),
    );

    // THEN each was checked, and the CRDs were read once, as one metadata list
    expect(foresights.map((f) => f.unchecked)).toEqual([undefined, undefined, undefined]);
    expect(sent.filter(isCrdRead)).toEqual([`GET ${CRD_COLLECTION}`]);
    expect(twice(reads)).toEqual([]);
  });
});
