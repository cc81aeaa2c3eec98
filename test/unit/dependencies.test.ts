import { API_GROUP, API_GROUP_VERSION } from "../../lib/api/group.js";
import {
  DEPENDENCIES_READY,
  dependenciesOf,
  referenceCycle,
  refuseReferenceCycles,
  wiringLine,
  wiringOf,
} from "../../lib/engine/dependencies.js";
import type { EngineResource, KindModule } from "../../lib/engine/kind-module.js";
import { type PlanContext, planResource } from "../../lib/engine/plan.js";
import { reliedOn } from "../../lib/engine/preview.js";
import type { EngineView } from "../../lib/engine/view.js";
import { COMMUNITY_CAPS, communityEntitlements, type Entitlements } from "../../lib/licence/entitlements.js";
import { CONSUMER } from "../support/consumer-kind.js";
import { ownedCapability } from "../support/plans.js";

const context: PlanContext = { withPrerequisites: (name) => [name], releaseOf: (name) => ({ name, namespace: name }) };

function gateway(databaseRefValue: { name: string; namespace?: string }): EngineResource {
  return {
    apiVersion: API_GROUP_VERSION,
    kind: "ManagementPlane",
    metadata: { name: "gw", namespace: "apps", uid: "u-gw", generation: 1 },
    spec: { databaseRef: databaseRefValue },
    status: { conditions: [], admitted: true },
  };
}

const condition = (type: string, status: "True" | "False", message = "") => ({ type, status, reason: "R", message });

function postgres(conditions: object[], connection?: object) {
  return {
    apiVersion: API_GROUP_VERSION,
    kind: "PostgresCluster",
    metadata: { name: "shared", namespace: "apps" },
    status: { conditions, ...(connection ? { connection } : {}) },
  };
}
const CONNECTION = { host: "shared-rw.apps.svc", port: 5432, credentialsSecret: { name: "shared-credentials" } };

/** A licence with `auto-wiring`: the product wires each dependency from its target. */
const AUTO_WIRING: Entitlements = {
  edition: "Licensed",
  features: new Set(["auto-wiring"]),
  caps: COMMUNITY_CAPS,
  licenseId: "lic-wiring",
};

function view(dependencies?: Record<string, unknown>, extra: Partial<EngineView> = {}): EngineView {
  return {
    capabilities: [],
    consumers: [],
    objects: new Map(),
    licence: {
      entitlements: AUTO_WIRING,
      instances: [{ namespace: "apps", name: "gw", creationTimestamp: "2027-01-01T00:00:00Z", admitted: true }],
    },
    ...(dependencies ? { dependencies: dependencies as EngineView["dependencies"] } : {}),
    ...extra,
  };
}

const plan = (resource: EngineResource, v: EngineView, watchNamespaces?: string[]) =>
  planResource(CONSUMER, resource, v, { ...context, ...(watchNamespaces ? { watchNamespaces } : {}) });

describe("dependencies between the product's kinds", () => {
  it("applies nothing while the target is missing: DependenciesReady names the field, the target and what to do; one Warning", () => {
    const held = plan(gateway({ name: "shared" }), view());
    const message =
      "waiting for what it depends on: spec.databaseRef: PostgresCluster apps/shared does not exist: create it, or point spec.databaseRef at one that does. Nothing of it is applied until then";
    expect(held.steps).toEqual([]);
    expect(held.conditions.slice(0, 2)).toEqual([
      { type: "Ready", status: "False", reason: "DependencyMissing", message, observedGeneration: 1 },
      { type: DEPENDENCIES_READY, status: "False", reason: "DependencyMissing", message, observedGeneration: 1 },
    ]);
    expect(held.events).toEqual([{ type: "Warning", reason: "DependencyMissing", message }]);
    expect(held.requeue).toBe(true);
  });

  it.each([
    [
      "not Ready",
      postgres([condition("Ready", "False", "waiting for CNPG Cluster apps/shared to be Ready")]),
      "DependencyNotReady",
      "spec.databaseRef: PostgresCluster apps/shared is not Ready (waiting for CNPG Cluster apps/shared to be Ready)",
    ],
    [
      "Ready without its connection",
      postgres([condition("Ready", "True")]),
      "DependencyNotReady",
      "spec.databaseRef: PostgresCluster apps/shared publishes no status.connection yet",
    ],
    [
      "refused by the licence",
      postgres([condition("Ready", "False"), condition("Licensed", "False", "the cap is reached")]),
      "DependencyRefused",
      "spec.databaseRef: PostgresCluster apps/shared is refused by the licence: the cap is reached",
    ],
  ])("applies nothing while the target is %s, saying why", (_case, target, reason, problem) => {
    const held = plan(gateway({ name: "shared" }), view({ "spec.databaseRef": target }));
    expect(held.steps).toEqual([]);
    expect(held.conditions[1]).toMatchObject({
      type: DEPENDENCIES_READY,
      status: "False",
      reason,
      message: `waiting for what it depends on: ${problem}. Nothing of it is applied until then`,
    });
    // Waiting for a target to become Ready is no failure: no Event; missing or refused is one.
    expect(held.events.length).toBe(reason === "DependencyNotReady" ? 0 : 1);
  });

  // GIVEN a capability the resource's pass would install
  // WHEN the resource is held back by its dependency, then once the dependency is Ready
  // THEN the plan reaches its operators only then, and a preview relies on the capability only then: the
  //      operator installs nothing for a resource it holds back, so no front end may say it would
  it("reaches its operators only once its dependencies are Ready: before, a preview relies on no capability", () => {
    const install = ownedCapability("gizmo-operator", {
      state: "Absent",
      action: "install",
      ready: false,
      summary: "install gizmo-operator",
    });
    const waiting = view(undefined, { capabilities: [install] });
    const held = plan(gateway({ name: "shared" }), waiting);
    expect(held.reachesOperators).toBeUndefined();
    expect(reliedOn(held, waiting)).toEqual([]);
    const served = view(
      { "spec.databaseRef": postgres([condition("Ready", "True")], CONNECTION) },
      { capabilities: [install] },
    );
    const ready = plan(gateway({ name: "shared" }), served);
    expect(ready.reachesOperators).toBe(true);
    expect(reliedOn(ready, served)).toEqual([install]);
  });

  it("once the target is Ready with its connection: the desired state is applied, wired from it; DependenciesReady True", () => {
    const ready = plan(
      gateway({ name: "shared" }),
      view({ "spec.databaseRef": postgres([condition("Ready", "True")], CONNECTION) }),
    );
    expect(ready.steps.map((s) => (s as { object?: { data?: unknown } }).object?.data)).toEqual([
      { host: "shared-rw.apps.svc" },
    ]);
    expect(ready.conditions[1]).toMatchObject({
      type: DEPENDENCIES_READY,
      status: "True",
      message: "every dependency is Ready: PostgresCluster apps/shared (spec.databaseRef)",
    });
    expect(ready.conditions[0]).toMatchObject({ type: "Ready", status: "True" });
  });

  it("into another namespace only under a ReferenceGrant there: refused naming the grant, on DependenciesReady too", () => {
    const refused = plan(gateway({ name: "shared", namespace: "data" }), view(undefined, { referenceGrants: [] }));
    expect(refused.steps).toEqual([]);
    expect(refused.conditions[1]).toMatchObject({
      type: DEPENDENCIES_READY,
      status: "False",
      reason: "ReferenceNotPermitted",
    });
    expect(refused.conditions[1]?.message).toContain("spec.databaseRef");
    const granted = plan(
      gateway({ name: "shared", namespace: "data" }),
      view(
        { "spec.databaseRef": { ...postgres([condition("Ready", "True")], CONNECTION) } },
        {
          referenceGrants: [
            {
              namespace: "data",
              spec: {
                from: [{ group: API_GROUP, kind: "ManagementPlane", namespace: "apps" }],
                to: [{ group: API_GROUP, kind: "PostgresCluster" }],
              },
            },
          ],
        },
      ),
    );
    expect(granted.conditions[1]).toMatchObject({ type: DEPENDENCIES_READY, status: "True" });
    expect(granted.steps).toHaveLength(1);
  });

  it("a target outside the namespaces the operator serves: refused naming the flag, on DependenciesReady too", () => {
    const outside = plan(gateway({ name: "shared", namespace: "data" }), view(), ["apps"]);
    expect(outside.conditions[1]).toMatchObject({
      type: DEPENDENCIES_READY,
      status: "False",
      reason: "NamespaceNotWatched",
    });
    expect(outside.conditions[1]?.message).toContain('spec.databaseRef.namespace "data"');
  });

  it("refuses a dependency on a kind the module does not declare", () => {
    const undeclared = { ...CONSUMER, referencesKinds: [] } as unknown as KindModule;
    expect(() => dependenciesOf(undeclared, gateway({ name: "shared" }))).toThrow(
      "ManagementPlane depends on PostgresCluster (spec.databaseRef), which its referencesKinds does not declare",
    );
  });
});

describe("wiring a dependency, licensed or by hand", () => {
  const community = (dependencies?: Record<string, unknown>) => ({
    ...view(dependencies),
    licence: { ...view().licence, entitlements: communityEntitlements() },
  });
  const readyTarget = { "spec.databaseRef": postgres([condition("Ready", "True")], CONNECTION) };

  it("under a licence with auto-wiring: wired from the target", () => {
    const wired = plan(gateway({ name: "shared" }), view(readyTarget));
    expect(wired.steps.map((s) => (s as { object?: { data?: unknown } }).object?.data)).toEqual([
      { host: "shared-rw.apps.svc" },
    ]);
  });

  it("under Community, while the manual field is empty: nothing applied, Stalled, the condition names that exact field", () => {
    const held = plan(gateway({ name: "shared" }), community(readyTarget));
    expect(held.steps).toEqual([]);
    // Waiting cannot fill the field: Stalled, so that pulumi up stops on it and navique plan fails.
    expect(held.conditions.find((c) => c.type === "Stalled")).toMatchObject({
      status: "True",
      reason: "ManualWiringRequired",
    });
    expect(held.events.map((e) => [e.type, e.reason])).toEqual([["Warning", "ManualWiringRequired"]]);
    expect(held.conditions[1]).toMatchObject({
      type: DEPENDENCIES_READY,
      status: "False",
      reason: "ManualWiringRequired",
      message:
        "waiting for what it depends on: spec.databaseRef: PostgresCluster apps/shared is not auto-wired: the Community edition does not include auto-wiring. Set spec.databaseUrlSecretRef to wire it by hand, or ask your navique account contact for a licence that includes it, then apply it as the License named `navique`. Nothing of it is applied until then",
    });
  });

  it("under Community, once the user fills it: wired from the user's Secret, the target not waited for", () => {
    const spec = { databaseRef: { name: "shared" }, databaseUrlSecretRef: { name: "db-url", key: "url" } };
    const wired = plan({ ...gateway({ name: "shared" }), spec }, community());
    expect(wired.conditions[1]).toMatchObject({ type: DEPENDENCIES_READY, status: "True" });
    expect(wired.steps.map((s) => (s as { object?: { data?: unknown } }).object?.data)).toEqual([
      { urlSecret: "db-url" },
    ]);
  });

  it("says for each reference how it is wired, in the words navique plan and pulumi preview print", () => {
    const [dependency] = dependenciesOf(CONSUMER, gateway({ name: "shared" }));
    if (!dependency) throw new Error("no dependency");
    expect(wiringLine(dependency, wiringOf(dependency, AUTO_WIRING))).toBe(
      "spec.databaseRef → PostgresCluster apps/shared: auto-wired",
    );
    expect(wiringLine(dependency, wiringOf(dependency, communityEntitlements()))).toBe(
      "spec.databaseRef → PostgresCluster apps/shared: manual: set spec.databaseUrlSecretRef",
    );
    // Filled by the user, the manual field wins under any licence.
    const filled = { ...dependency, manual: { field: "spec.databaseUrlSecretRef", provided: true } };
    expect(wiringLine(filled, wiringOf(filled, AUTO_WIRING))).toBe(
      "spec.databaseRef → PostgresCluster apps/shared: manual: spec.databaseUrlSecretRef is set",
    );
  });
});

describe("cycles between the kinds' references", () => {
  const kind = (name: string, references: string[]) =>
    ({ definition: { kind: name }, referencesKinds: references }) as never;

  it("finds the cycle and names it; none among kinds that only point onwards", () => {
    const kinds = [
      kind("ChatUI", ["Gateway", "MongoCluster"]),
      kind("Gateway", ["PostgresCluster"]),
      kind("PostgresCluster", []),
    ];
    expect(referenceCycle(kinds)).toBeUndefined();
    expect(() => refuseReferenceCycles(kinds)).not.toThrow();
    const cyclic = [...kinds.slice(0, 2), kind("PostgresCluster", ["ChatUI"])];
    expect(referenceCycle(cyclic)).toEqual(["ChatUI", "Gateway", "PostgresCluster", "ChatUI"]);
    expect(() => refuseReferenceCycles(cyclic)).toThrow(
      "the kinds reference each other in a cycle, ChatUI → Gateway → PostgresCluster → ChatUI: each resource of it would wait for the other to be Ready",
    );
    expect(referenceCycle([kind("Gateway", ["Gateway"])])).toEqual(["Gateway", "Gateway"]);
  });
});
