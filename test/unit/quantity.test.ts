import * as pulumi from "@pulumi/pulumi";
import { MAX_BYTE_QUANTITY, withinByteBound } from "../../lib/api/quantity.js";
import { checkInput } from "../../lib/api/validation.js";
import { moduleOf } from "../../lib/engine/context.js";
import { REGISTRY } from "../../lib/kinds/registry.js";
import { componentRefusal, constructRefusal, planRefusal } from "../support/front-end-refusals.js";
import { KIND_SAMPLES } from "../support/kind-samples.js";

const TOO_LARGE = "10000000000000000000000000Ei";
const refusal = (example: string, received: string) =>
  `must be at most 1Pi (1125899906842624 bytes), far beyond any one volume a storage class provisions: write a size such as "${example}" (received "${received}")`;

/** Every size a spec declares: the kind, the field, a valid sample holding it, and its message's example. */
const SIZES: readonly (readonly [string, string, Record<string, unknown>, string])[] = [
  ["PostgresCluster", "managed.storage.size", KIND_SAMPLES.PostgresCluster[0], "10Gi"],
  ["Stack", "postgres.managed.storage.size", KIND_SAMPLES.Stack[0], "10Gi"],
  ["RedisInstance", "managed.storage.size", KIND_SAMPLES.RedisInstance[0], "1Gi"],
  ["MeilisearchInstance", "managed.storage.size", KIND_SAMPLES.MeilisearchInstance[0], "10Gi"],
  ["ClickHouseCluster", "managed.storage.size", KIND_SAMPLES.ClickHouseCluster[0], "10Gi"],
  ["ClickHouseCluster", "managed.keeper.storage.size", KIND_SAMPLES.ClickHouseCluster[0], "1Gi"],
  ["MongoCluster", "managed.storage.size", KIND_SAMPLES.MongoCluster[0], "10Gi"],
  ["ChatUI", "imageStorage.size", KIND_SAMPLES.ChatUI[0], "10Gi"],
];

/** `sample` with `value` at `path`, a copy. */
function withValue(sample: Record<string, unknown>, field: string, value: unknown): Record<string, unknown> {
  const path = field.split(".");
  const copy = structuredClone(sample) as Record<string, unknown>;
  let holder = copy;
  for (const key of path.slice(0, -1)) holder = holder[key] as Record<string, unknown>;
  holder[path[path.length - 1] as string] = value;
  return copy;
}

describe("a byte quantity's bound", () => {
  it.each<[string, boolean]>([
    ["1Pi", true],
    ["1125899906842624", true],
    ["1125899906842625", false],
    ["1024Ti", true],
    ["1024.000000001Ti", false],
    ["1.0000000000000001Pi", false],
    ["1125.899906842624T", true],
    ["1126T", false],
    ["1P", true],
    ["0.001Ei", false],
    ["0.0001Ei", true],
    [TOO_LARGE, false],
    ["10Gi", true],
    ["not a quantity", true],
  ])("%s within 1Pi: %s", (quantity, within) => {
    expect(withinByteBound(quantity)).toBe(within);
  });

  it("is 1Pi, the largest volume named", () => {
    expect(MAX_BYTE_QUANTITY).toBe("1Pi");
  });

  it.each(SIZES)(
    "refuses %s spec.%s beyond it, naming the field and the value, and accepts 1Pi",
    (kind, field, sample, example) => {
      const { spec } = moduleOf({ registry: REGISTRY.kinds }, kind).definition;
      expect(checkInput(spec, withValue(sample, field, TOO_LARGE), "spec")).toEqual({
        ok: false,
        problems: [{ path: `spec.${field}`, message: refusal(example, TOO_LARGE) }],
      });
      expect(checkInput(spec, withValue(sample, field, "1Pi"), "spec").ok).toBe(true);
    },
  );

  it("bounds its length too: a quantity too long is refused for its length and its size", () => {
    const { spec } = moduleOf({ registry: REGISTRY.kinds }, "PostgresCluster").definition;
    const checked = checkInput(spec, { managed: { storage: { size: "1".repeat(65) } } }, "spec");
    expect(checked.ok ? [] : checked.problems.map((p) => [p.path, p.message])).toEqual([
      ["spec.managed.storage.size", "length must be <= 64"],
      ["spec.managed.storage.size", refusal("10Gi", "1".repeat(65))],
    ]);
  });
});

describe("a size beyond the bound, in every front end of the process", () => {
  beforeAll(async () => {
    // Pulumi's own mocks: a component is constructed as in a program, with no engine behind it.
    await pulumi.runtime.setMocks(
      { newResource: (args) => ({ id: `${args.name}-id`, state: args.inputs }), call: (args) => args.inputs },
      "project",
      "stack",
      true,
    );
  });

  const spec = { managed: { storage: { size: TOO_LARGE } } };
  const line = `spec.managed.storage.size: ${refusal("10Gi", TOO_LARGE)}`;

  it("cdk8s synth: one line, the construct path, the field, the bound, the value received", () => {
    expect(constructRefusal("PostgresCluster", spec)).toEqual([`[test/judged] PostgresCluster ${line}`]);
  });

  it("the Pulumi component: one message naming the field", () => {
    expect(componentRefusal("PostgresCluster", spec)).toBe(`PostgresCluster judged is invalid:\n  - ${line}`);
  });

  it("navique plan: the document refused, the field named", () => {
    expect(planRefusal("PostgresCluster", spec)).toEqual([
      `platform.yaml document 1 (line 1) is invalid:\n  - ${line}\n  Correct the document; it was not planned`,
    ]);
  });
});
