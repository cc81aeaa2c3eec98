import { API_GROUP_VERSION } from "../../lib/api/group.js";
import { REGISTRY } from "../../lib/kinds/registry.js";
import { testClient } from "../support/capabilities.js";
import { naviqueCrdsServed } from "../support/failing-step.js";
import { minimalSpec } from "../support/kind-samples.js";

// Contract tests on the real apiserver for every registered kind: the CRD generated from the kind's zod
// schema is accepted, and the defaults the apiserver writes into a spec given empty are exactly the
// schema's — a resource created with kubectl says what the same resource made by a front end says.
describe.each(REGISTRY.kinds.map((m) => [m.definition.kind, m] as const))("the CRD of %s", (kind, module) => {
  beforeAll(async () => {
    await naviqueCrdsServed(testClient());
  });

  it("defaults a minimal spec exactly as its zod schema does", async () => {
    const client = testClient();
    const spec = minimalSpec(kind);
    const stored = await client.apply(
      { apiVersion: API_GROUP_VERSION, kind, metadata: { name: "defaults", namespace: "default" }, spec } as never,
      { dryRun: true },
    );
    expect((stored as { spec?: unknown }).spec).toEqual(module.definition.spec.parse(spec));
  });
});
