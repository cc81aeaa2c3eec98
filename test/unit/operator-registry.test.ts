import { watchedAs } from "../../lib/engine/workload-release.js";
import { REGISTRY } from "../../lib/kinds/registry.js";
import { watchedKinds } from "../../providers/operator/operator.js";
import { ReferenceIndex } from "../../providers/operator/reference-index.js";
import { ReverseIndex } from "../../providers/operator/reverse-index.js";

describe("the operator's watches", () => {
  it("are generated from the registry: every kind in full, every emitted kind by its owned-by label, each once", () => {
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
      // A workload release is watched through its records (lib/engine/workload-release.ts watchedAs).
      for (const emitted of module.emits.map(watchedAs)) {
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
    // The objects whose drift came back only at the resync while they were not watched.
    expect(watched.filter((w) => w.ownedOnly).map((w) => `${w.apiVersion}/${w.kind}`)).toEqual(
      expect.arrayContaining(["v1/Secret", "postgresql.cnpg.io/v1/Database", "postgresql.cnpg.io/v1/Cluster"]),
    );
  });
});

describe("the reverse index of references", () => {
  const reference = (namespace: string, kind: string, name: string, group = "g") => ({
    field: "spec.adopt.ref",
    group,
    kind,
    name,
    namespace,
  });

  it("finds the referrers of an object and of a namespace's grants, and forgets what a resource no longer references", () => {
    const index = new ReferenceIndex();
    index.set("PostgresCluster/apps/a", [reference("data", "Cluster", "shared"), reference("data", "Secret", "creds")]);
    index.set("RedisInstance/apps/b", [reference("cache", "Redis", "shared")]);
    expect(index.referring("g/Cluster/data/shared")).toEqual(["PostgresCluster/apps/a"]);
    // Keyed by group too: a Cluster of another API group is another object, with other referrers.
    expect(index.referring("other.example.com/Cluster/data/shared")).toEqual([]);
    expect(index.referringInto("data")).toEqual(["PostgresCluster/apps/a"]);
    expect(index.referringInto("cache")).toEqual(["RedisInstance/apps/b"]);
    index.set("PostgresCluster/apps/a", []);
    expect(index.referringInto("data")).toEqual([]);
    index.forget("RedisInstance/apps/b");
    expect(index.referring("g/Redis/cache/shared")).toEqual([]);
  });
});

describe("a keyed reverse index", () => {
  it("finds the holders of a target by key, replaces what a holder points at, and forgets a holder everywhere", () => {
    const index = new ReverseIndex();
    index.set("PostgresCluster/apps/a", ["cert-manager", "cloudnative-pg", "cert-manager"]);
    index.set("RedisInstance/apps/b", ["redis-operator"]);
    index.set("PostgresCluster/apps/c", ["cert-manager", "cloudnative-pg"]);
    expect(index.holders("cloudnative-pg")).toEqual(["PostgresCluster/apps/a", "PostgresCluster/apps/c"]);
    index.set("PostgresCluster/apps/a", ["redis-operator"]);
    expect(index.holders("cloudnative-pg")).toEqual(["PostgresCluster/apps/c"]);
    expect(index.holders("redis-operator")).toEqual(["RedisInstance/apps/b", "PostgresCluster/apps/a"]);
    index.forget("PostgresCluster/apps/c");
    index.set("RedisInstance/apps/b", []);
    expect(index.holders("cloudnative-pg")).toEqual([]);
    expect(index.holders("cert-manager")).toEqual([]);
    expect(index.holders("redis-operator")).toEqual(["PostgresCluster/apps/a"]);
  });
});
