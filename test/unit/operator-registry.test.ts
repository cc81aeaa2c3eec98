import { REGISTRY } from "../../lib/kinds/registry.js";
import { watchedKinds } from "../../providers/operator/operator.js";
import { ReferenceIndex } from "../../providers/operator/reference-index.js";

describe("the operator's watches", () => {
  it("are generated from the registry: every kind in full, every watched emitted kind by its owned-by label, each once", () => {
    const watched = watchedKinds(REGISTRY.kinds);
    const ids = watched.map((w) => `${w.apiVersion}/${w.kind}`);
    expect(new Set(ids).size).toBe(ids.length);
    for (const module of REGISTRY.kinds) {
      expect(watched).toContainEqual({
        apiVersion: "core.navique.com/v1alpha1",
        kind: module.definition.kind,
        plural: module.definition.plural,
        ownedOnly: false,
      });
      for (const emitted of module.emits.filter((e) => e.watched)) {
        const watch = watched.find((w) => w.apiVersion === emitted.apiVersion && w.kind === emitted.kind);
        expect(watch?.plural).toBe(emitted.plural);
      }
    }
    // A Stack's members are PostgresClusters: that kind is watched once, in full, not also by label.
    expect(watched.filter((w) => w.kind === "PostgresCluster")).toEqual([
      {
        apiVersion: "core.navique.com/v1alpha1",
        kind: "PostgresCluster",
        plural: "postgresclusters",
        ownedOnly: false,
      },
    ]);
    // The plurals are the declared ones: a Redis is served under `redis`, never a guessed `rediss`.
    expect(watched.find((w) => w.kind === "Redis")).toMatchObject({ plural: "redis", ownedOnly: true });
  });
});

describe("the reverse index of references", () => {
  const reference = (namespace: string, kind: string, name: string) => ({
    field: "spec.adopt.ref",
    group: "g",
    kind,
    name,
    namespace,
  });

  it("finds the referrers of an object and of a namespace's grants, and forgets what a resource no longer references", () => {
    const index = new ReferenceIndex();
    index.set("PostgresCluster/apps/a", [reference("data", "Cluster", "shared"), reference("data", "Secret", "creds")]);
    index.set("RedisInstance/apps/b", [reference("cache", "Redis", "shared")]);
    expect(index.referring("Cluster/data/shared")).toEqual(["PostgresCluster/apps/a"]);
    expect(index.referringInto("data")).toEqual(["PostgresCluster/apps/a"]);
    expect(index.referringInto("cache")).toEqual(["RedisInstance/apps/b"]);
    index.set("PostgresCluster/apps/a", []);
    expect(index.referringInto("data")).toEqual([]);
    index.forget("RedisInstance/apps/b");
    expect(index.referring("Redis/cache/shared")).toEqual([]);
  });
});
