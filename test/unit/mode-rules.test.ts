import { datastoreModeRules, modeRules } from "../../lib/kinds/datastore/mode-rules.js";

describe("the rules between a mode and the fields it takes", () => {
  const rules = modeRules("spec.database", {
    postgresCluster: { required: [{ field: "ref", set: "name it" }], only: ["ref", "urlRef"] },
    external: { required: [{ field: "external", set: "set spec.database.external.secretRef" }], only: ["external"] },
  });

  it("are written in CEL for the apiserver: each required field first, then each mode's only-allowed fields", () => {
    expect(rules.rules.map((r) => r.rule)).toEqual([
      "self.mode != 'postgresCluster' || has(self.ref)",
      "self.mode != 'external' || has(self.external)",
      "self.mode == 'postgresCluster' || (!has(self.ref) && !has(self.urlRef))",
      "self.mode == 'external' || !has(self.external)",
    ]);
  });

  it("name the fields, the mode and what to do, and find exactly the rules an object breaks", () => {
    expect(rules.broken({ mode: "postgresCluster", ref: { name: "pg" } })).toEqual([]);
    expect(rules.broken({ mode: "postgresCluster", external: {} }).map((r) => r.message)).toEqual([
      "spec.database.ref is required when spec.database.mode is postgresCluster: name it",
      "spec.database.external is only allowed when spec.database.mode is external: remove spec.database.external or set spec.database.mode: external",
    ]);
    expect(rules.broken({ mode: "external", external: {}, urlRef: {} }).map((r) => [r.message, r.path])).toEqual([
      [
        "spec.database.ref and spec.database.urlRef are only allowed when spec.database.mode is postgresCluster: remove them or set spec.database.mode: postgresCluster",
        ["ref"],
      ],
    ]);
  });

  it("of a datastore name spec.adopt only for a kind with the adopt mode", () => {
    const withAdopt = datastoreModeRules("spec.adopt.clusterRef");
    const without = datastoreModeRules();
    expect(withAdopt.rules.map((r) => r.message)).toEqual([
      "spec.adopt is required when spec.mode is adopt: set spec.adopt.clusterRef",
      "spec.external is required when spec.mode is external: set spec.external.connectionSecretRef",
      "spec.adopt is only allowed when spec.mode is adopt: remove spec.adopt or set spec.mode: adopt",
      "spec.external is only allowed when spec.mode is external: remove spec.external or set spec.mode: external",
      "spec.managed is only allowed when spec.mode is managed: remove spec.managed or set spec.mode: managed",
    ]);
    expect(without.rules.some((r) => r.rule.includes("adopt"))).toBe(false);
    expect(without.broken({ mode: "managed", external: {} }).map((r) => r.path)).toEqual([["external"]]);
  });
});
