import { ApiObject, App, Chart, type IResolver, JsonPatch, Lazy, type ResolutionContext, Testing } from "cdk8s";
import { PostgresCluster } from "../../constructs/index.js";
import { ResourceObject } from "../../constructs/resource-object.js";
import { API_GROUP_VERSION } from "../../lib/api/group.js";
import { KIND_SAMPLES } from "../support/kind-samples.js";

// A construct of a kind renders its spec without cdk8s's resolution when that changes nothing
// (constructs/resource-object.ts): what it renders must be what cdk8s renders, key order included.

/** What cdk8s's own ApiObject renders for the same object. */
const cdk8sRendering = (object: ApiObject): unknown => ApiObject.prototype.toJson.call(object);

const objectIn = (chart: Chart, id: string, kind: string, spec: unknown) =>
  new ResourceObject(chart, id, {
    apiVersion: API_GROUP_VERSION,
    kind,
    metadata: { name: id, labels: { team: "a" } },
    spec,
  });

describe("a ResourceObject", () => {
  const samples = Object.entries(KIND_SAMPLES).flatMap(([kind, specs]) =>
    specs.map((spec, index) => [`${kind} sample ${index}`, kind, spec] as const),
  );

  it.each(samples)("renders %s exactly as cdk8s does, keys in the same order", (_, kind, spec) => {
    const chart = new Chart(Testing.app(), "chart", { namespace: "apps", labels: { app: "platform" } });
    const object = objectIn(chart, "object", kind, spec);
    expect(JSON.stringify(object.toJson())).toBe(JSON.stringify(cdk8sRendering(object)));
  });

  it("drops null and undefined fields and keeps insertion order under CDK8S_DISABLE_SORT, as cdk8s does", () => {
    const chart = Testing.chart();
    const spec = { zeta: 1, alpha: { beta: null, gamma: undefined, delta: [null, "x", { b: 1, a: 2 }] }, empty: {} };
    const object = objectIn(chart, "object", "PostgresCluster", spec);
    const sorted = JSON.stringify(object.toJson());
    expect(sorted).toBe(JSON.stringify(cdk8sRendering(object)));
    expect(sorted).toContain('"spec":{"alpha":{"delta":[null,"x",{"a":2,"b":1}]},"empty":{},"zeta":1}');
    process.env.CDK8S_DISABLE_SORT = "1";
    try {
      const unsorted = JSON.stringify(object.toJson());
      expect(unsorted).toBe(JSON.stringify(cdk8sRendering(object)));
      expect(unsorted).toContain('"spec":{"zeta":1,"alpha":{"delta":[null,"x",{"b":1,"a":2}]},"empty":{}}');
    } finally {
      delete process.env.CDK8S_DISABLE_SORT;
    }
  });

  it("leaves to cdk8s a spec that is not plain data: a Lazy is produced", () => {
    const chart = Testing.chart();
    const object = objectIn(chart, "object", "PostgresCluster", { size: Lazy.any({ produce: () => "10Gi" }) });
    expect(object.toJson()).toMatchObject({ spec: { size: "10Gi" } });
  });

  it("leaves to cdk8s an app with resolvers of its own: they see every value of the spec", () => {
    const upper: IResolver = {
      resolve(context: ResolutionContext) {
        // cdk8s resolves a replaced value again: replace only what is not upper-case yet.
        const { value } = context;
        if (typeof value === "string" && value !== value.toUpperCase()) context.replaceValue(value.toUpperCase());
      },
    };
    const app = new App({ resolvers: [upper], outdir: Testing.app().outdir });
    const object = objectIn(new Chart(app, "chart"), "object", "PostgresCluster", { databases: [{ name: "app" }] });
    expect(object.toJson()).toMatchObject({ spec: { databases: [{ name: "APP" }] } });
  });

  it("applies the JSON patches added to it, through cdk8s", () => {
    const chart = Testing.chart();
    const object = objectIn(chart, "object", "PostgresCluster", { databases: [{ name: "app" }] });
    object.addJsonPatch(JsonPatch.add("/spec/databases/-", { name: "logs" }));
    expect(object.toJson()).toMatchObject({ spec: { databases: [{ name: "app" }, { name: "logs" }] } });
  });
});

describe("a construct of a kind", () => {
  it("is its API object: one construct per resource, nothing under it", () => {
    const chart = Testing.chart();
    const db = new PostgresCluster(chart, "db", { spec: { databases: [{ name: "app" }] } });
    expect(ApiObject.of(db)).toBe(db);
    expect(db.apiObject).toBe(db);
    expect(db.node.children).toEqual([]);
    expect(Testing.synth(chart)).toEqual([db.toJson()]);
  });
});
