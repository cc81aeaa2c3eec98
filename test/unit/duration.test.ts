import * as pulumi from "@pulumi/pulumi";
import { GO_DURATION, GO_MAX_DURATION, goDuration } from "../../lib/api/duration.js";
import { checkInput } from "../../lib/api/validation.js";
import { SecretsManagementSpec } from "../../lib/kinds/secrets-management/schema.js";
import { componentRefusal, constructRefusal, planRefusal } from "../support/front-end-refusals.js";
import { KIND_SAMPLES } from "../support/kind-samples.js";

const EXPECTED =
  "must be a Go duration: 0, or a number and a unit for each of h, m, s, ms, us and ns used, in that order, each once, no sign, at most 999999h (e.g. 1h, 15m or 1h30m; 0 reads once)";

/** Go's time.ParseDuration, its arithmetic in exact integers: the nanoseconds a duration it reads stands for. */
function nanoseconds(duration: string): bigint {
  const unit: Record<string, bigint> = { h: 3_600_000_000_000n, m: 60_000_000_000n, s: 1_000_000_000n };
  Object.assign(unit, { ms: 1_000_000n, us: 1_000n, ns: 1n });
  let total = 0n;
  for (const [, whole = "", fraction = "", name = ""] of duration.matchAll(/([0-9]+)(?:\.([0-9]+))?(ms|us|ns|h|m|s)/g))
    total += (BigInt(`${whole}${fraction}`) * (unit[name] ?? 0n)) / 10n ** BigInt(fraction.length);
  return total;
}

const GO_MAX_NANOSECONDS = 2n ** 63n - 1n;

describe("a Go duration", () => {
  it.each(["0", "0s", "1h", "15m", "1h30m", "1h0m0s", "1.5h", "90s", "250ms", "10s500ms", "999999h59m59s"])(
    "accepts %s",
    (duration) => {
      expect(GO_DURATION.test(duration)).toBe(true);
    },
  );

  it.each([
    ["a sign", "-1h"],
    ["a unit twice", "1h1h"],
    ["units out of order", "30m1h"],
    ["Go's largest duration, a million hours and more", "2562047h"],
    ["a number no int64 holds", "10000000000000000000000000h"],
    ["days, which Go does not read", "1d"],
    ["an upper-case unit", "1H"],
    ["a blank", "1 h"],
    ["shell text", "1h;reboot"],
    ["no unit", "15"],
  ])("refuses %s", (_, duration) => {
    expect(GO_DURATION.test(duration)).toBe(false);
  });

  it("admits nothing Go cannot hold: the longest value the pattern allows is under Go's maximum", () => {
    const nine = "9".repeat(9);
    const longest = `999999.${nine}h9999999.${nine}m${nine}.${nine}s${nine}.${nine}ms${nine}.${nine}us${nine}.${nine}ns`;
    expect(GO_DURATION.test(longest)).toBe(true);
    expect(nanoseconds(longest) < GO_MAX_NANOSECONDS).toBe(true);
    expect(nanoseconds(GO_MAX_DURATION)).toBe(GO_MAX_NANOSECONDS);
  });

  it("is bounded in length, and refused empty", () => {
    const schema = goDuration("1h");
    expect(schema.safeParse("").error?.issues.map((i) => i.code)).toEqual(["too_small"]);
    expect(schema.safeParse("1".repeat(33)).error?.issues.map((i) => i.code)).toEqual(["too_big", "invalid_format"]);
  });
});

describe("a SecretsManagement's spec.eso.refreshInterval", () => {
  const withInterval = (refreshInterval: unknown) => ({
    ...KIND_SAMPLES.SecretsManagement[0],
    eso: { ...KIND_SAMPLES.SecretsManagement[0].eso, refreshInterval },
  });

  it("is a Go duration within what ESO can hold, refused otherwise with the field named", () => {
    expect(checkInput(SecretsManagementSpec, withInterval("1h30m")).ok).toBe(true);
    expect(checkInput(SecretsManagementSpec, withInterval("0")).ok).toBe(true);
    for (const interval of ["2562048h", "1y", "-5m", "$(reboot)"])
      expect(checkInput(SecretsManagementSpec, withInterval(interval), "spec")).toEqual({
        ok: false,
        problems: [{ path: "spec.eso.refreshInterval", message: EXPECTED, received: JSON.stringify(interval) }],
      });
  });

  describe("in every front end of the process", () => {
    beforeAll(async () => {
      // Pulumi's own mocks: a component is constructed as in a program, with no engine behind it.
      await pulumi.runtime.setMocks(
        { newResource: (args) => ({ id: `${args.name}-id`, state: args.inputs }), call: (args) => args.inputs },
        "project",
        "stack",
        true,
      );
    });

    const line = `spec.eso.refreshInterval: ${EXPECTED} (received "2562048h")`;

    it("cdk8s synth", () => {
      expect(constructRefusal("SecretsManagement", withInterval("2562048h"))).toEqual([
        `[test/judged] SecretsManagement ${line}`,
      ]);
    });

    it("the Pulumi component", () => {
      expect(componentRefusal("SecretsManagement", withInterval("2562048h"))).toBe(
        `SecretsManagement judged is invalid:\n  - ${line}`,
      );
    });

    it("navique plan", () => {
      expect(planRefusal("SecretsManagement", withInterval("2562048h"))).toEqual([
        `platform.yaml document 1 (line 1) is invalid:\n  - ${line}\n  Correct the document; it was not planned`,
      ]);
    });
  });
});
