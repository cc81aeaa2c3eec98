import type { IConstruct } from "constructs";
import { cappedKind } from "../lib/engine/admission.js";
import type { EngineResource, KindModule } from "../lib/engine/kind-module.js";
import type { ObservedGrant } from "../lib/engine/reference-grants.js";
import { capDecisions, type Instance, type LicenceDecision } from "../lib/licence/enforce.js";
import type { Entitlements } from "../lib/licence/entitlements.js";
import { printUncaughtRefusalAlone } from "./synth-refusal.js";

/** A resource of a registered kind that a construct will make exist: itself, or one of its members. */
export interface DeclaredResource {
  readonly module: KindModule;
  readonly resource: EngineResource;
}

/** A construct of the product that declares resources of registered kinds (constructs/navique-resource.ts). */
export interface DeclaresResources {
  /** Every resource it declares, itself first, its members after (only those the licence lets it create). */
  declaredResources(entitlements: Entitlements): readonly DeclaredResource[];
}

/** A construct whose entitlements and grants the app's synth-time checks read. */
export interface AppFacts {
  /** The entitlements the app declares (a NaviqueLicense), else undefined (Community). */
  declaredEntitlements?(): Entitlements | undefined;
  /** The grant it declares. */
  declaredGrant?(): ObservedGrant | undefined;
}

function declares(construct: IConstruct): construct is IConstruct & DeclaresResources {
  return typeof (construct as Partial<DeclaresResources>).declaredResources === "function";
}

function hasFacts(construct: IConstruct): construct is IConstruct & AppFacts {
  const c = construct as AppFacts;
  return typeof c.declaredEntitlements === "function" || typeof c.declaredGrant === "function";
}

/** What one synth of an app declares, gathered in one walk of its tree. */
export interface AppDeclarations {
  readonly entitlements: Entitlements | undefined;
  readonly grants: readonly ObservedGrant[];
  /** By kind, every declared instance in declaration order (standing in for creation order). */
  readonly instances: ReadonlyMap<string, readonly Instance[]>;
  /** By kind, the cap's decision on any of those instances, ordered once. */
  readonly caps: ReadonlyMap<string, (subject: Instance) => LicenceDecision>;
  /**
   * A declared resource's instance: the first of its kind with its namespace and name, the one a search of
   * `instances` finds, without the search (linear in the app for each resource made synth quadratic).
   */
  instanceOf(resource: EngineResource): Instance | undefined;
  /** By construct, what it declares. */
  readonly byConstruct: ReadonlyMap<IConstruct, readonly DeclaredResource[]>;
}

/** What was gathered of an app, and during which synchronous run (`currentRun`). */
const gathered = new WeakMap<IConstruct, { readonly declarations: AppDeclarations; readonly run: object }>();
const watched = new WeakSet<IConstruct>();

let run: object | undefined;

/**
 * The synchronous run the caller is part of, until it returns to the event loop. One synth is one such run,
 * and cdk8s validates the whole app more than once in it (`synthYaml` validates, then each chart's `toJson`
 * again): what the first validation gathered serves the others. Nothing of the app changes meanwhile but
 * a construct added, which tells appChanged.
 */
function currentRun(): object {
  if (!run) {
    const started = {};
    run = started;
    queueMicrotask(() => {
      if (run === started) run = undefined;
    });
  }
  return run;
}

/**
 * The app of `scope` changed (one of the product's constructs was added): what was gathered is stale. The
 * first time, the root gets a validation that drops it too, unless gathered during the same run: cdk8s
 * validates an app's constructs from the root down, so every synth starts with the tree as it is then,
 * however it changed since the last one. It also arms the printing of the synth's refusal, should nobody
 * catch it, without a stack trace.
 */
export function appChanged(scope: IConstruct): void {
  const root = scope.node.root;
  gathered.delete(root);
  if (watched.has(root)) return;
  watched.add(root);
  root.node.addValidation({
    validate: () => {
      if (gathered.get(root)?.run !== currentRun()) gathered.delete(root);
      printUncaughtRefusalAlone();
      return [];
    },
  });
}

/**
 * Everything an app declares, walked once per synth. Every construct's validation asks for it; walking
 * the tree for each would make synth quadratic (2,500 constructs: seconds).
 */
export function appDeclarations(scope: IConstruct, community: () => Entitlements): AppDeclarations {
  const root = scope.node.root;
  const known = gathered.get(root);
  if (known) return known.declarations;
  const constructs = root.node.findAll();
  let entitlements: Entitlements | undefined;
  const grants: ObservedGrant[] = [];
  for (const construct of constructs.filter(hasFacts)) {
    entitlements ??= construct.declaredEntitlements?.();
    const grant = construct.declaredGrant?.();
    if (grant) grants.push(grant);
  }
  const inForce = entitlements ?? community();
  const byConstruct = new Map<IConstruct, readonly DeclaredResource[]>();
  const instances = new Map<string, Instance[]>();
  const firsts = new Map<string, Instance>();
  // No kind, namespace or name holds a "/" (the schemas refuse it before anything is declared).
  const keyOf = (kind: string, namespace: string, name: string) => `${kind}/${namespace}/${name}`;
  for (const construct of constructs.filter(declares)) {
    const declared = construct.declaredResources(inForce);
    byConstruct.set(construct, declared);
    for (const { resource } of declared) {
      const list = instances.get(resource.kind) ?? [];
      const instance: Instance = {
        namespace: resource.metadata.namespace,
        name: resource.metadata.name,
        creationTimestamp: String(list.length).padStart(6, "0"),
        admitted: false,
      };
      list.push(instance);
      instances.set(resource.kind, list);
      const key = keyOf(resource.kind, instance.namespace, instance.name);
      if (!firsts.has(key)) firsts.set(key, instance);
    }
  }
  const caps = new Map(
    [...instances.entries()].map(([kind, list]) => [kind, capDecisions(inForce, cappedKind(kind), list)] as const),
  );
  const instanceOf = (resource: EngineResource) =>
    firsts.get(keyOf(resource.kind, resource.metadata.namespace, resource.metadata.name));
  const declarations = { entitlements, grants, instances, caps, instanceOf, byConstruct };
  gathered.set(root, { declarations, run: currentRun() });
  return declarations;
}
