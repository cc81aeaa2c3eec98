import { type Condition, READY } from "../api/conditions.js";
import { edition as editionText, LICENSED } from "../licence/enforce.js";
import { type Entitlements, type Feature, HOW_TO_LICENSE } from "../licence/entitlements.js";
import type { EngineResource, KindModule, Verdict } from "./kind-module.js";
import type { KubeObject } from "./objects.js";
import type { Reference } from "./reference-grants.js";
import type { EngineView } from "./view.js";

/** The licensed feature that lets the product wire a dependency from its target. */
export const AUTO_WIRING: Feature = "auto-wiring";

/** The reason of a dependency whose manual field is to be filled (not auto-wired, not provided). */
export const MANUAL_WIRING_REQUIRED = "ManualWiringRequired";

/** The condition a resource with references to other product resources reports them on. */
export const DEPENDENCIES_READY = "DependenciesReady";

/**
 * A reference from one resource to another of the product's kinds, which it cannot do without: nothing of
 * the referrer is applied before the target is Ready (`ready`), or Ready and publishing its
 * `status.connection` (`connection`). Across namespaces only under a ReferenceGrant, as every reference.
 */
export interface Dependency extends Reference {
  readonly needs: "ready" | "connection";
  /**
   * The explicit field a user fills instead when the reference is not auto-wired (a SecretKeyRef to what
   * auto-wiring would have provided), and whether it is filled. Declared for a `connection` dependency:
   * wiring it is the licensed feature `auto-wiring` (wiringOf).
   */
  readonly manual?: { readonly field: string; readonly provided: boolean };
  /**
   * Auto-wired, it claims something of its own in the target (a database and a user in a PostgresCluster):
   * the engine collects the claim for the target's kind to make, and reads it back for the referrer
   * (lib/engine/claims.ts). Wired by hand, no claim is made: the user brings its manual field instead.
   */
  readonly claim?: true;
  /**
   * The referrer passes the target's credentials on (an Observability gives its Redis's password to
   * Langfuse): the engine reads the Secret the target's `status.connection` names, in the target's
   * namespace, into the view (`connectionCredentials`, by field) — only when the dependency may be
   * followed, as every read of another namespace.
   */
  readonly credentials?: true;
  /**
   * Why the target, found, does not fit the referrer (a Team of another Gateway than the User's), or
   * undefined when it does: nothing of the referrer is applied while it does not, and waiting cannot
   * change that — a change of either spec can.
   */
  readonly fits?: (target: KubeObject) => string | undefined;
}

/** The reason of a dependency whose target does not fit the referrer (Dependency.fits). */
export const DEPENDENCY_MISMATCH = "DependencyMismatch";

/** How one dependency is wired: by the product from the target, or by the user through its manual field. */
export type Wiring =
  | { readonly mode: "auto" }
  | { readonly mode: "manual"; readonly field: string; readonly provided: boolean };

/**
 * The one decision on wiring, for every kind and front end: a dependency with a manual alternative is
 * auto-wired when the licence includes `auto-wiring`, otherwise manual — the user fills its manual field.
 * A manual field the user filled wins under any licence: it says how they chose to wire it, and is never
 * silently passed over. A dependency without one (the target only has to be Ready) is always followed.
 */
export function wiringOf(dependency: Dependency, entitlements: Entitlements): Wiring {
  if (!dependency.manual) return { mode: "auto" };
  const { field, provided } = dependency.manual;
  if (provided || !entitlements.features.has(AUTO_WIRING)) return { mode: "manual", field, provided };
  return { mode: "auto" };
}

/** What `navique plan` and `pulumi preview` say of one dependency's wiring. */
export function wiringLine(dependency: Dependency, wiring: Wiring): string {
  const target = `${dependency.field} → ${dependency.kind} ${dependency.namespace}/${dependency.name}`;
  if (wiring.mode === "auto") return `${target}: auto-wired`;
  return `${target}: manual: ${wiring.provided ? `${wiring.field} is set` : `set ${wiring.field}`}`;
}

/** The dependencies a resource declares now, in its kind's order. */
export function dependenciesOf(module: KindModule, resource: EngineResource): readonly Dependency[] {
  const dependencies = module.dependsOn?.(resource) ?? [];
  const undeclared = dependencies.filter((d) => !module.referencesKinds.includes(d.kind));
  if (undeclared.length > 0)
    throw new Error(
      `${module.definition.kind} depends on ${undeclared.map((d) => `${d.kind} (${d.field})`).join(", ")}, which its referencesKinds does not declare: the registry's cycle check cannot see it`,
    );
  return dependencies;
}

/**
 * Every reference a resource holds — those of its kind's own reads and its dependencies —: what grants,
 * the operator's namespace scope and its index of referrers are judged on.
 */
export function allReferences(module: KindModule, resource: EngineResource): Reference[] {
  return [...module.references(resource), ...dependenciesOf(module, resource)];
}

/** What is wrong with one dependency as observed, with the condition reason; undefined when it is fine. */
function problem(
  dependency: Dependency,
  target: KubeObject | undefined,
  entitlements: Entitlements,
): { reason: string; text: string } | undefined {
  const subject = `${dependency.field}: ${dependency.kind} ${dependency.namespace}/${dependency.name}`;
  const wiring = wiringOf(dependency, entitlements);
  if (wiring.mode === "manual") {
    // Wired by the user: what the product would have read of the target, the manual field provides.
    if (wiring.provided) return undefined;
    return {
      reason: MANUAL_WIRING_REQUIRED,
      text: `${subject} is not auto-wired: ${editionText(entitlements)} does not include auto-wiring. Set ${wiring.field} to wire it by hand, or ${HOW_TO_LICENSE}`,
    };
  }
  if (!target)
    return {
      reason: "DependencyMissing",
      text: `${subject} does not exist: create it, or point ${dependency.field} at one that does`,
    };
  if (target.metadata.deletionTimestamp)
    return {
      reason: "DependencyDeleting",
      text: `${subject} is being deleted: point ${dependency.field} at another, or create it again once it is gone`,
    };
  // Before readiness: a target that does not fit stays so once Ready, and the fix is in a spec.
  const misfit = dependency.fits?.(target);
  if (misfit) return { reason: DEPENDENCY_MISMATCH, text: `${subject} ${misfit}` };
  const conditions = (target.status as { conditions?: readonly Condition[] } | undefined)?.conditions ?? [];
  const licensed = conditions.find((c) => c.type === LICENSED);
  if (licensed?.status === "False")
    return { reason: "DependencyRefused", text: `${subject} is refused by the licence: ${licensed.message}` };
  const ready = conditions.find((c) => c.type === READY);
  if (ready?.status !== "True")
    return {
      reason: "DependencyNotReady",
      text: `${subject} is not Ready${ready?.message ? ` (${ready.message})` : " yet"}`,
    };
  const connection = (target.status as { connection?: unknown } | undefined)?.connection;
  if (dependency.needs === "connection" && !connection)
    return { reason: "DependencyNotReady", text: `${subject} publishes no status.connection yet` };
  return undefined;
}

/** The problems waiting cannot clear: a manual field to fill, a target that does not fit. */
const STALLING = new Set([MANUAL_WIRING_REQUIRED, DEPENDENCY_MISMATCH]);

/**
 * The verdict on a resource's dependencies, from what was observed of each target (`view.dependencies`,
 * by field): ok once every one is there, admitted by the licence, Ready (with its connection where it
 * is needed) and fitting the referrer; otherwise the first reason and every problem, each naming the
 * field and the target. Undefined for a resource that declares none. Stalled only while a manual field is
 * to be filled or a target does not fit: waiting cannot change that (a change of a spec or of the licence
 * can) — a missing target may still be created, a target still become Ready; a reference no grant
 * allows, or outside the operator's namespaces, is refused before (gates.ts).
 */
export function dependencyVerdict(module: KindModule, resource: EngineResource, view: EngineView): Verdict | undefined {
  const dependencies = dependenciesOf(module, resource);
  if (dependencies.length === 0) return undefined;
  const problems = dependencies.flatMap((d) => {
    const found = problem(d, view.dependencies?.[d.field], view.licence.entitlements);
    return found ? [found] : [];
  });
  const [first] = problems;
  if (!first) {
    const targets = dependencies.map((d) => `${d.kind} ${d.namespace}/${d.name} (${d.field})`).join(", ");
    return { ok: true, reason: "DependenciesReady", message: `every dependency is Ready: ${targets}` };
  }
  return {
    ok: false,
    reason: first.reason,
    message: `waiting for what it depends on: ${problems.map((p) => p.text).join("; ")}. Nothing of it is applied until then`,
    ...(problems.some((p) => STALLING.has(p.reason)) ? { stalled: true } : {}),
  };
}

/** Refuses kinds whose declared references form a cycle, naming it; what the registry runs when it loads. */
export function refuseReferenceCycles(modules: readonly Pick<KindModule, "definition" | "referencesKinds">[]): void {
  const cycle = referenceCycle(modules);
  if (cycle)
    throw new Error(
      `the kinds reference each other in a cycle, ${cycle.join(" → ")}: each resource of it would wait for the other to be Ready. Remove one of these references from the kinds' referencesKinds and dependsOn`,
    );
}

/**
 * A cycle in the kinds' declared references (`referencesKinds`), as the path that closes it
 * (`A → B → A`), or undefined. A cycle would leave each resource of it waiting for the other to be Ready.
 */
export function referenceCycle(
  modules: readonly Pick<KindModule, "definition" | "referencesKinds">[],
): string[] | undefined {
  const edges = new Map(modules.map((m) => [m.definition.kind, m.referencesKinds]));
  const done = new Set<string>();
  const visit = (kind: string, path: readonly string[]): string[] | undefined => {
    const seen = path.indexOf(kind);
    if (seen >= 0) return [...path.slice(seen), kind];
    if (done.has(kind)) return undefined;
    for (const next of edges.get(kind) ?? []) {
      const cycle = visit(next, [...path, kind]);
      if (cycle) return cycle;
    }
    done.add(kind);
    return undefined;
  };
  for (const kind of edges.keys()) {
    const cycle = visit(kind, []);
    if (cycle) return cycle;
  }
  return undefined;
}
