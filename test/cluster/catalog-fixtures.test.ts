import { join } from "node:path";
import { parseAllDocuments } from "yaml";
import { CATALOG } from "../../lib/catalog/catalog.js";
import { matchesUpstreamImage } from "../../lib/catalog/image-identity.js";
import { run } from "../../lib/cluster/process.js";
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
  kind?: string;
  metadata?: { name?: string; labels?: Record<string, string> };
  spec?: { template?: { spec?: { containers?: { image?: string }[] } } };
}

/**
 * `helm template` of a fixture chart with the catalog's values, as the installer would render it; with
 * `includeCrds`, the chart's `crds/` directory too (which helm installs apart from the templates).
 */
async function render(name: string, includeCrds = false): Promise<Rendered[]> {
  const entry = CATALOG.get(name);
  if (!entry) throw new Error(`no catalog entry ${name}`);
  const args = ["template", entry.release.name, join(FIXTURE_CHARTS, entry.chart.name)];
  args.push("--namespace", entry.release.namespace);
  if (includeCrds) args.push("--include-crds");
  for (const [key, value] of Object.entries(flatten(entry.values))) args.push("--set", `${key}=${value}`);
  const { stdout } = await run((await toolchainPaths()).helm, args);
  return parseAllDocuments(stdout)
    .map((d) => d.toJS() as Rendered | null)
    .filter((o): o is Rendered => o !== null);
}

function flatten(values: Readonly<Record<string, unknown>>, prefix = ""): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [key, value] of Object.entries(values)) {
    if (value !== null && typeof value === "object")
      Object.assign(flat, flatten(value as Record<string, unknown>, `${prefix}${key}.`));
    else flat[`${prefix}${key}`] = String(value);
  }
  return flat;
}

// The fixture charts stand in for the upstream charts in every capability test: with the catalog's
// values they must render exactly the CRDs the catalog lists (the upstream chart's, docs/provenance.md)
// and a controller the catalog's identity recognises by its labels and by its image.
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

    const controllers = objects.filter(
      (o) =>
        o.kind === "Deployment" &&
        entry?.identity.labels.some((labels) =>
          Object.entries(labels).every(([key, value]) => o.metadata?.labels?.[key] === value),
        ),
    );
    expect(controllers).toHaveLength(1);
    const images = controllers[0]?.spec?.template?.spec?.containers?.map((c) => c.image ?? "") ?? [];
    expect(images.some((image) => matchesUpstreamImage(image, entry?.identity.images[0] ?? ""))).toBe(true);
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
