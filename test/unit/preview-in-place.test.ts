import { changesNothing } from "../../lib/engine/in-place.js";
import type { KubeObject } from "../../lib/engine/objects.js";
import { specChanges } from "../../lib/engine/spec-changes.js";
import type { PlanStep } from "../../lib/engine/steps.js";
import type { EngineView } from "../../lib/engine/view.js";
import { communityEntitlements } from "../../lib/licence/entitlements.js";

function view(objects: readonly KubeObject[]): EngineView {
  return {
    capabilities: [],
    consumers: [],
    objects: new Map(objects.map((o) => [`${o.kind}/${o.metadata.namespace}/${o.metadata.name}`, o])),
    licence: { entitlements: communityEntitlements(), instances: [] },
  };
}

const cluster: KubeObject = {
  apiVersion: "postgresql.cnpg.io/v1",
  kind: "Cluster",
  metadata: { name: "db", namespace: "apps", labels: { "core.navique.com/owned-by": "apps.db" } },
  spec: { instances: 1, storage: { size: "10Gi" } },
};
const apply = (object: KubeObject): PlanStep => ({ kind: "apply", object, description: "apply" });
const release = (current: boolean): PlanStep => ({
  kind: "workload-release",
  object: { apiVersion: "helm.sh/release.v1", kind: "Release", metadata: { name: "search", namespace: "apps" } },
  workload: "meilisearch",
  values: {},
  current,
  description: current ? "Helm release apps/search is current" : "upgrade Helm release apps/search",
});

// What a preview leaves out: a step whose object is already as it would make it. The live objects carry
// what the apiserver and other managers add (defaults, status, managedFields, resourceVersion).
describe("a step that changes nothing", () => {
  const live = {
    ...cluster,
    metadata: { ...cluster.metadata, resourceVersion: "7", uid: "u", managedFields: [{ manager: "navique" }] },
    spec: { instances: 1, storage: { size: "10Gi", storageClass: "standard" }, logLevel: "info" },
    status: { phase: "Cluster in healthy state" },
  } as KubeObject;

  it.each([
    ["an apply of an object in place, beside what the server added", apply(cluster), [live], true],
    ["an apply of an object not there", apply(cluster), [], false],
    [
      "an apply that changes a field",
      apply({ ...cluster, spec: { instances: 3, storage: { size: "10Gi" } } }),
      [live],
      false,
    ],
    [
      "an apply that adds a label",
      apply({ ...cluster, metadata: { ...cluster.metadata, labels: { a: "b" } } }),
      [live],
      false,
    ],
    [
      "a Secret's stringData as stored (base64 data)",
      apply({
        apiVersion: "v1",
        kind: "Secret",
        metadata: { name: "s", namespace: "apps" },
        stringData: { password: "p" },
      }),
      [{ apiVersion: "v1", kind: "Secret", metadata: { name: "s", namespace: "apps" }, data: { password: "cA==" } }],
      true,
    ],
    [
      "a Secret whose value differs",
      apply({
        apiVersion: "v1",
        kind: "Secret",
        metadata: { name: "s", namespace: "apps" },
        stringData: { password: "q" },
      }),
      [{ apiVersion: "v1", kind: "Secret", metadata: { name: "s", namespace: "apps" }, data: { password: "cA==" } }],
      false,
    ],
    [
      "a generated Secret already there (never overwritten)",
      {
        kind: "generate-secret",
        object: { apiVersion: "v1", kind: "Secret", metadata: { name: "s", namespace: "apps" } },
        keys: { username: { fixed: "app" }, password: { length: 32, alphabet: "base64url" } },
        rotation: "",
        description: "",
      },
      [{ apiVersion: "v1", kind: "Secret", metadata: { name: "s", namespace: "apps" } }],
      true,
    ],
    [
      "a workload release its step found current (no helm run, no revision written)",
      release(true),
      [{ apiVersion: "helm.sh/release.v1", kind: "Release", metadata: { name: "search", namespace: "apps" } }],
      true,
    ],
    [
      "a workload release to upgrade",
      release(false),
      [{ apiVersion: "helm.sh/release.v1", kind: "Release", metadata: { name: "search", namespace: "apps" } }],
      false,
    ],
    [
      "a deletion",
      { kind: "delete", target: { apiVersion: "v1", kind: "Secret", name: "s", namespace: "apps" }, description: "" },
      [{ apiVersion: "v1", kind: "Secret", metadata: { name: "s", namespace: "apps" } }],
      false,
    ],
  ] as [string, PlanStep, KubeObject[], boolean][])("%s", (_case, step, objects, expected) => {
    expect(changesNothing(step, view(objects))).toBe(expected);
  });
});

describe("specChanges", () => {
  it("names each field that differs with its value before and after, whatever the key order", () => {
    const live = { mode: "managed", managed: { storage: { size: "10Gi" }, instances: 3 }, databases: [] };
    const desired = { managed: { instances: 1, storage: { size: "10Gi" } }, mode: "managed", databases: [] };
    expect(specChanges(live, desired)).toEqual(["spec.managed.instances from 3 to 1"]);
    expect(specChanges(desired, desired)).toEqual([]);
    expect(specChanges({ a: 1 }, { a: 1, b: { c: "x" } })).toEqual(['spec.b from unset to {"c":"x"}']);
  });
});
