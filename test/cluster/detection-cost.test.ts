import { randomBytes } from "node:crypto";
import type { V1CustomResourceDefinition } from "@kubernetes/client-node";
import { observeCapability } from "../../lib/capabilities/observe.js";
import { capabilityReadiness, detectProvenance } from "../../lib/capabilities/provenance.js";
import { CapabilityEntry } from "../../lib/catalog/capability.js";
import { CLOUDNATIVE_PG } from "../../lib/catalog/cloudnative-pg.js";
import type { KubeClient } from "../../lib/cluster/kube-client.js";
import {
  CAPABILITY_SUITE_SETUP_MS,
  lockCapabilities,
  resetCapabilities,
  testClient,
  testHelm,
} from "../support/capabilities.js";
import { createTestNamespace, eventually } from "../support/cluster.js";
import { DETECTION_ENTRIES, DETECTION_STATES, type DetectionStateContext } from "../support/detection-states.js";
import { discardNamespace } from "../support/namespace-content.js";

/** The most API requests one capability detection may make, in any state (issue 9, item 5). */
const MOST_REQUESTS = 4;

/**
 * What one detection costs in each state: the release Secrets' metadata and aggregated discovery, then
 * the CRD names (some CRD not served), or the release's Deployments (a release), or the controller
 * search (CRDs and no release: a label-selected list, then one page of every Deployment when no label
 * matched; the plane holds far fewer than the 250 of a page). `first` differs only when the release's
 * latest revision was never decoded in this process: helm installed it just before, and its Secret is
 * read once in full. Our own release was installed, and so decoded, by this process.
 */
const REQUESTS: Readonly<Record<string, { readonly first: number; readonly again: number }>> = {
  "nothing installed": { first: 3, again: 3 },
  "our release": { first: 3, again: 3 },
  "orphaned CRDs (our release uninstalled)": { first: 4, again: 4 },
  "a release of the expected name without our marks": { first: 4, again: 3 },
  "a controller matched by its labels, no release": { first: 3, again: 3 },
  "a controller matched by its image only": { first: 4, again: 4 },
};

async function cost(client: KubeClient, run: () => Promise<unknown>): Promise<number> {
  const before = client.requests;
  await run();
  return client.requests - before;
}

// The request count of one detection is behaviour (it must not grow with the catalog's CRDs or a
// release's workloads); its time is measured in bench/detection.ts, never asserted.
describe("capability detection cost on the local control plane", () => {
  let context: DetectionStateContext;
  let unlock: () => Promise<void>;

  beforeAll(async () => {
    unlock = await lockCapabilities();
    const client = testClient();
    context = { client, helm: await testHelm(), foreignNamespace: (await createTestNamespace("detection-cost")).name };
  }, CAPABILITY_SUITE_SETUP_MS);
  afterAll(async () => {
    if (context) {
      await discardNamespace(context.client, context.foreignNamespace);
      await resetCapabilities(context.client, context.helm, DETECTION_ENTRIES, { crds: false });
    }
    await unlock?.();
  });

  for (const state of DETECTION_STATES) {
    it(`${state.state}, ${state.name}: at most ${MOST_REQUESTS} requests per detection for every catalog entry`, async () => {
      await state.setUp(context);
      for (const entry of DETECTION_ENTRIES) {
        const { client } = context;
        let verdict = "";
        const first = await cost(client, async () => {
          verdict = detectProvenance(entry, await observeCapability(client, entry)).state;
        });
        const again = await cost(client, () => observeCapability(client, entry));
        expect({ entry: entry.name, verdict, first, again }).toEqual({
          entry: entry.name,
          verdict: state.state,
          ...REQUESTS[state.name],
        });
        expect(Math.max(first, again)).toBeLessThanOrEqual(MOST_REQUESTS);
      }
    }, 600_000);
  }
});

function testCrd(group: string, plural: string, kind: string, served: boolean): V1CustomResourceDefinition {
  return {
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      scope: "Namespaced",
      names: { plural, kind },
      versions: [
        {
          name: "v1",
          served,
          storage: true,
          schema: { openAPIV3Schema: { type: "object", x_kubernetes_preserve_unknown_fields: true } },
        },
      ],
    },
  };
}

// CRD states are read from discovery, and from the CRD names when some CRD is not served: every state a
// CRD can be in, under a group and a release of the test's own (no capability lock needed).
describe("CRD states of a detection", () => {
  const group = `detection-${randomBytes(3).toString("hex")}.test.navique.com`;
  const crds = [
    testCrd(group, "widgets", "Widget", true),
    // The same kind as widgets: its names are not accepted, so it never becomes Established.
    testCrd(group, "twins", "Widget", true),
    testCrd(group, "drafts", "Draft", false),
  ];
  let client: KubeClient;
  let namespace: string;

  beforeAll(async () => {
    client = testClient();
    namespace = (await createTestNamespace("detection-crds")).name;
    await client.extensions.createCustomResourceDefinition({ body: crds[0] as V1CustomResourceDefinition });
    await eventually("widgets to be Established", async () => {
      const widgets = await client.extensions.readCustomResourceDefinition({ name: `widgets.${group}` });
      return widgets.status?.conditions?.some((c) => c.type === "Established" && c.status === "True")
        ? true
        : undefined;
    });
    for (const body of crds.slice(1)) await client.extensions.createCustomResourceDefinition({ body });
  });
  afterAll(async () => {
    for (const body of crds)
      await client.extensions
        .deleteCustomResourceDefinition({ name: body.metadata?.name ?? "" })
        .catch(() => undefined);
    await discardNamespace(client, namespace);
  });

  it("tells Established, present but not Established (names refused, no version served) and missing apart", async () => {
    const entry = CapabilityEntry.parse({
      ...CLOUDNATIVE_PG,
      name: "detection-crds",
      release: { name: "detection-crds", namespace },
      crds: { names: [...crds.map((c) => c.metadata?.name ?? ""), `missing.${group}`], shippedAs: "templates" },
    });
    const observed = await eventually("twins to have its names refused", async () => {
      const twins = await client.extensions.readCustomResourceDefinition({ name: `twins.${group}` });
      const refused = twins.status?.conditions?.some((c) => c.type === "NamesAccepted" && c.status === "False");
      if (!refused) return undefined;
      const before = client.requests;
      const observation = await observeCapability(client, entry);
      return { observation, requests: client.requests - before };
    });
    expect(observed.observation.crds).toEqual([
      { name: `widgets.${group}`, exists: true, established: true },
      { name: `twins.${group}`, exists: true, established: false },
      { name: `drafts.${group}`, exists: true, established: false },
      { name: `missing.${group}`, exists: false, established: false },
    ]);
    // The release Secrets' metadata, discovery, and the CRD names: not all exist, so no controller search.
    expect(observed.requests).toBe(3);
    const verdict = detectProvenance(entry, observed.observation);
    expect(verdict.evidence).toBe(`no release ${namespace}/detection-crds; 3/4 CRDs present; no controller`);
    expect(capabilityReadiness(verdict, observed.observation).waitingFor).toEqual([
      `CRD twins.${group} not Established`,
      `CRD drafts.${group} not Established`,
      `CRD missing.${group} missing`,
      "not installed",
    ]);
  });
});

// The controller search of an entry with several label sets (as the redis-operator entry has): the first
// set is one label-selected list, every later set and the images are judged in one list of every
// Deployment, so a detection costs 4 requests whichever identity tells (or none), never one per set.
describe("controller search with several label sets", () => {
  const id = randomBytes(3).toString("hex");
  const group = `search-${id}.test.navique.com`;
  const crd = testCrd(group, "widgets", "Widget", true);
  const FIRST = "test.navique.com/first-identity";
  const SECOND = "test.navique.com/second-identity";
  const IMAGE = `registry.invalid/detection-${id}/controller`;
  let client: KubeClient;
  let namespace: string;
  let entry: CapabilityEntry;

  const deployment = (name: string, labels: Record<string, string>, image: string) =>
    client.apps.createNamespacedDeployment({
      namespace,
      body: {
        metadata: { name, labels },
        spec: {
          selector: { matchLabels: { app: name } },
          template: {
            metadata: { labels: { app: name } },
            spec: { containers: [{ name: "controller", image }] },
          },
        },
      },
    });
  const detect = async () => {
    const before = client.requests;
    const verdict = detectProvenance(entry, await observeCapability(client, entry));
    return { ...verdict, requests: client.requests - before };
  };

  beforeAll(async () => {
    client = testClient();
    namespace = (await createTestNamespace("detection-search")).name;
    entry = CapabilityEntry.parse({
      ...CLOUDNATIVE_PG,
      name: "detection-search",
      release: { name: "detection-search", namespace },
      crds: { names: [crd.metadata?.name ?? ""], shippedAs: "templates" },
      identity: { labels: [{ [FIRST]: id }, { [SECOND]: id }], images: [IMAGE] },
    });
    await client.extensions.createCustomResourceDefinition({ body: crd });
    await eventually("widgets to be served", async () => ((await detect()).requests === 4 ? true : undefined));
  });
  afterAll(async () => {
    await client.extensions.deleteCustomResourceDefinition({ name: crd.metadata?.name ?? "" }).catch(() => undefined);
    await discardNamespace(client, namespace);
  });

  it("judges every later label set and the images in one list, in their order", async () => {
    expect(await detect()).toMatchObject({ state: "Absent", requests: 4 });

    await deployment("by-image", {}, `mirror.example.com/detection-${id}/controller:1`);
    expect(await detect()).toMatchObject({ state: "Adopted", requests: 4 });
    expect((await detect()).evidence).toContain(`controller Deployment ${namespace}/by-image matched by image`);

    // A later label set outranks the images, as each set outranks the next.
    await deployment("by-second", { [SECOND]: id }, "registry.invalid/unrelated:1");
    const second = await detect();
    expect(second).toMatchObject({ state: "Adopted", requests: 4 });
    expect(second.evidence).toContain(`controller Deployment ${namespace}/by-second matched by label ${SECOND}=${id}`);
    expect(second.evidence).not.toContain("more");

    // The first set is found by its own label-selected list, and nothing else is read.
    await deployment("by-first", { [FIRST]: id }, "registry.invalid/unrelated:1");
    const first = await detect();
    expect(first).toMatchObject({ state: "Adopted", requests: 3 });
    expect(first.evidence).toContain(`controller Deployment ${namespace}/by-first matched by label ${FIRST}=${id}`);
  });
});
