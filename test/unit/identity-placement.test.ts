import { litellmPlacement, placedNameOf } from "../../lib/kinds/identity/placement.js";
import { sameGatewayDependency } from "../../lib/kinds/identity/schema-parts.js";

const identity = (namespace: string, name: string, gatewayRef: { name: string; namespace?: string }) => ({
  kind: "User",
  metadata: { namespace, name },
  spec: { gatewayRef },
});

describe("where an identity's LiteLLM object sits", () => {
  it("beside a Gateway of its own namespace: there, under the identity's own name", () => {
    expect(litellmPlacement(identity("platform", "ada", { name: "llm" }))).toEqual({
      namespace: "platform",
      name: "ada",
    });
    expect(litellmPlacement(identity("platform", "ada", { name: "llm", namespace: "platform" }))).toEqual({
      namespace: "platform",
      name: "ada",
    });
  });

  it("beside a Gateway of another namespace: in the gateway's namespace as <namespace>.<name>", () => {
    expect(litellmPlacement(identity("apps", "ada", { name: "llm", namespace: "platform" }))).toEqual({
      namespace: "platform",
      name: "apps.ada",
    });
    // A namespace holds no dot: names that would read alike once joined with '-' stay apart.
    const a = litellmPlacement(identity("a-b", "c", { name: "llm", namespace: "gw" })).name;
    const b = litellmPlacement(identity("a", "b-c", { name: "llm", namespace: "gw" })).name;
    expect(a).not.toBe(b);
  });

  it("past 253 characters: cut, ended with a digest of the whole, still a valid name, and two such never equal", () => {
    const long = (end: string) => `${"x".repeat(240)}.-${end}`;
    const first = litellmPlacement(identity("apps-team-one", long("a"), { name: "llm", namespace: "platform" })).name;
    const second = litellmPlacement(identity("apps-team-one", long("b"), { name: "llm", namespace: "platform" })).name;
    expect(first).toHaveLength(253);
    expect(first).toMatch(/^apps-team-one\.x+-[0-9a-f]{8}$/);
    expect(second).not.toBe(first);
  });

  it("the Team a User joins is named as that Team's own object is", () => {
    const user = identity("apps", "ada", { name: "llm", namespace: "platform" });
    const team = { ...identity("apps", "search", { name: "llm", namespace: "platform" }), kind: "Team" };
    expect(placedNameOf(user, "search")).toBe(litellmPlacement(team).name);
  });
});

describe("an identity's dependency on another of the same Gateway", () => {
  const user = identity("apps", "ada", { name: "llm", namespace: "platform" });
  const dependency = sameGatewayDependency(user, { field: "spec.teams[0].name", kind: "Team", name: "search" });
  const team = (gatewayRef: { name: string; namespace?: string }) => ({
    apiVersion: "core.navique.com/v1alpha1",
    kind: "Team",
    metadata: { name: "search", namespace: "apps" },
    spec: { gatewayRef },
  });

  it("fits a target of the same Gateway, whether its namespace is written or implied", () => {
    expect(dependency.fits?.(team({ name: "llm", namespace: "platform" }))).toBeUndefined();
    const local = identity("platform", "ada", { name: "llm" });
    const sameNamespace = sameGatewayDependency(local, { field: "spec.teams[0].name", kind: "Team", name: "search" });
    expect(
      sameNamespace.fits?.({
        ...team({ name: "llm", namespace: "platform" }),
        metadata: { name: "search", namespace: "platform" },
      }),
    ).toBeUndefined();
    expect(
      sameNamespace.fits?.({ ...team({ name: "llm" }), metadata: { name: "search", namespace: "platform" } }),
    ).toBeUndefined();
  });

  it("does not fit a target of another Gateway, saying both and what to do", () => {
    expect(dependency.fits?.(team({ name: "llm" }))).toBe(
      "is of Gateway apps/llm, not of this User's Gateway platform/llm: LiteLLM keeps each gateway's identities apart. Point both spec.gatewayRef at the same Gateway",
    );
    expect(dependency.fits?.(team({ name: "other", namespace: "platform" }))).toContain("is of Gateway platform/other");
  });
});
