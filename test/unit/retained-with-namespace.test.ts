import { API_GROUP_VERSION } from "../../lib/api/group.js";
import { DELETION_POLICY_ANNOTATION } from "../../lib/engine/garbage.js";
import type { EngineResource, KindModule } from "../../lib/engine/kind-module.js";
import type { KubeObject } from "../../lib/engine/objects.js";
import { marked } from "../../lib/engine/ownership.js";
import { planResource } from "../../lib/engine/plan.js";
import {
  KEEPING_VOLUMES,
  type ObservedNamespace,
  previewWarning,
  RETAIN_LOST_WITH_NAMESPACE,
} from "../../lib/engine/retained-with-namespace.js";
import type { EngineView } from "../../lib/engine/view.js";
import { MEILISEARCH_INSTANCE_MODULE } from "../../lib/kinds/meilisearch-instance/module.js";
import { communityEntitlements } from "../../lib/licence/entitlements.js";

const module = MEILISEARCH_INSTANCE_MODULE as unknown as KindModule;
const NO_CAPABILITIES = {
  withPrerequisites: (name: string) => [name],
  releaseOf: (name: string) => ({ name, namespace: name }),
};

/** The MeilisearchInstance team-a/search, being deleted, as its status recorded what it emitted. */
function search(policy: "Retain" | "Delete", conditions: readonly unknown[] = []): EngineResource {
  return module.schema.parse({
    apiVersion: API_GROUP_VERSION,
    kind: "MeilisearchInstance",
    metadata: {
      name: "search",
      namespace: "team-a",
      uid: "u-search",
      generation: 1,
      deletionTimestamp: "2027-02-01T00:00:00Z",
    },
    spec: { managed: { deletionPolicy: policy } },
    status: {
      conditions,
      emitted: [
        { apiVersion: "v1", kind: "Secret", name: "search-master-key", namespace: "team-a" },
        { apiVersion: "v1", kind: "PersistentVolumeClaim", name: "search-data", namespace: "team-a" },
      ],
    },
  }) as EngineResource;
}

/** What the resource emitted, as it is in the cluster: its marks on each, the claim's deletion policy stamped. */
function emitted(resource: EngineResource, policy: "Retain" | "Delete"): Map<string, KubeObject> {
  const secret: KubeObject = {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: "search-master-key", namespace: "team-a" },
  };
  const claim: KubeObject = {
    apiVersion: "v1",
    kind: "PersistentVolumeClaim",
    metadata: { name: "search-data", namespace: "team-a", annotations: { [DELETION_POLICY_ANNOTATION]: policy } },
  };
  return new Map([
    ["Secret/team-a/search-master-key", marked(resource, secret)],
    ["PersistentVolumeClaim/team-a/search-data", marked(resource, claim)],
  ]);
}

function view(resource: EngineResource, policy: "Retain" | "Delete", namespace?: ObservedNamespace): EngineView {
  return {
    capabilities: [],
    consumers: [],
    objects: emitted(resource, policy),
    licence: {
      entitlements: communityEntitlements(),
      instances: [{ name: "search", namespace: "team-a", creationTimestamp: "2027-01-01T00:00:00Z", admitted: true }],
    },
    ...(namespace ? { namespace } : {}),
  };
}

const TERMINATING: ObservedNamespace = {
  name: "team-a",
  terminating: true,
  volumeClaims: [{ name: "other-data" }, { name: "search-data", volume: "pvc-7f3a" }],
};

const LOST = `namespace team-a is being deleted, and everything in it goes with it: Secret team-a/search-master-key, PersistentVolumeClaim team-a/search-data (volume pvc-7f3a), which deletionPolicy Retain keeps; the PersistentVolumeClaim(s) team-a/other-data (not bound). Retain keeps nothing in a namespace that goes. ${KEEPING_VOLUMES}`;

// deletionPolicy Retain keeps a datastore's objects in its namespace: a namespace deleted takes them all the
// same. The engine says so on the phase condition, Ready and a Warning Event when it finalizes a resource
// whose namespace is going, and on every DatastoreRetained Event.
describe("what Retain keeps, and its namespace", () => {
  it("GIVEN a resource under Retain whose namespace is being deleted WHEN it is finalized THEN its conditions and a Warning Event about the Namespace say what goes and how to keep the data, and its finalizer stays for this pass", () => {
    const resource = search("Retain");
    const plan = planResource(module, resource, view(resource, "Retain", TERMINATING), NO_CAPABILITIES);
    const [ready] = plan.conditions;
    expect(ready).toMatchObject({ type: "Ready", status: "False", reason: RETAIN_LOST_WITH_NAMESPACE, message: LOST });
    expect(plan.conditions.find((c) => c.type === "DatastoreReady")).toMatchObject({
      status: "False",
      reason: RETAIN_LOST_WITH_NAMESPACE,
      message: LOST,
    });
    // Not DatastoreRetained: nothing is kept.
    expect(plan.events).toEqual([
      {
        type: "Warning",
        reason: RETAIN_LOST_WITH_NAMESPACE,
        message: `MeilisearchInstance team-a/search: ${LOST}`,
        regarding: { apiVersion: "v1", kind: "Namespace", name: "team-a" },
      },
    ]);
    // The namespace refuses new objects, Events included: about the Namespace, the note holds what matters.
    expect(`MeilisearchInstance team-a/search: ${LOST}`.length).toBeLessThanOrEqual(1024);
    expect(plan.steps.map((s) => s.kind)).not.toContain("remove-finalizer");
    expect(plan.requeue).toBe(true);
  });

  it("GIVEN that said already WHEN the next pass runs THEN it says nothing more and removes the finalizer", () => {
    const reported = [
      { type: "Ready", status: "False", reason: RETAIN_LOST_WITH_NAMESPACE, message: LOST, observedGeneration: 1 },
      {
        type: "DatastoreReady",
        status: "False",
        reason: RETAIN_LOST_WITH_NAMESPACE,
        message: LOST,
        observedGeneration: 1,
      },
    ];
    const resource = search("Retain", reported);
    const plan = planResource(module, resource, view(resource, "Retain", TERMINATING), NO_CAPABILITIES);
    expect(plan.events.filter((e) => e.reason === RETAIN_LOST_WITH_NAMESPACE)).toEqual([]);
    expect(plan.steps.map((s) => s.kind)).toContain("remove-finalizer");
    expect(plan.requeue).toBe(false);
  });

  it("GIVEN a namespace that stays WHEN a resource under Retain is deleted THEN DatastoreRetained says where what it kept stays, and that it goes with that namespace", () => {
    const resource = search("Retain");
    const plan = planResource(
      module,
      resource,
      view(resource, "Retain", { name: "team-a", terminating: false, volumeClaims: [] }),
      NO_CAPABILITIES,
    );
    expect(plan.events.map((e) => [e.reason, e.message])).toEqual([
      [
        "DatastoreRetained",
        "PersistentVolumeClaim team-a/search-data may hold data and was kept (deletionPolicy Retain) (MeilisearchInstance team-a/search deleted), with its master key Secret team-a/search-master-key; they are released to you and no longer managed: dump its data and delete them yourself when safe. Deleting namespace team-a deletes them all the same, and the data on their volumes unless their PersistentVolumes' reclaim policy is Retain",
      ],
    ]);
    expect(plan.conditions[0]).toMatchObject({ reason: "Deleting" });
    expect(plan.steps.map((s) => s.kind)).toContain("remove-finalizer");
  });

  it("GIVEN deletionPolicy Delete WHEN its namespace is being deleted THEN nothing is said of Retain: the data was to go", () => {
    const resource = search("Delete");
    const plan = planResource(module, resource, view(resource, "Delete", TERMINATING), NO_CAPABILITIES);
    expect(plan.conditions[0]).toMatchObject({ reason: "Deleting" });
    expect(plan.events.map((e) => e.reason)).not.toContain(RETAIN_LOST_WITH_NAMESPACE);
    expect(plan.steps.map((s) => s.kind)).toContain("remove-finalizer");
  });

  it("a preview warns of what Retain would keep in a namespace deleted with the resource, and of nothing when Retain keeps nothing", () => {
    const resource = search("Retain");
    const claim = { label: "PersistentVolumeClaim", name: "search-data" };
    const namespace = { deletedBy: "a Namespace resource of this program", keep: "keep it" };
    expect(previewWarning(resource, [claim], namespace)).toBe(
      "MeilisearchInstance team-a/search: deletionPolicy Retain keeps PersistentVolumeClaim team-a/search-data when it is deleted, but not when its namespace is: namespace team-a is a Namespace resource of this program: deleting it deletes everything in it, the data on the volumes of its claims included unless their PersistentVolumes' reclaim policy is Retain. If the data must outlive it, keep it",
    );
    expect(previewWarning(resource, [], namespace)).toBeUndefined();
  });
});
