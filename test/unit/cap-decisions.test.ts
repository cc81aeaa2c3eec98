import fc from "fast-check";
import { capDecisions, enforceCap, type Instance } from "../../lib/licence/enforce.js";
import { resolveEntitlements } from "../../lib/licence/resolve.js";

describe("capDecisions", () => {
  const community = resolveEntitlements(undefined, { now: new Date("2027-01-01T00:00:00Z") });
  const instance = fc.record({
    namespace: fc.constantFrom("a", "b", "a/b"),
    name: fc.constantFrom("x", "y", "b/x", "z"),
    creationTimestamp: fc.constantFrom("2027-01-01T00:01:00Z", "2027-01-01T00:02:00Z", "2027-01-01T00:03:00Z"),
    admitted: fc.boolean(),
  });

  it("decides for every subject exactly as enforceCap does, duplicates, ties and absent subjects included", () => {
    fc.assert(
      fc.property(
        fc.array(instance, { maxLength: 12 }),
        instance,
        fc.integer({ min: 0, max: 6 }),
        (instances: Instance[], stranger: Instance, cap) => {
          const entitlements = { ...community, caps: { ...community.caps, PostgresCluster: cap } };
          const decide = capDecisions(entitlements, "PostgresCluster", instances);
          for (const subject of [...instances, stranger]) {
            expect(decide(subject)).toEqual(enforceCap(entitlements, "PostgresCluster", instances, subject));
          }
        },
      ),
    );
  });

  it("refuses the instances beyond the cap with the number that comes before each", () => {
    const at = (minute: number) => `2027-01-01T00:0${minute}:00Z`;
    const instances: Instance[] = [
      { namespace: "t", name: "late", creationTimestamp: at(3), admitted: false },
      { namespace: "t", name: "early", creationTimestamp: at(1), admitted: false },
      { namespace: "t", name: "kept", creationTimestamp: at(4), admitted: true },
      { namespace: "t", name: "middle", creationTimestamp: at(2), admitted: false },
    ];
    const decide = capDecisions(community, "PostgresCluster", instances); // cap 2
    expect(instances.map((i) => decide(i).allowed)).toEqual([false, true, true, false]);
    expect(decide(instances[3] as Instance)).toMatchObject({
      reason: "InstanceCapExceeded",
      message: expect.stringContaining(
        "PostgresCluster t/middle is refused: the Community edition allows 2 PostgresCluster instance(s) and 2 come before it",
      ),
    });
  });
});
