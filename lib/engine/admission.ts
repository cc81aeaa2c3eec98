import {
  capDecisionFor,
  enforceCap,
  enforceFeature,
  type Instance,
  LICENSED,
  type LicenceDecision,
  type LicenceRefusal,
} from "../licence/enforce.js";
import { CAPPED_KINDS, type CappedKind } from "../licence/entitlements.js";
import type { EngineResource, KindModule } from "./kind-module.js";
import type { EngineView } from "./view.js";

/**
 * Whether the licence admitted the resource in an earlier pass: it then keeps its place under any cap.
 * `status.admitted` says so; a resource stored before that field existed says so by its Licensed
 * condition being True.
 */
export function wasAdmitted(resource: EngineResource): boolean {
  if (resource.status?.admitted === true) return true;
  // Also asked of objects straight from a watch cache (unparsed), whose status may hold no conditions.
  return resource.status?.conditions?.some((c) => c.type === LICENSED && c.status === "True") ?? false;
}

/** The instance a resource is, for the cap of its kind. */
export function instanceOf(resource: EngineResource, now: string): Instance {
  return {
    namespace: resource.metadata.namespace,
    name: resource.metadata.name,
    creationTimestamp: resource.metadata.creationTimestamp ?? now,
    admitted: wasAdmitted(resource),
  };
}

/** The kind as the licence caps it; every registered kind is capped (a registry contract test says so). */
export function cappedKind(kind: string): CappedKind {
  const capped = CAPPED_KINDS.find((k) => k === kind);
  if (!capped) throw new Error(`kind ${kind} has no licence cap: add it to CAPPED_KINDS (lib/licence/entitlements.ts)`);
  return capped;
}

/**
 * The licence's word on a resource, the one rule for every kind: the paid feature first (it says most),
 * then the cap on new instances. Undefined when admitted.
 */
export function licenceRefusal(
  module: KindModule,
  resource: EngineResource,
  view: Pick<EngineView, "licence">,
  /** The cap's decisions over `view.licence.instances`, ordered once (capDecisions) when many are judged. */
  decideCap?: (subject: Instance) => LicenceDecision,
): LicenceRefusal | undefined {
  const { entitlements, instances } = view.licence;
  const { feature } = module.licence;
  if (feature) {
    const where = `${resource.kind} ${resource.metadata.namespace}/${resource.metadata.name}`;
    const decision = enforceFeature(entitlements, feature, where);
    if (!decision.allowed) return decision;
  }
  const self = instances.find((i) => i.namespace === resource.metadata.namespace && i.name === resource.metadata.name);
  if (!self) return undefined;
  const ahead = view.licence.ahead?.(self);
  const kind = cappedKind(resource.kind);
  const cap = decideCap
    ? decideCap(self)
    : ahead !== undefined
      ? capDecisionFor(entitlements, kind, self, ahead)
      : enforceCap(entitlements, kind, instances, self);
  return cap.allowed ? undefined : cap;
}
