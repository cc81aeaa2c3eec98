import type { EmittedObject } from "../api/resource-status.js";
import { keptUnderRetain } from "./deletion-policy.js";
import type { EmittedKind, EngineResource, KindModule } from "./kind-module.js";
import { type KubeObject, keyOf, labelOf, objectKey } from "./objects.js";
import { ownedBy } from "./ownership.js";
import { releaseMarks } from "./release-marks.js";
import { goesWithNamespace, type KeptObject } from "./retained-with-namespace.js";
import type { PlannedEvent, PlanStep } from "./steps.js";

export { DELETION_POLICY_ANNOTATION } from "./deletion-policy.js";

/** An object emitted before and not desired now, as it is in the cluster. */
export interface Orphan {
  readonly emitted: EmittedObject;
  readonly current: KubeObject;
  readonly kind: EmittedKind | undefined;
}

/** The declaration of an emitted object's kind, by apiVersion and kind. */
export function emittedKindOf(
  module: Pick<KindModule, "emits">,
  object: { readonly apiVersion: string; readonly kind: string },
): EmittedKind | undefined {
  return module.emits.find((e) => e.apiVersion === object.apiVersion && e.kind === object.kind);
}

/** Of the objects a desired state makes, those deletionPolicy Retain would keep were the resource deleted. */
export function wouldBeRetained(module: Pick<KindModule, "emits">, objects: readonly KubeObject[]): KubeObject[] {
  return objects.filter((o) => keptUnderRetain(emittedKindOf(module, o), o));
}

const where = ({ emitted }: Orphan) => `${emitted.namespace}/${emitted.name}`;
const nameOf = (orphan: Orphan) => `${orphan.kind?.label ?? orphan.emitted.kind} ${where(orphan)}`;

/**
 * Among `candidates` (what was emitted, and on deletion what would be), those not desired now, still there
 * and still this resource's: carrying its owned-by label. Nothing unmarked is ever collected.
 */
export function ownOrphans(
  module: Pick<KindModule, "emits">,
  resource: EngineResource,
  candidates: readonly EmittedObject[],
  desired: readonly KubeObject[],
  objects: ReadonlyMap<string, KubeObject>,
): Orphan[] {
  const wanted = new Set(desired.map(keyOf));
  const seen = new Set<string>();
  return candidates.flatMap<Orphan>((emitted) => {
    const key = objectKey(emitted);
    if (wanted.has(key) || seen.has(key)) return [];
    seen.add(key);
    const current = objects.get(key);
    return current && ownedBy(resource, current) ? [{ emitted, current, kind: emittedKindOf(module, emitted) }] : [];
  });
}

function retained(orphan: Orphan): boolean {
  return keptUnderRetain(orphan.kind, orphan.current);
}

/** What is kept with a retained stateful object: what its kind says it keeps, in its namespace. */
function keptWith(stateful: Orphan, orphans: readonly Orphan[]): Orphan[] {
  const keeps = stateful.kind?.stateful?.keeps;
  if (!keeps) return [];
  return orphans.filter(
    (o) =>
      o !== stateful &&
      o.emitted.namespace === stateful.emitted.namespace &&
      keeps(stateful.current, { kind: o.emitted.kind, apiVersion: o.emitted.apiVersion, current: o.current }),
  );
}

/** Keeping a stateful object under Retain, with what is kept with it: one step, one Event that names them all. */
function retention(stateful: Orphan, kept: readonly Orphan[], why: string): { step: PlanStep; event: PlannedEvent } {
  const byKind = new Map<EmittedKind | undefined, Orphan[]>();
  for (const o of kept) byKind.set(o.kind, [...(byKind.get(o.kind) ?? []), o]);
  const alongside = [...byKind.entries()].map(([kind, orphans]) =>
    kind?.keptWith ? kind.keptWith.phrase(orphans.map(where)) : `${orphans.map(nameOf).join(", ")}`,
  );
  const label = nameOf(stateful);
  const released =
    alongside.length > 0
      ? `, with ${alongside.join(" and ")}; they are released to you and no longer managed: dump its data and delete them yourself when safe`
      : "; it is released to you and no longer managed: dump its data and delete it yourself when safe";
  return {
    step: {
      kind: "retain",
      target: stateful.emitted,
      patch: releaseMarks(stateful.current),
      description: `keep ${label}, which may hold data (deletionPolicy Retain): released to you, no longer managed`,
    },
    event: {
      type: "Warning",
      reason: "DatastoreRetained",
      message: `${label} may hold data and was kept (deletionPolicy Retain) ${why}${released}${goesWithNamespace(stateful.emitted.namespace, kept.length + 1)}`,
    },
  };
}

/**
 * What Retain keeps of `orphans`, named as messages name them: each stateful one under Retain and what its
 * kind keeps with it — those being deleted already too (lib/engine/retained-with-namespace.ts names what a
 * namespace being deleted takes with it).
 */
export function keptByRetain(orphans: readonly Orphan[]): KeptObject[] {
  const statefuls = orphans.filter(retained);
  const kept = new Set(statefuls.flatMap((s) => keptWith(s, orphans)));
  return orphans
    .filter((o) => statefuls.includes(o) || kept.has(o))
    .map((o) => ({
      kind: o.emitted.kind,
      label: o.kind?.label ?? o.emitted.kind,
      namespace: o.emitted.namespace,
      name: o.emitted.name,
    }));
}

function deletion(orphan: Orphan, why: string): { step: PlanStep; event: PlannedEvent } {
  const label = labelOf(orphan.emitted);
  return {
    step: { kind: "delete", target: orphan.emitted, description: `delete ${label} ${why}` },
    event: orphan.kind?.stateful
      ? {
          type: "Warning",
          reason: "DatastoreDeleted",
          message: `deleting ${nameOf(orphan)} ${why} (deletionPolicy Delete): its data is lost unless you dumped it`,
        }
      : { type: "Normal", reason: "GarbageCollected", message: `deleting ${label}, no longer needed ${why}` },
  };
}

/**
 * Garbage collection: emitted before, not desired now → delete; but a stateful object under Retain is
 * kept with what its kind keeps with it, every mark of the product removed from each (released), with
 * one Warning Event that names them all.
 */
export function collect(orphans: readonly Orphan[], why: string): { steps: PlanStep[]; events: PlannedEvent[] } {
  const statefuls = orphans.filter(retained);
  const keptBy = new Map(statefuls.flatMap((s) => keptWith(s, orphans).map((o) => [o, s] as const)));
  const steps: PlanStep[] = [];
  const events: PlannedEvent[] = [];
  for (const orphan of orphans) {
    // Being deleted already (its controller's finalizers not yet removed): nothing more to do, nor to say.
    if (orphan.current.metadata.deletionTimestamp) continue;
    const stateful = keptBy.get(orphan);
    if (stateful && !statefuls.includes(orphan)) {
      const note = orphan.kind?.keptWith?.note;
      steps.push({
        kind: "retain",
        target: orphan.emitted,
        patch: releaseMarks(orphan.current),
        description: `keep ${labelOf(orphan.emitted)} with retained ${nameOf(stateful)}${note ? ` (${note})` : ""}: released to you, no longer managed`,
      });
      continue;
    }
    const { step, event } = statefuls.includes(orphan)
      ? retention(orphan, keptWith(orphan, orphans), why)
      : deletion(orphan, why);
    steps.push(step);
    events.push(event);
  }
  return { steps, events };
}
