import { AppliedVersions } from "../../lib/engine/applied-versions.js";

/** A Secret as a kind writes it: what the executor applies. */
const secret = (url: string) => ({
  apiVersion: "v1",
  kind: "Secret",
  metadata: { name: "llm-database", namespace: "apps" },
  stringData: { url },
});

/** The object as a watch of metadata only shows it: its version, no data. */
const seen = (resourceVersion?: string) => ({ metadata: { name: "llm-database", namespace: "apps", resourceVersion } });

describe("AppliedVersions (what this process applied last, at which version)", () => {
  it("holds for the same body while the object is at the version the apply left", () => {
    const applied = new AppliedVersions();
    applied.record(secret("postgresql://a"), "10");
    expect(applied.holds(secret("postgresql://a"), seen("10"))).toBe(true);
    // The same content, its keys in another order: the same body.
    const { stringData, ...rest } = secret("postgresql://a");
    expect(applied.holds({ stringData, ...rest }, seen("10"))).toBe(true);
  });

  it("does not hold for another body, another version, an object never applied, or no version known", () => {
    const applied = new AppliedVersions();
    applied.record(secret("postgresql://a"), "10");
    expect(applied.holds(secret("postgresql://b"), seen("10"))).toBe(false);
    // Written since by someone (or deleted and made again): another version.
    expect(applied.holds(secret("postgresql://a"), seen("11"))).toBe(false);
    expect(applied.holds(secret("postgresql://a"), seen(undefined))).toBe(false);
    expect(applied.holds(secret("postgresql://a"), undefined)).toBe(false);
    const other = { ...secret("postgresql://a"), metadata: { name: "other", namespace: "apps" } };
    expect(applied.holds(other, seen("10"))).toBe(false);
    // An apply whose answer said no version: nothing is known any more.
    applied.record(secret("postgresql://a"), undefined);
    expect(applied.holds(secret("postgresql://a"), seen("10"))).toBe(false);
  });

  it("forgets the longest unused object past its limit", () => {
    const applied = new AppliedVersions(2);
    const named = (name: string) => ({ ...secret("x"), metadata: { name, namespace: "apps" } });
    applied.record(named("a"), "1");
    applied.record(named("b"), "2");
    // "a" used again: "b" is now the longest unused.
    expect(applied.holds(named("a"), seen("1"))).toBe(true);
    applied.record(named("c"), "3");
    expect(applied.holds(named("b"), seen("2"))).toBe(false);
    expect(applied.holds(named("a"), seen("1"))).toBe(true);
    expect(applied.holds(named("c"), seen("3"))).toBe(true);
  });
});
