import * as cdk8sConstructs from "../../constructs/index.js";
import { customResourceDefinition } from "../../lib/api/crd.js";
import { API_GROUP_VERSION, OWNED_BY_LABEL } from "../../lib/api/group.js";
import { workload } from "../../lib/catalog/catalog.js";
import { cappedKind } from "../../lib/engine/admission.js";
import { referenceCycle } from "../../lib/engine/dependencies.js";
import type { EngineResource, KindModule } from "../../lib/engine/kind-module.js";
import { NOT_IMPLEMENTED } from "../../lib/engine/not-implemented.js";
import { emittedOf, type KubeObject, keyOf } from "../../lib/engine/objects.js";
import { type PlanContext, planResource } from "../../lib/engine/plan.js";
import type { PlanStep } from "../../lib/engine/steps.js";
import type { EngineView } from "../../lib/engine/view.js";
import { watchedAs } from "../../lib/engine/workload-release.js";
import { allDefinitions, REGISTRY } from "../../lib/kinds/registry.js";
import { COMMUNITY_CAPS, type Entitlements } from "../../lib/licence/entitlements.js";
import { watchedKinds } from "../../providers/operator/operator.js";
import * as pulumiComponents from "../../providers/pulumi/index.js";
import { KIND_SAMPLES, minimalSpec } from "../support/kind-samples.js";
import { ownedCapability } from "../support/plans.js";

// Contract tests that run for every registered kind: a kind added to the registry is held to them
// without a line of its own here (ENGINE.md, "Tests that come with the registry").

const context: PlanContext = {
  withPrerequisites: (name) => (name === "cloudnative-pg" ? ["cert-manager", "cloudnative-pg"] : [name]),
  releaseOf: (name) => ({ name, namespace: name }),
};

/** Caps that differ from Community's for every kind, and every feature: what passes here passes by the licence's word. */
const licensed: Entitlements = {
  edition: "Licensed",
  features: new Set(["stack", "auto-wiring", "identities"]),
  caps: Object.fromEntries(Object.keys(COMMUNITY_CAPS).map((k) => [k, 7])) as Entitlements["caps"],
  licenseId: "lic-contract",
};

function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const member of value instanceof Map ? [...value.values()] : Object.values(value)) deepFreeze(member);
  }
  return value;
}

/**
 * A resource of the kind: by default with its schema's defaults — the spec any user gets by writing
 * nothing —, or with `spec`, one of its samples.
 */
function sample(
  module: KindModule,
  extra: Record<string, unknown> = {},
  status?: unknown,
  spec: unknown = defaultSpec(module),
): EngineResource {
  return module.schema.parse({
    apiVersion: API_GROUP_VERSION,
    kind: module.definition.kind,
    metadata: { name: "sample", namespace: "team", uid: "uid-sample", generation: 3, ...extra },
    spec: module.definition.spec.parse(spec),
    ...(status ? { status } : {}),
  });
}

function samplesOf(module: KindModule): readonly Record<string, unknown>[] {
  return (KIND_SAMPLES as Readonly<Record<string, readonly Record<string, unknown>[]>>)[module.definition.kind] ?? [];
}

function defaultSpec(module: KindModule): unknown {
  return minimalSpec(module.definition.kind);
}

/** The kind's samples (test/support/kind-samples.ts): its defaults, then one spec per mode, each labelled. */
function everyMode(module: KindModule): [string, EngineResource][] {
  const specs = samplesOf(module);
  return [
    ["defaults", sample(module)],
    ...specs.map((spec, i): [string, EngineResource] => [
      `sample ${i + 1} (${String(spec.mode ?? "its one mode")})`,
      sample(module, {}, undefined, spec),
    ]),
  ];
}

/** Every capability it needs, Owned and Ready: the view in which its desired state is planned. */
function readyView(module: KindModule, resource: EngineResource, objects = new Map<string, KubeObject>()): EngineView {
  const capabilities = module
    .needs(resource)
    .flatMap((root) => context.withPrerequisites(root))
    .map((capability) => ownedCapability(capability));
  return {
    capabilities,
    consumers: [],
    objects,
    licence: {
      entitlements: licensed,
      instances: [{ namespace: "team", name: "sample", creationTimestamp: "2027-01-01T00:00:00Z", admitted: false }],
    },
  };
}

/** The objects a plan's steps make: applied, generated, and the workload releases (as their pseudo-objects). */
function madeBy(steps: readonly PlanStep[]): KubeObject[] {
  return steps.flatMap((s) =>
    s.kind === "apply" || s.kind === "generate-secret" || s.kind === "workload-release" ? [s.object] : [],
  );
}

/**
 * The objects a first pass made, as live objects carrying (or not) the resource's marks; a workload
 * release as helm's record of it says it is, deployed with the step's values.
 */
function liveCopies(plan: ReturnType<typeof planResource>, marked: boolean): Map<string, KubeObject> {
  const objects = new Map<string, KubeObject>();
  for (const step of plan.steps) {
    if (step.kind !== "apply" && step.kind !== "generate-secret" && step.kind !== "workload-release") continue;
    const { labels, annotations, ...metadata } = step.object.metadata;
    const object = marked ? step.object : { ...step.object, metadata: { ...metadata, labels: {} } };
    objects.set(
      keyOf(step.object),
      step.kind === "workload-release"
        ? {
            ...object,
            spec: { chart: { ...workload(step.workload).chart }, values: step.values },
            status: { revision: 1, status: "deployed", workloads: [] },
          }
        : object,
    );
  }
  return objects;
}

const kinds = REGISTRY.kinds.map((module) => [module.definition.kind, module] as const);

describe.each(kinds)("the registered kind %s", (_kind, module) => {
  it("has a structural, described CRD", () => {
    const crd = customResourceDefinition(module.definition);
    const schema = crd.spec.versions[0]?.schema.openAPIV3Schema;
    const text = JSON.stringify(schema);
    expect(text).not.toContain('"additionalProperties":false');
    expect(text).not.toContain('"anyOf"');
    expect(text).not.toContain('"const"');
    const undocumented: string[] = [];
    const walk = (node: Record<string, unknown>, path: string) => {
      for (const [name, child] of Object.entries((node.properties ?? {}) as Record<string, Record<string, unknown>>)) {
        if (typeof child.description !== "string" || child.description.length === 0)
          undocumented.push(`${path}.${name}`);
        walk(child, `${path}.${name}`);
        if (child.items) walk(child.items as Record<string, unknown>, `${path}.${name}[]`);
      }
    };
    walk(schema?.properties.spec as Record<string, unknown>, "spec");
    expect(undocumented).toEqual([]);
  });

  it("is capped by the licence", () => {
    expect(cappedKind(module.definition.kind)).toBe(module.definition.kind);
  });

  it("has a sample of every mode its schema declares (test/support/kind-samples.ts)", () => {
    const spec = customResourceDefinition(module.definition).spec.versions[0]?.schema.openAPIV3Schema.properties
      .spec as { properties?: { mode?: { enum?: string[] } } };
    const modes = spec.properties?.mode?.enum ?? [];
    const sampled = everyMode(module).map(([, resource]) => (resource.spec as { mode?: string }).mode);
    expect(everyMode(module).length).toBeGreaterThan(1);
    for (const mode of modes) expect([mode, sampled.includes(mode)]).toEqual([mode, true]);
  });

  it("declares a plural for every kind it emits, and emits nothing it does not declare, in every mode", () => {
    for (const emitted of module.emits) expect(emitted.plural).toMatch(/^[a-z][a-z0-9]*$/);
    const declared = module.emits.map((e) => `${e.apiVersion} ${e.kind}`);
    for (const [label, resource] of everyMode(module)) {
      const plan = planResource(module, resource, readyView(module, resource), context);
      for (const step of plan.steps) {
        if (step.kind !== "apply" && step.kind !== "generate-secret" && step.kind !== "workload-release") continue;
        const emitted = `${step.object.apiVersion} ${step.object.kind}`;
        expect([label, emitted, declared.includes(emitted)]).toEqual([label, emitted, true]);
      }
    }
  });

  it("has every kind its plans emit watched by the operator, so that their drift is corrected at once", () => {
    const watched = watchedKinds(REGISTRY.kinds).map((w) => `${w.apiVersion} ${w.kind}`);
    const watchedAsText = (kind: { apiVersion: string; kind: string }) => {
      const as = watchedAs({ ...kind, plural: "" });
      return `${as.apiVersion} ${as.kind}`;
    };
    for (const emitted of module.emits) expect(watched).toContain(watchedAsText(emitted));
    const resource = sample(module);
    const plan = planResource(module, resource, readyView(module, resource), context);
    for (const object of madeBy(plan.steps)) expect(watched).toContain(watchedAsText(object));
  });

  it("plans purely in every mode: deep-frozen inputs, the same plan twice", () => {
    for (const [label, planned] of everyMode(module)) {
      const resource = deepFreeze(planned);
      const view = deepFreeze(readyView(module, resource));
      const first = planResource(module, resource, view, context);
      expect([label, planResource(module, resource, view, context)]).toEqual([label, first]);
    }
  });

  it("marks everything it applies as its own, and records it in status.emitted, in every mode", () => {
    for (const [label, resource] of everyMode(module)) {
      const plan = planResource(module, resource, readyView(module, resource), context);
      const made = madeBy(plan.steps);
      for (const object of made) {
        expect([label, object.metadata.labels?.[OWNED_BY_LABEL]]).toEqual([
          label,
          `${module.definition.kind.toLowerCase()}.team.sample`,
        ]);
        expect([label, object.metadata.annotations?.["core.navique.com/owner"]]).toEqual([
          label,
          `${module.definition.kind}/team/sample`,
        ]);
      }
      expect([label, (plan.status as { emitted: unknown[] }).emitted]).toEqual([label, made.map(emittedOf)]);
    }
  });

  it("refused by the licence, plans no step at all", () => {
    const resource = sample(module);
    const view = readyView(module, resource);
    const noRoom: Entitlements = { ...licensed, caps: { ...licensed.caps, [module.definition.kind]: 0 } };
    const plan = planResource(
      module,
      resource,
      { ...view, licence: { ...view.licence, entitlements: noRoom } },
      context,
    );
    expect(plan.refusal?.reason).toBe("InstanceCapExceeded");
    expect(plan.steps).toEqual([]);
  });

  it("declares the backend types its schema accepts; each one not implemented is refused with NotImplemented", () => {
    const { types } = module;
    if (!types) {
      expect(module.definition.spec.safeParse({ type: "any" }).success).toBe(false);
      return;
    }
    for (const type of types.declared) expect(module.definition.spec.safeParse({ type }).success).toBe(true);
    expect(module.definition.spec.safeParse({ type: "undeclared" }).success).toBe(false);
    expect(types.implemented.filter((type) => !types.declared.includes(type))).toEqual([]);
    for (const type of types.declared) {
      const resource = module.schema.parse({ ...sample(module), spec: module.definition.spec.parse({ type }) });
      const { verdict, steps } = module.desired(resource, readyView(module, resource));
      if (types.implemented.includes(type)) {
        expect(verdict.reason).not.toBe(NOT_IMPLEMENTED);
        continue;
      }
      expect(steps).toEqual([]);
      expect(verdict).toEqual({
        ok: false,
        reason: NOT_IMPLEMENTED,
        message: `spec.type ${type} is not implemented yet; use ${types.instead}`,
        stalled: true,
      });
    }
  });

  it("on deletion never touches an object that does not carry its mark, and removes its finalizer last", () => {
    const created = sample(module);
    const first = planResource(module, created, readyView(module, created), context);
    const status = first.status;
    const deleting = sample(module, { deletionTimestamp: "2027-01-02T00:00:00Z" }, status);
    const unmarked = planResource(module, deleting, readyView(module, deleting, liveCopies(first, false)), context);
    expect(unmarked.steps.filter((s) => s.kind === "delete" || s.kind === "retain")).toEqual([]);
    expect(unmarked.steps.at(-1)?.kind).toBe("remove-finalizer");

    const marked = planResource(module, deleting, readyView(module, deleting, liveCopies(first, true)), context);
    const members = module.emits.filter((e) => e.product).map((e) => e.kind);
    const removed = marked.steps.flatMap((s) => (s.kind === "delete" || s.kind === "retain" ? [s.target] : []));
    expect(removed.map((t) => `${t.kind}/${t.name}`).sort()).toEqual(
      [...liveCopies(first, true).values()]
        .filter((o) => members.length === 0 || members.includes(o.kind))
        .map((o) => `${o.kind}/${o.metadata.name}`)
        .sort(),
    );
    if (removed.some((t) => members.includes(t.kind))) {
      // Members first, awaited: nothing else goes, and the finalizer stays, while one is left.
      expect(marked.steps.every((s) => s.kind === "delete")).toBe(true);
      expect(marked.requeue).toBe(true);
    } else {
      expect(marked.steps.at(-1)?.kind).toBe("remove-finalizer");
      expect(marked.steps.filter((s) => s.kind === "remove-finalizer")).toHaveLength(1);
    }
  });
});

describe("the registry", () => {
  it("has one definition per kind, with plurals that are unique", () => {
    const definitions = allDefinitions();
    expect(new Set(definitions.map((d) => d.kind)).size).toBe(definitions.length);
    expect(new Set(definitions.map((d) => d.plural)).size).toBe(definitions.length);
  });

  it("has an acyclic graph of references between kinds, naming only registered kinds", () => {
    const known = new Set(REGISTRY.kinds.map((m) => m.definition.kind));
    for (const module of REGISTRY.kinds) for (const target of module.referencesKinds) expect(known).toContain(target);
    expect(referenceCycle(REGISTRY.kinds)).toBeUndefined();
  });

  it("has every kind exported by every front end: a Pulumi component and a cdk8s construct of its name", () => {
    const missing = REGISTRY.kinds.flatMap((module) => {
      const { kind } = module.definition;
      return [
        ...(typeof (pulumiComponents as Record<string, unknown>)[kind] === "function" ? [] : [`Pulumi ${kind}`]),
        ...(typeof (cdk8sConstructs as Record<string, unknown>)[kind] === "function" ? [] : [`cdk8s ${kind}`]),
      ];
    });
    expect(missing).toEqual([]);
  });
});
