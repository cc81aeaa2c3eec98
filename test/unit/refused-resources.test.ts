import { RefusedResources } from "../../providers/operator/refused-resources.js";

const INPUTS = { resourceVersion: "7", seats: "ns/a,ns/b", entitlements: '"Community"' };

describe("RefusedResources", () => {
  it("passes over a refusal only while the resource, the seats and the entitlements are all the same", () => {
    const refused = new RefusedResources();
    refused.record("PostgresCluster/ns/c", INPUTS);
    expect(refused.unchanged("PostgresCluster/ns/c", INPUTS)).toBe(true);
    expect(refused.unchanged("PostgresCluster/ns/c", { ...INPUTS, resourceVersion: "8" })).toBe(false);
    expect(refused.unchanged("PostgresCluster/ns/c", { ...INPUTS, seats: "ns/a" })).toBe(false);
    expect(refused.unchanged("PostgresCluster/ns/c", { ...INPUTS, entitlements: '{"id":"lic"}' })).toBe(false);
    expect(refused.unchanged("PostgresCluster/ns/d", INPUTS)).toBe(false);
    refused.forget("PostgresCluster/ns/c");
    expect(refused.unchanged("PostgresCluster/ns/c", INPUTS)).toBe(false);
  });

  it("renews a refusal at the resourceVersion of its own writes, and never invents one", () => {
    const refused = new RefusedResources();
    refused.record("PostgresCluster/ns/c", INPUTS);
    refused.renewed("PostgresCluster/ns/c", "9");
    expect(refused.unchanged("PostgresCluster/ns/c", { ...INPUTS, resourceVersion: "9" })).toBe(true);
    expect(refused.unchanged("PostgresCluster/ns/c", INPUTS)).toBe(false);
    refused.renewed("PostgresCluster/ns/x", "9");
    expect(refused.unchanged("PostgresCluster/ns/x", { ...INPUTS, resourceVersion: "9" })).toBe(false);
  });

  it("names the refused of one kind, for a seat freed", () => {
    const refused = new RefusedResources();
    refused.record("PostgresCluster/ns/c", INPUTS);
    refused.record("RedisInstance/ns/c", INPUTS);
    expect(refused.withPrefix("PostgresCluster/")).toEqual(["PostgresCluster/ns/c"]);
  });
});
