import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseAllDocuments, stringify } from "yaml";
import { CATALOG } from "../../lib/catalog/catalog.js";
import { CHART_KINDS, type ChartKind, type ServedAs } from "../../lib/catalog/chart-objects.js";
import { matchesUpstreamImage } from "../../lib/catalog/image-identity.js";
import { run, runUnchecked } from "../../lib/cluster/process.js";
import { MONGODB_COMMUNITY, MONGODB_COMMUNITY_GROUP } from "../../lib/kinds/mongo-cluster/mongodb-community-api.js";
import {
  REDIS_CLUSTER,
  REDIS_OPERATOR_GROUP,
  REDIS_REPLICATION,
  REDIS_SENTINEL,
  REDIS_STANDALONE,
} from "../../lib/kinds/redis-instance/redis-operator-api.js";
import { toolchainPaths } from "../../lib/local-plane/toolchain-paths.js";
import { FIXTURE_CHARTS } from "../support/capabilities.js";

interface Rendered {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string; labels?: Record<string, string> };
  spec?: { template?: { spec?: { containers?: { image?: string }[] } } };
}

/**
 * `helm template` of a fixture chart with the catalog's values, as the installer would render it (a values
 * file: lists stay lists); with `includeCrds`, the chart's `crds/` directory too (which helm installs apart
 * from the templates).
 */
async function render(name: string, includeCrds = false): Promise<Rendered[]> {
  const entry = CATALOG.get(name);
  if (!entry) throw new Error(`no catalog entry ${name}`);
  const scratch = await mkdtemp(join(tmpdir(), "navique-catalog-values-"));
  try {
    const values = join(scratch, "values.yaml");
    await writeFile(values, stringify(entry.values));
    const args = ["template", entry.release.name, join(FIXTURE_CHARTS, entry.chart.name), "--values", values];
    args.push("--namespace", entry.release.namespace);
    if (includeCrds) args.push("--include-crds");
    const { stdout } = await run((await toolchainPaths()).helm, args);
    return parseAllDocuments(stdout)
      .map((d) => d.toJS() as Rendered | null)
      .filter((o): o is Rendered => o !== null);
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

// The fixture charts stand in for the upstream charts in every capability test: with the catalog's
// values they must render exactly the CRDs the catalog lists (the upstream chart's, docs/provenance.md)
// and a controller the catalog's identity recognises by its labels or, failing them, by its image, as
// detection does (lib/capabilities/observe.ts).
describe("fixture charts agree with the catalog", () => {
  it.each([...CATALOG.keys()])("%s renders the catalog's CRDs and an identifiable controller", async (name) => {
    const entry = CATALOG.get(name);
    const crdNames = (objects: readonly Rendered[]) =>
      objects.filter((o) => o.kind === "CustomResourceDefinition").map((o) => o.metadata?.name ?? "");
    const objects = await render(name);
    // Where the catalog says the CRDs are shipped: among the templates, or only in crds/.
    const templated = entry?.crds.shippedAs === "templates" ? entry.crds.names : [];
    expect(crdNames(objects).sort()).toEqual([...templated].sort());
    expect(crdNames(await render(name, true)).sort()).toEqual([...(entry?.crds.names ?? [])].sort());

    const deployments = objects.filter((o) => o.kind === "Deployment");
    const byLabels = deployments.filter((o) =>
      entry?.identity.labels.some((labels) =>
        Object.entries(labels).every(([key, value]) => o.metadata?.labels?.[key] === value),
      ),
    );
    const imagesOf = (o: Rendered) => o.spec?.template?.spec?.containers?.map((c) => c.image ?? "") ?? [];
    const byImage = deployments.filter((o) =>
      imagesOf(o).some((image) => matchesUpstreamImage(image, entry?.identity.images[0] ?? "")),
    );
    const controllers = byLabels.length > 0 ? byLabels : byImage;
    expect(controllers).toHaveLength(1);
    expect(imagesOf(controllers[0] ?? {}).some((i) => matchesUpstreamImage(i, entry?.identity.images[0] ?? ""))).toBe(
      true,
    );
  });

  // What a fixture renders must be what the upstream chart renders, as its entry records it (`renders`,
  // docs/adr/0024-operator-rbac.md): the operator's permissions name those objects, so a fixture object
  // the entry lacks would pass here and be refused on a real cluster, or the other way round. A fixture
  // may render less (no pod runs here to need it), never something else.
  it.each([...CATALOG.keys()])(
    "%s renders only objects its entry records of the upstream chart, by kind and name",
    async (name) => {
      const entry = CATALOG.get(name);
      const recorded = (entry?.renders ?? {}) as Readonly<Record<string, readonly string[] | undefined>>;
      const strays = (await render(name))
        .filter((o) => o.kind && o.kind !== "CustomResourceDefinition")
        .filter((o) => {
          const served = CHART_KINDS[o.kind as ChartKind] as ServedAs | undefined;
          const group = o.apiVersion?.includes("/") ? o.apiVersion.split("/")[0] : "";
          return served?.group !== group || !recorded[o.kind ?? ""]?.includes(o.metadata?.name ?? "");
        })
        .map((o) => `${o.apiVersion} ${o.kind} ${o.metadata?.name}`);
      expect(strays).toEqual([]);
    },
  );

  // Upstream's chart 1.9.1 puts no label on the controller's Deployment itself, only on its pods
  // (templates/operator.yaml): detection finds it by its image. The fixture renders it the same way.
  it("mongodb-kubernetes renders its controller under the fixed name, unlabelled, found by its image", async () => {
    const deployments = (await render("mongodb-kubernetes")).filter((o) => o.kind === "Deployment");
    expect(deployments.map((d) => [d.metadata?.name, d.metadata?.labels])).toEqual([
      ["mongodb-kubernetes-operator", undefined],
    ]);
    expect(deployments[0]?.spec?.template?.spec?.containers?.map((c) => c.image)).toEqual([
      "quay.io/mongodb/mongodb-kubernetes:1.9.1",
    ]);
  });

  // A catalog that dropped one of the values the product relies on fails to install the fixture, with why.
  it("mongodb-kubernetes refuses to render without every namespace watched", async () => {
    const { stderr, code } = await runUnchecked((await toolchainPaths()).helm, [
      "template",
      "mongodb-kubernetes-operator",
      join(FIXTURE_CHARTS, "mongodb-kubernetes"),
      "--namespace",
      "mongodb",
    ]);
    expect(code).not.toBe(0);
    expect(stderr).toContain(
      'operator.watchNamespace must be "*": a MongoCluster may be in any namespace, and the operator reconciles a MongoDBCommunity only in the namespaces it watches (got "")',
    );
  });

  // The kind MongoCluster emits is named by lib/kinds/mongo-cluster/mongodb-community-api.ts; the fixture's
  // CRD must serve it under exactly that name, as upstream does (docs/mongodb.md).
  it("mongodb-kubernetes's CRDs serve MongoDBCommunity under its plural, namespaced, at v1 only", async () => {
    const crds = (await render("mongodb-kubernetes", true)).filter((o) => o.kind === "CustomResourceDefinition");
    const community = crds.find(
      (crd) => crd.metadata?.name === `${MONGODB_COMMUNITY.plural}.${MONGODB_COMMUNITY_GROUP}`,
    );
    const spec = (community as { spec: CrdSpec } | undefined)?.spec;
    expect([spec?.group, spec?.names.kind, spec?.names.plural, spec?.scope]).toEqual([
      MONGODB_COMMUNITY_GROUP,
      MONGODB_COMMUNITY.kind,
      MONGODB_COMMUNITY.plural,
      "Namespaced",
    ]);
    expect(spec?.versions.map((v) => `${v.name}${v.served ? " served" : ""}${v.storage ? " storage" : ""}`)).toEqual([
      `${MONGODB_COMMUNITY.apiVersion.split("/")[1]} served storage`,
    ]);
  });

  it("cloudnative-pg ships eleven CRDs, one of them cluster-scoped", () => {
    expect(CATALOG.get("cloudnative-pg")?.crds.names).toHaveLength(11);
  });

  // The kinds RedisInstance emits are named by lib/kinds/redis-instance/redis-operator-api.ts; the fixture's
  // CRDs must serve them under exactly those names, as upstream does (docs/redis.md).
  it("redis-operator's CRDs serve the kinds and plurals of the Redis facts, namespaced, at v1beta2 only", async () => {
    const crds = (await render("redis-operator", true)).filter((o) => o.kind === "CustomResourceDefinition");
    const served = crds.map((crd) => {
      const spec = (crd as { spec: CrdSpec }).spec;
      const versions = spec.versions.map((v) => `${v.name}${v.served ? " served" : ""}${v.storage ? " storage" : ""}`);
      return {
        name: crd.metadata?.name,
        group: spec.group,
        kind: spec.names.kind,
        plural: spec.names.plural,
        scope: spec.scope,
        versions,
      };
    });
    const expected = [REDIS_STANDALONE, REDIS_CLUSTER, REDIS_REPLICATION, REDIS_SENTINEL].map((k) => ({
      name: `${k.plural}.${REDIS_OPERATOR_GROUP}`,
      group: REDIS_OPERATOR_GROUP,
      kind: k.kind,
      plural: k.plural,
      scope: "Namespaced",
      versions: [`${k.apiVersion.split("/")[1]} served storage`],
    }));
    expect(served).toEqual(expected);
    expect(served.find((crd) => crd.kind === "Redis")?.plural).toBe("redis");
  });
});

interface CrdSpec {
  group: string;
  scope: string;
  names: { kind: string; plural: string };
  versions: { name: string; served: boolean; storage: boolean }[];
}
