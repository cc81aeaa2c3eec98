import { gzipSync } from "node:zlib";
import { OWNERSHIP_MARKS } from "../../lib/api/group.js";
import { observeCapability } from "../../lib/capabilities/observe.js";
import { detectProvenance } from "../../lib/capabilities/provenance.js";
import { CapabilityEntry } from "../../lib/catalog/capability.js";
import { CLOUDNATIVE_PG } from "../../lib/catalog/cloudnative-pg.js";
import type { KubeClient } from "../../lib/cluster/kube-client.js";
import { testClient } from "../support/capabilities.js";
import { createTestNamespace } from "../support/cluster.js";
import { discardNamespace } from "../support/namespace-content.js";

const RELEASE = "detected-cnpg";

/** A release record shaped as helm v4 stores one (type, labels, base64(gzip(JSON)) under `release`). */
async function storeRevision(
  client: KubeClient,
  namespace: string,
  revision: number,
  status: string,
  release: string,
): Promise<void> {
  await client.core.createNamespacedSecret({
    namespace,
    body: {
      metadata: {
        name: `sh.helm.release.v1.${RELEASE}.v${revision}`,
        labels: { owner: "helm", name: RELEASE, status, version: String(revision), ...OWNERSHIP_MARKS },
      },
      type: "helm.sh/release.v1",
      stringData: { release },
    },
  });
}

function encode(namespace: string, revision: number, deployment: string): string {
  const manifest = [
    "---\n# Source: cnpg/templates/crds.yaml\napiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: widgets.example.com\nspec:\n  names:\n    kind: Deployment\n",
    `---\n# Source: cnpg/templates/deployment.yaml\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: ${deployment}\n`,
  ].join("");
  const payload = {
    name: RELEASE,
    namespace,
    version: revision,
    info: { status: "deployed" },
    chart: { metadata: { name: "cloudnative-pg", version: "0.29.0", appVersion: "1.30.0" } },
    manifest,
  };
  return gzipSync(JSON.stringify(payload)).toString("base64");
}

// Detection reads the latest revision only (issue 8 item 9): chosen by the labels helm puts on release
// Secrets, from a metadata-only list, fetched and decoded once per resourceVersion. Synthetic records
// under a release of the test's own namespace, so no capability lock is needed.
describe("detection of a release with many revisions", () => {
  let client: KubeClient;
  let namespace: string;
  let entry: CapabilityEntry;

  beforeAll(async () => {
    client = testClient();
    namespace = (await createTestNamespace("release-detection")).name;
    entry = CapabilityEntry.parse({ ...CLOUDNATIVE_PG, name: "detected-cnpg", release: { name: RELEASE, namespace } });
  });
  afterAll(async () => {
    await discardNamespace(client, namespace);
  });

  it("finds no release when there is no record", async () => {
    const observation = await observeCapability(client, entry);
    expect(observation.release).toBeUndefined();
    expect(detectProvenance(entry, observation).state).toBe("Absent");
  });

  it("decodes only the latest revision, and only once while it is unchanged", async () => {
    // Older revisions whose payloads cannot even be decoded: detection must never need them.
    await storeRevision(client, namespace, 1, "superseded", "not base64 gzip json");
    await storeRevision(client, namespace, 2, "superseded", Buffer.from("not gzip").toString("base64"));
    await storeRevision(client, namespace, 3, "deployed", encode(namespace, 3, "cnpg-controller"));

    const first = client.requests;
    const observation = await observeCapability(client, entry);
    const firstCost = client.requests - first;
    expect(observation.release).toMatchObject({ revision: 3, status: "deployed", chart: { version: "0.29.0" } });
    // Only top-level kinds count: the CRD that names a Deployment kind inside its spec is not a workload.
    expect(observation.release?.workloads).toEqual([{ kind: "Deployment", name: "cnpg-controller", namespace }]);
    expect(detectProvenance(entry, observation).state).toBe("Owned");

    // Unchanged: the metadata-only list proves it, and the Secret is not fetched again.
    const second = client.requests;
    await observeCapability(client, entry);
    expect(client.requests - second).toBe(firstCost - 1);

    // A new revision is fetched and decoded.
    await client.core.patchNamespacedSecret({
      name: `sh.helm.release.v1.${RELEASE}.v3`,
      namespace,
      body: [{ op: "replace", path: "/metadata/labels/status", value: "superseded" }],
    });
    await storeRevision(client, namespace, 4, "deployed", encode(namespace, 4, "cnpg-controller-v2"));
    const upgraded = await observeCapability(client, entry);
    expect(upgraded.release).toMatchObject({ revision: 4, status: "deployed" });
    expect(upgraded.release?.workloads.map((w) => w.name)).toEqual(["cnpg-controller-v2"]);
  });
});
