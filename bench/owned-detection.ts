/**
 * Detection cost of an Owned capability whose release has a real-sized manifest: API requests and time
 * per detection with 1 and then 10 stored revisions of a ~1 MB manifest (a real cloudnative-pg manifest
 * is ~1.3 MB, almost all CRD schemas), on the local control plane. The release records are synthetic,
 * shaped as helm v4 stores them (Secret type helm.sh/release.v1, labels owner/name/status/version, the
 * `release` key holding base64(gzip(JSON))), under a release name and namespace of the bench's own, so
 * that no capability test running beside it is disturbed. Each count is measured with detection as it
 * was (every revision decoded in full) and as it is (the latest revision, chosen by its labels from a
 * metadata-only list, fetched and decoded once). "first" is the first detection (nothing decoded yet),
 * "ms/detection" the mean of the others. Prints a table; asserts nothing.
 *
 *   npx tsx bench/owned-detection.ts
 */
import { randomBytes } from "node:crypto";
import { performance } from "node:perf_hooks";
import { gunzipSync, gzipSync } from "node:zlib";
import { parseAllDocuments } from "yaml";
import { OWNERSHIP_MARKS } from "../lib/api/group.js";
import { observeCapability } from "../lib/capabilities/observe.js";
import { detectProvenance } from "../lib/capabilities/provenance.js";
import { CapabilityEntry } from "../lib/catalog/capability.js";
import { CLOUDNATIVE_PG } from "../lib/catalog/cloudnative-pg.js";
import { KubeClient } from "../lib/cluster/kube-client.js";
import { LocalControlPlane } from "../lib/local-plane/plane.js";
import { deleteNamespaceAndWait } from "./namespace.js";

const RUNS = 10;
const NAMESPACE = "bench-owned-detection";
const RELEASE = "bench-cnpg";
const MANIFEST_BYTES = 1_000_000;

const ENTRY = CapabilityEntry.parse({
  ...CLOUDNATIVE_PG,
  name: "bench-cnpg",
  release: { name: RELEASE, namespace: NAMESPACE },
});

/** A manifest shaped like an operator chart's: many large CRDs, then the controller Deployment. */
function syntheticManifest(): string {
  const documents: string[] = [];
  let size = 0;
  for (let i = 0; size < MANIFEST_BYTES; i++) {
    // Varied text, so that gzip does not shrink it far below what real schemas compress to.
    const properties = Array.from(
      { length: 40 },
      (_, p) =>
        `              field${p}:\n                type: string\n                description: ${randomBytes(48).toString("base64")}`,
    ).join("\n");
    const crd = `---\n# Source: bench/templates/crds.yaml\napiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: kind${i}.bench.example.com\nspec:\n  group: bench.example.com\n  names:\n    kind: Kind${i}\n    plural: kind${i}\n  scope: Namespaced\n  versions:\n    - name: v1\n      schema:\n        openAPIV3Schema:\n          type: object\n          properties:\n${properties}\n`;
    documents.push(crd);
    size += crd.length;
  }
  documents.push(
    `---\n# Source: bench/templates/deployment.yaml\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: ${RELEASE}\n  namespace: ${NAMESPACE}\nspec:\n  replicas: 1\n`,
  );
  return documents.join("");
}

async function storeRevision(client: KubeClient, revision: number, latest: boolean, manifest: string): Promise<void> {
  const payload = {
    name: RELEASE,
    namespace: NAMESPACE,
    version: revision,
    info: { status: latest ? "deployed" : "superseded" },
    chart: { metadata: { name: "cloudnative-pg", version: ENTRY.chart.version, appVersion: ENTRY.chart.appVersion } },
    manifest,
  };
  await client.core.createNamespacedSecret({
    namespace: NAMESPACE,
    body: {
      metadata: {
        name: `sh.helm.release.v1.${RELEASE}.v${revision}`,
        labels: {
          owner: "helm",
          name: RELEASE,
          status: latest ? "deployed" : "superseded",
          version: String(revision),
          ...OWNERSHIP_MARKS,
        },
      },
      type: "helm.sh/release.v1",
      stringData: { release: gzipSync(JSON.stringify(payload)).toString("base64") },
    },
  });
}

/**
 * Detection as it was before: every stored revision listed with its payload and decoded in full
 * (base64, gunzip, JSON, a YAML parse of the whole manifest), the latest one kept; the same CRD and
 * workload reads as today. Reproduced here so that both run on the same machine at the same moment.
 */
async function observeAsBefore(client: KubeClient): Promise<string> {
  const [secrets] = await Promise.all([
    client.core.listNamespacedSecret({ namespace: NAMESPACE, labelSelector: `owner=helm,name=${RELEASE}` }),
    Promise.all(
      ENTRY.crds.names.map((name) => client.extensions.readCustomResourceDefinition({ name }).catch(() => undefined)),
    ),
  ]);
  let latest = { revision: 0, workloads: [] as string[] };
  for (const secret of secrets.items) {
    const helmEncoded = Buffer.from(secret.data?.release ?? "", "base64").toString("utf8");
    const payload = JSON.parse(gunzipSync(Buffer.from(helmEncoded, "base64")).toString("utf8")) as { manifest: string };
    const workloads = parseAllDocuments(payload.manifest)
      .map((d) => d.toJS() as { kind?: string; metadata?: { name?: string } } | null)
      .filter((o) => o?.kind === "Deployment")
      .map((o) => o?.metadata?.name ?? "");
    const revision = Number(secret.metadata?.labels?.version);
    if (revision > latest.revision) latest = { revision, workloads };
  }
  for (const name of latest.workloads)
    await client.apps.readNamespacedDeployment({ name, namespace: NAMESPACE }).catch(() => undefined);
  return "Owned";
}

async function measure(
  client: KubeClient,
  observe: () => Promise<string>,
): Promise<{ state: string; requests: number; first: number; ms: number }> {
  let requests = 0;
  let elapsed = 0;
  let first = 0;
  let state = "";
  for (let run = 0; run < RUNS; run++) {
    const before = client.requests;
    const started = performance.now();
    state = await observe();
    const took = performance.now() - started;
    if (run === 0) first = took;
    else elapsed += took;
    requests = client.requests - before;
  }
  return { state, requests, first, ms: elapsed / (RUNS - 1) };
}

async function main(): Promise<void> {
  const connection = await new LocalControlPlane().ensureRunning();
  const client = KubeClient.fromFile(connection.kubeconfig);
  await deleteNamespaceAndWait(client, NAMESPACE);
  await client.core.createNamespace({ body: { metadata: { name: NAMESPACE } } });
  const manifest = syntheticManifest();
  const stored = gzipSync(JSON.stringify({ manifest })).toString("base64").length;
  process.stdout.write(
    `manifest ${(manifest.length / 1e6).toFixed(2)} MB, stored as ${(stored / 1e6).toFixed(2)} MB of base64(gzip) per revision; ${RUNS} detections each\n`,
  );
  process.stdout.write(
    `${"revisions".padEnd(11)}${"code".padEnd(8)}${"state".padEnd(8)}${"requests".padStart(9)}${"first ms".padStart(10)}${"ms/detection".padStart(14)}\n`,
  );
  let revisions = 0;
  for (const wanted of [1, 10]) {
    // Earlier revisions are superseded; only the newest is deployed, as helm leaves them.
    for (let revision = 1; revision <= revisions; revision++) {
      await client.core.patchNamespacedSecret({
        name: `sh.helm.release.v1.${RELEASE}.v${revision}`,
        namespace: NAMESPACE,
        body: [{ op: "replace", path: "/metadata/labels/status", value: "superseded" }],
      });
    }
    while (revisions < wanted) {
      revisions += 1;
      await storeRevision(client, revisions, revisions === wanted, manifest);
    }
    const rows = {
      before: await measure(client, () => observeAsBefore(client)),
      after: await measure(client, async () => detectProvenance(ENTRY, await observeCapability(client, ENTRY)).state),
    };
    for (const [which, row] of Object.entries(rows)) {
      process.stdout.write(
        `${String(wanted).padEnd(11)}${which.padEnd(8)}${row.state.padEnd(8)}${String(row.requests).padStart(9)}${row.first.toFixed(1).padStart(10)}${row.ms.toFixed(1).padStart(14)}\n`,
      );
    }
  }
  await client.core.deleteNamespace({ name: NAMESPACE });
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
