import { check, type RuntimeInputs } from "../../providers/pulumi/runtime.js";

/** A dynamic resource's inputs as a component hands them over (component-inputs.ts). */
const inputs = (spec: unknown, name = "db"): RuntimeInputs => ({
  kind: "PostgresCluster",
  namespace: "apps",
  name,
  spec,
  timeoutSeconds: 600,
});
const external = { mode: "external", external: { connectionSecretRef: { name: "db-connection" } } };
const SPEC_MODE_REFUSED = {
  property: "spec.mode",
  reason: 'Invalid option: expected one of "managed"|"adopt"|"external"',
};

describe("the Pulumi provider's check", () => {
  it("judges new inputs and changed ones: every problem named by its field", async () => {
    expect(await check(inputs({ mode: "bogus" }))).toEqual({
      inputs: inputs({ mode: "bogus" }),
      failures: [SPEC_MODE_REFUSED],
    });
    expect((await check(inputs({ mode: "bogus" }), inputs(external))).failures).toEqual([SPEC_MODE_REFUSED]);
    expect((await check(inputs(external, "Bad_Name"), inputs(external))).failures).toEqual([
      expect.objectContaining({ property: "name" }),
    ]);
    expect(await check(inputs(external), inputs(external, "other"))).toEqual({
      inputs: inputs(external),
      failures: [],
    });
  });

  it("judges nothing the state recorded as it is: those inputs passed it, and the program parsed them again in its run", async () => {
    // Inputs no program of the product would hand over, recorded as they are: what shows that nothing is parsed.
    const recorded = inputs({ mode: "bogus" });
    expect(await check(inputs({ mode: "bogus" }), recorded)).toEqual({ inputs: recorded, failures: [] });
    // Key order aside, as `pulumi refresh` reads a spec back from the apiserver.
    const reordered = { external: { connectionSecretRef: { name: "db-connection" } }, mode: "external" };
    expect(await check(inputs(external), inputs(reordered))).toEqual({ inputs: inputs(external), failures: [] });
  });
});
