import { OwnWrites } from "../../providers/operator/own-writes.js";

describe("OwnWrites", () => {
  it("takes a cached copy as current only once it holds the operator's last status write", () => {
    const writes = new OwnWrites();
    const key = "MeilisearchInstance/ns/ops";
    expect(writes.holds(key, "5")).toBe(true);
    writes.wrote(key, "120");
    // Older than the write (compared as numbers, not as strings: "99" sorts after "120").
    expect(writes.holds(key, "99")).toBe(false);
    expect(writes.holds(key, "119")).toBe(false);
    expect(writes.holds(key, undefined)).toBe(false);
    expect(writes.holds(key, "120")).toBe(true);
    // Caught up: forgotten, a later copy (another process's write) is current too.
    expect(writes.holds(key, "7")).toBe(true);
  });

  it("never trusts a resourceVersion that is not a decimal integer, until the resource is forgotten", () => {
    const writes = new OwnWrites();
    writes.wrote("Stack/ns/s", "abc");
    expect(writes.holds("Stack/ns/s", "abd")).toBe(false);
    writes.wrote("Stack/ns/t", "12");
    expect(writes.holds("Stack/ns/t", "x13")).toBe(false);
    writes.forget("Stack/ns/s");
    expect(writes.holds("Stack/ns/s", "abd")).toBe(true);
    expect(writes.holds("Stack/ns/t", "12")).toBe(true);
  });
});
