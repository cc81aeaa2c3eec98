import { canonicalJson } from "../../lib/api/canonical-json.js";
import { API_GROUP_VERSION } from "../../lib/api/group.js";
import { REGISTRY } from "../../lib/kinds/registry.js";
import { testClient } from "../support/capabilities.js";
import { naviqueCrdsServed } from "../support/failing-step.js";
import { KIND_SAMPLES, minimalSpec } from "../support/kind-samples.js";

// Contract tests on the real apiserver for every registered kind: the CRD generated from the kind's zod
// schema is accepted, and the defaults the apiserver writes into a spec are exactly the schema's — at
// every level, for any field left out. The constructs synthesize a spec as written and leave its
// defaults to the CRD (ADR 0044); kubectl users write it so too: both rely on this.

type Json = unknown;

/** The key path of every field of a spec, objects inside lists included (a list item's index in the path). */
function fieldPaths(value: Json, path: readonly (string | number)[] = []): (string | number)[][] {
  if (Array.isArray(value)) return value.flatMap((item, index) => fieldPaths(item, [...path, index]));
  if (value === null || typeof value !== "object") return [];
  return Object.entries(value).flatMap(([key, child]) => [[...path, key], ...fieldPaths(child, [...path, key])]);
}

/** A copy of `spec` without the field at `path`. */
function without(spec: Json, path: readonly (string | number)[]): Json {
  const copy = structuredClone(spec) as Record<string | number, Json>;
  let parent = copy;
  for (const step of path.slice(0, -1)) parent = parent[step] as Record<string | number, Json>;
  delete parent[path.at(-1) as string | number];
  return copy;
}

describe.each(REGISTRY.kinds.map((m) => [m.definition.kind, m] as const))("the CRD of %s", (kind, module) => {
  beforeAll(async () => {
    await naviqueCrdsServed(testClient());
  });

  /** The spec the apiserver stores for `spec` (a dry run: nothing is kept). */
  const stored = async (spec: Json) => {
    const object = { apiVersion: API_GROUP_VERSION, kind, metadata: { name: "defaults", namespace: "default" }, spec };
    return ((await testClient().apply(object as never, { dryRun: true })) as { spec?: Json }).spec;
  };

  it("defaults a minimal spec exactly as its zod schema does", async () => {
    const spec = minimalSpec(kind);
    expect(await stored(spec)).toEqual(module.definition.spec.parse(spec));
  });

  it("defaults any one field left out of a full sample exactly as its zod schema does", async () => {
    const samples: readonly Json[] = KIND_SAMPLES[kind as keyof typeof KIND_SAMPLES] ?? [];
    expect(samples.length).toBeGreaterThan(0);
    // Every sample with one field left out that the schema still admits: a field with a default, or an
    // optional one (left out on both sides).
    const variants = samples.flatMap((sample, index) =>
      fieldPaths(sample)
        .map((path) => ({ label: `sample ${index} without ${path.join(".")}`, spec: without(sample, path) }))
        .filter(({ spec }) => module.definition.spec.safeParse(spec).success),
    );
    expect(variants.length).toBeGreaterThan(0);
    const disagreements: string[] = [];
    for (const { label, spec } of variants) {
      const expected = module.definition.spec.parse(spec);
      const actual = await stored(spec);
      if (canonicalJson(actual) !== canonicalJson(expected))
        disagreements.push(`${label}: apiserver ${JSON.stringify(actual)}, schema ${JSON.stringify(expected)}`);
    }
    expect(disagreements).toEqual([]);
  });
});
