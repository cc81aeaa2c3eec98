import { applyChangesNothing, lastApplied } from "../../lib/engine/applied-fields.js";
import { changesNothing } from "../../lib/engine/in-place.js";
import type { EngineView } from "../../lib/engine/view.js";

const MANAGER = "navique";

/** A LiteLLMModel as the product applies it: labels, an owner reference, an atomic list, a map. */
const desired = {
  apiVersion: "litellm.example.com/v1alpha1",
  kind: "LiteLLMModel",
  metadata: {
    name: "llm-gpt",
    namespace: "apps",
    labels: { "core.navique.com/owned-by": "gateway.apps.llm", tier: "gold" },
    ownerReferences: [{ apiVersion: "core.navique.com/v1alpha1", kind: "Gateway", name: "llm", uid: "u-1" }],
  },
  spec: { model: "gpt-4o", params: { temperature: 1 }, tags: ["a", "b"] },
};

/** The FieldsV1 set the apiserver records for that apply (list-map ownerReferences keyed by uid). */
const appliedSet = {
  "f:metadata": {
    "f:labels": { "f:core.navique.com/owned-by": {}, "f:tier": {} },
    "f:ownerReferences": {
      'k:{"uid":"u-1"}': {},
    },
  },
  "f:spec": { "f:model": {}, "f:params": { "f:temperature": {} }, "f:tags": {} },
};

/** The object as stored: what was applied, plus what others wrote (a default, status, another label). */
function live(overrides: { set?: unknown; spec?: object; labels?: object; entries?: object[] } = {}) {
  return {
    apiVersion: desired.apiVersion,
    kind: desired.kind,
    metadata: {
      name: "llm-gpt",
      namespace: "apps",
      uid: "m-1",
      resourceVersion: "42",
      labels: { ...desired.metadata.labels, team: "ml", ...overrides.labels },
      ownerReferences: desired.metadata.ownerReferences,
      managedFields: overrides.entries ?? [
        {
          manager: MANAGER,
          operation: "Apply",
          apiVersion: desired.apiVersion,
          fieldsType: "FieldsV1",
          fieldsV1: overrides.set ?? appliedSet,
        },
        {
          manager: "kubectl-label",
          operation: "Update",
          apiVersion: "v1",
          fieldsType: "FieldsV1",
          fieldsV1: { "f:metadata": { "f:labels": { "f:team": {} } } },
        },
      ],
    },
    spec: { ...desired.spec, replicas: 1, ...overrides.spec },
    status: { ready: true },
  };
}

describe("applyChangesNothing (what the product's field manager last applied)", () => {
  it("is true when the desired object is what the manager applied, whatever others added", () => {
    expect(applyChangesNothing(desired, live(), MANAGER)).toBe(true);
    expect(lastApplied(live(), MANAGER, desired.apiVersion)).toEqual({
      metadata: { labels: desired.metadata.labels, ownerReferences: desired.metadata.ownerReferences },
      spec: desired.spec,
    });
  });

  // GIVEN a field the product applied before and no longer desires, still on the object
  // WHEN it is asked whether the apply would change anything
  // THEN it would: the apply removes the field. A subset check ("the object holds every desired field")
  //      says otherwise, which is why skipping is never judged that way.
  it("is false when a field was removed from the desired state, though the object holds every desired field", () => {
    const { tier: _tier, ...labels } = desired.metadata.labels;
    const withoutLabel = { ...desired, metadata: { ...desired.metadata, labels } };
    const { params: _params, ...spec } = desired.spec;
    const withoutParams = { ...desired, spec };
    for (const smaller of [withoutLabel, withoutParams]) {
      expect(applyChangesNothing(smaller, live(), MANAGER)).toBe(false);
      const view = { objects: new Map([[`LiteLLMModel/apps/llm-gpt`, live()]]) } as unknown as EngineView;
      expect(changesNothing({ kind: "apply", object: smaller as never, description: "" }, view)).toBe(true);
    }
  });

  it("is false when a field or a list member is added, or a value differs", () => {
    const added = { ...desired, spec: { ...desired.spec, fallback: "gpt-4o-mini" } };
    const longer = { ...desired, spec: { ...desired.spec, tags: ["a", "b", "c"] } };
    const changed = { ...desired, spec: { ...desired.spec, params: { temperature: 0.5 } } };
    const otherOwner = {
      ...desired,
      metadata: { ...desired.metadata, ownerReferences: [{ ...desired.metadata.ownerReferences[0], uid: "u-2" }] },
    };
    for (const other of [added, longer, changed, otherOwner]) {
      expect(applyChangesNothing(other, live(), MANAGER)).toBe(false);
    }
  });

  // A writer that changes a field the product applied takes it over: the field leaves the product's set.
  it("is false when another writer changed a field the product had applied (it left the manager's set)", () => {
    const { "f:model": _model, ...specSet } = appliedSet["f:spec"];
    const edited = live({ set: { ...appliedSet, "f:spec": specSet }, spec: { model: "gpt-3.5" } });
    expect(applyChangesNothing(desired, edited, MANAGER)).toBe(false);
  });

  it("is false when it cannot be known: no object, no Apply entry of the manager, another version, a path gone", () => {
    expect(applyChangesNothing(desired, undefined, MANAGER)).toBe(false);
    expect(applyChangesNothing(desired, live(), "someone-else")).toBe(false);
    const updateOnly = live({
      entries: [{ manager: MANAGER, operation: "Update", apiVersion: desired.apiVersion, fieldsV1: appliedSet }],
    });
    expect(applyChangesNothing(desired, updateOnly, MANAGER)).toBe(false);
    const otherVersion = live({
      entries: [{ manager: MANAGER, operation: "Apply", apiVersion: "litellm.example.com/v1", fieldsV1: appliedSet }],
    });
    expect(applyChangesNothing(desired, otherVersion, MANAGER)).toBe(false);
    const statusOnly = live({
      entries: [{ manager: MANAGER, operation: "Apply", apiVersion: desired.apiVersion, subresource: "status" }],
    });
    expect(applyChangesNothing(desired, statusOnly, MANAGER)).toBe(false);
    const gone = live({ set: { ...appliedSet, "f:spec": { ...appliedSet["f:spec"], "f:vanished": {} } } });
    expect(applyChangesNothing(desired, gone, MANAGER)).toBe(false);
    const unknownKey = live({ set: { ...appliedSet, "f:spec": { ...appliedSet["f:spec"], "x:odd": {} } } });
    expect(applyChangesNothing(desired, unknownKey, MANAGER)).toBe(false);
  });

  it("reads set members (v:) and indexed members (i:) of a list, in the list's order", () => {
    const withSet = { ...desired, spec: { ...desired.spec, tags: ["a", "b"] } };
    const setMembers = { ...appliedSet, "f:spec": { ...appliedSet["f:spec"], "f:tags": { 'v:"a"': {}, 'v:"b"': {} } } };
    expect(applyChangesNothing(withSet, live({ set: setMembers }), MANAGER)).toBe(true);
    // Another writer added "z" to the set: not the product's, not compared.
    expect(applyChangesNothing(withSet, live({ set: setMembers, spec: { tags: ["a", "z", "b"] } }), MANAGER)).toBe(
      true,
    );
    // The product no longer wants "b": the apply removes it.
    expect(
      applyChangesNothing({ ...desired, spec: { ...desired.spec, tags: ["a"] } }, live({ set: setMembers }), MANAGER),
    ).toBe(false);
    const indexed = { ...appliedSet, "f:spec": { ...appliedSet["f:spec"], "f:tags": { "i:0": {}, "i:1": {} } } };
    expect(applyChangesNothing(withSet, live({ set: indexed }), MANAGER)).toBe(true);
  });
});

// A Secret's stringData is written, never stored: the apiserver records the manager's `f:stringData`
// keys, and a read returns them in `data`, base64 — where the comparison reads them.
describe("applyChangesNothing of a Secret written with stringData", () => {
  const secret = {
    apiVersion: "v1",
    kind: "Secret",
    type: "Opaque",
    metadata: { name: "llm-database", namespace: "apps", labels: { "core.navique.com/owned-by": "gateway.apps.llm" } },
    stringData: { url: "postgresql://u:p@db:5432/app" },
  };
  const set = {
    "f:metadata": { "f:labels": { "f:core.navique.com/owned-by": {} } },
    "f:stringData": { "f:url": {} },
    "f:type": {},
  };
  const stored = (data: Record<string, string> | undefined, fieldsV1: object = set) => ({
    apiVersion: "v1",
    kind: "Secret",
    type: "Opaque",
    metadata: {
      ...secret.metadata,
      resourceVersion: "7",
      managedFields: [{ manager: MANAGER, operation: "Apply", apiVersion: "v1", fieldsType: "FieldsV1", fieldsV1 }],
    },
    ...(data ? { data } : {}),
  });
  const base64 = (text: string) => Buffer.from(text, "utf8").toString("base64");

  it("is true when data holds what stringData said, and false when a value differs", () => {
    expect(applyChangesNothing(secret, stored({ url: base64(secret.stringData.url) }), MANAGER)).toBe(true);
    expect(lastApplied(stored({ url: base64("x") }), MANAGER, "v1", "Secret")).toEqual({
      metadata: { labels: secret.metadata.labels },
      data: { url: base64("x") },
      type: "Opaque",
    });
    expect(applyChangesNothing(secret, stored({ url: base64("postgresql://u:rotated@db:5432/app") }), MANAGER)).toBe(
      false,
    );
    // A key the product no longer writes is removed by the apply.
    const fewer = { ...secret, stringData: {} };
    expect(applyChangesNothing(fewer, stored({ url: base64(secret.stringData.url) }), MANAGER)).toBe(false);
  });

  it("is false when the Secret is seen without its data (a watch of metadata only)", () => {
    expect(applyChangesNothing(secret, stored(undefined), MANAGER)).toBe(false);
  });

  it("reads keys written in data and in stringData alike", () => {
    const both = { ...secret, data: { ca: base64("pem") } };
    const bothSet = { ...set, "f:data": { "f:ca": {} } };
    const data = { url: base64(secret.stringData.url), ca: base64("pem") };
    expect(applyChangesNothing(both, stored(data, bothSet), MANAGER)).toBe(true);
    expect(applyChangesNothing(both, stored({ ...data, ca: base64("other") }, bothSet), MANAGER)).toBe(false);
  });
});
