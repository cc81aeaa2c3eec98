import { ownedBy, ownedByValue, ownerOf, ownershipMarks } from "../../lib/engine/ownership.js";

const owner = (kind: string, namespace: string, name: string) => ({ kind, metadata: { name, namespace } });

describe("ownership marks", () => {
  it("label a short owner as `<kind>.<namespace>.<name>`, as the first release did", () => {
    expect(ownedByValue(owner("PostgresCluster", "team-a", "main"))).toBe("postgrescluster.team-a.main");
  });

  it("never give two long owners the same label, and keep every label value within 63 characters", () => {
    const namespace = "a-namespace-whose-name-is-rather-long";
    const first = owner("PostgresCluster", namespace, "orders-primary-database-for-the-eu-region-one");
    const second = owner("PostgresCluster", namespace, "orders-primary-database-for-the-eu-region-two");
    const a = ownedByValue(first);
    const b = ownedByValue(second);
    expect(a).not.toBe(b);
    for (const value of [a, b]) {
      expect(value.length).toBeLessThanOrEqual(63);
      // A valid label value: alphanumeric at both ends, `-`, `_`, `.` inside.
      expect(value).toMatch(/^[a-z0-9]([-a-z0-9_.]*[a-z0-9])?$/);
    }
    // Selection compares the label exactly: each owner recognises its own objects only.
    const ofFirst = { apiVersion: "v1", kind: "Secret", metadata: { name: "x", ...ownershipMarks(first) } };
    expect(ownedBy(first, ofFirst)).toBe(true);
    expect(ownedBy(second, ofFirst)).toBe(false);
  });

  it("map an object back to its exact owner through the annotation, whatever the length of its name", () => {
    const long = owner("Stack", "a-namespace-whose-name-is-rather-long", "a-stack-name-of-forty-one-characters-xyz");
    const object = { metadata: ownershipMarks(long) };
    expect(ownerOf(object, ["Stack", "PostgresCluster"])).toBe(
      "Stack/a-namespace-whose-name-is-rather-long/a-stack-name-of-forty-one-characters-xyz",
    );
    // Without the annotation, a label that may have been cut maps to no owner rather than to a wrong one.
    const cut = { metadata: { labels: { "core.navique.com/owned-by": ownedByValue(long) } } };
    expect(ownerOf(cut, ["Stack"])).toBeUndefined();
    expect(ownerOf({ metadata: { labels: { "core.navique.com/owned-by": "stack.ai.team" } } }, ["Stack"])).toBe(
      "Stack/ai/team",
    );
  });
});
