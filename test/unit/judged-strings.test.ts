import { Chart, Testing } from "cdk8s";
import { NaviqueLicense } from "../../constructs/index.js";
import { MAX_IMAGE_REFERENCE } from "../../lib/api/image-reference.js";
import { checkInput } from "../../lib/api/validation.js";
import { LicenseSpec } from "../../lib/kinds/license/schema.js";
import { PostgresClusterSpec } from "../../lib/kinds/postgres-cluster/schema.js";
import { RedisInstanceSpec } from "../../lib/kinds/redis-instance/schema.js";
import { StackSpec } from "../../lib/kinds/stack/schema.js";
import { synthProblems } from "../support/synth-problems.js";

const IMAGE_EXPECTED = "must be an image reference: REGISTRY/PATH:TAG, optionally pinned with @sha256:<64 hex digits>";

describe("free-form strings judged by the schemas", () => {
  it("refuses an image that is no image reference, in both image fields of a RedisInstance", () => {
    for (const field of ["image", "sentinelImage"] as const) {
      for (const [image, received] of [
        ["a;rm -rf /", '"a;rm -rf /"'],
        ["quay.io/opstree/redis:v7\n", '"quay.io/opstree/redis:v7\\n"'],
        ["", '""'],
      ] as const) {
        expect(checkInput(RedisInstanceSpec, { managed: { [field]: image } }, "spec")).toEqual({
          ok: false,
          problems: [{ path: `spec.managed.${field}`, message: IMAGE_EXPECTED, received }],
        });
      }
      const long = checkInput(RedisInstanceSpec, { managed: { [field]: "a".repeat(200_000) } }, "spec");
      expect(long.ok ? [] : long.problems.map((p) => [p.path, p.message])).toEqual([
        [`spec.managed.${field}`, `length must be <= ${MAX_IMAGE_REFERENCE}`],
      ]);
    }
    const pinned = `quay.io/opstree/redis:v7.0.15@sha256:${"a".repeat(64)}`;
    expect(checkInput(RedisInstanceSpec, { managed: { image: pinned, sentinelImage: "redis" } }).ok).toBe(true);
  });

  it("bounds a quantity's length (and its size: test/unit/quantity.test.ts)", () => {
    const checked = checkInput(PostgresClusterSpec, { managed: { storage: { size: "1".repeat(65) } } }, "spec");
    expect(checked.ok ? [] : checked.problems.map((p) => [p.path, p.message])).toContainEqual([
      "spec.managed.storage.size",
      "length must be <= 64",
    ]);
  });

  it("refuses a Stack that names a database twice, as a PostgresCluster's databases are refused", () => {
    expect(
      checkInput(StackSpec, { postgres: { databases: [{ name: "app" }, { name: "logs" }, { name: "app" }] } }, "spec"),
    ).toEqual({
      ok: false,
      problems: [
        {
          path: "spec.postgres.databases[2].name",
          message: 'spec.postgres.databases names must be unique: "app" appears twice; rename or remove the duplicate',
        },
      ],
    });
    expect(checkInput(PostgresClusterSpec, { databases: [{ name: "app" }, { name: "app" }] }, "spec")).toEqual({
      ok: false,
      problems: [
        {
          path: "spec.databases[1].name",
          message: 'spec.databases names must be unique: "app" appears twice; rename or remove the duplicate',
        },
      ],
    });
  });

  it("refuses a licence token with a character no token has, in the schema and at synth", () => {
    const expected =
      "must be a licence token: nvq1.<key id>.<payload>.<signature>, letters, digits, '-', '_' and '.' only; copy the whole token again";
    expect(checkInput(LicenseSpec, { token: "nvq1.evil\nValid: True.e30.AAAA" }, "spec")).toEqual({
      ok: false,
      problems: [{ path: "spec.token", message: expected, received: '"nvq1.evil\\nValid: True.e30.AAAA"' }],
    });
    // A pasted token keeps the blank space around it.
    expect(checkInput(LicenseSpec, { token: "  nvq1.key.e30.AAAA\n" }).ok).toBe(true);
    const chart = new Chart(Testing.app(), "licensed");
    new NaviqueLicense(chart, "licence", { token: "nvq1.a;rm -rf /.e30.AAAA" });
    expect(synthProblems(chart)).toEqual([
      `[licensed/licence] License spec.token: ${expected} (received "nvq1.a;rm -rf /.e30.AAAA")`,
    ]);
  });
});
