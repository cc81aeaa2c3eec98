import { type CappedKind, type Entitlements, type Feature, HOW_TO_LICENSE } from "./entitlements.js";

/** Condition type every licensed decision is reported under. */
export const LICENSED = "Licensed";

export interface LicenceRefusal {
  readonly allowed: false;
  readonly reason: "FeatureNotLicensed" | "InstanceCapExceeded";
  /** For the condition and the Event alike: what was refused, why, and how to get it. */
  readonly message: string;
}
export type LicenceDecision = { readonly allowed: true } | LicenceRefusal;

/** One instance of a capped kind, as the cluster shows it. */
export interface Instance {
  readonly namespace: string;
  readonly name: string;
  readonly creationTimestamp: string;
  /** Admitted earlier (reconciled while allowed): never refused afterwards, whatever the caps become. */
  readonly admitted: boolean;
}

/** How a message names the licence in force: the Community edition (and why), or the licence's id. */
export function edition(entitlements: Entitlements): string {
  return entitlements.edition === "Community"
    ? `the Community edition${entitlements.reason ? ` (${entitlements.reason})` : ""}`
    : `licence ${entitlements.licenseId}`;
}

/** A paid feature in use: allowed only when the licence lists it. */
export function enforceFeature(entitlements: Entitlements, feature: Feature, subject: string): LicenceDecision {
  if (entitlements.features.has(feature)) return { allowed: true };
  return {
    allowed: false,
    reason: "FeatureNotLicensed",
    message: `${subject} uses feature "${feature}", which ${edition(entitlements)} does not include; it is skipped. To use it, ${HOW_TO_LICENSE}`,
  };
}

/** The instances not admitted yet, in the order they are admitted in: creation time, then namespace/name. */
function waitingInOrder(instances: readonly Instance[]): Instance[] {
  return instances
    .filter((i) => !i.admitted)
    .sort(
      (a, b) =>
        a.creationTimestamp.localeCompare(b.creationTimestamp) ||
        `${a.namespace}/${a.name}`.localeCompare(`${b.namespace}/${b.name}`),
    );
}

/** The decision on a new instance with `ahead` instances before it (admitted earlier or created first). */
function capDecision(entitlements: Entitlements, kind: CappedKind, subject: Instance, ahead: number): LicenceDecision {
  const cap = entitlements.caps[kind];
  if (ahead < cap) return { allowed: true };
  return {
    allowed: false,
    reason: "InstanceCapExceeded",
    message: `${kind} ${subject.namespace}/${subject.name} is refused: ${edition(entitlements)} allows ${cap} ${kind} instance(s) and ${ahead} come before it (admitted earlier or created first); nothing was created for it. Delete an unused ${kind}, or ${HOW_TO_LICENSE}`,
  };
}

/**
 * An instance cap: instances admitted before keep their place; the others are admitted in a
 * deterministic order — creation time, then namespace/name — while room is left. Only a NEW instance
 * is ever refused.
 */
export function enforceCap(
  entitlements: Entitlements,
  kind: CappedKind,
  instances: readonly Instance[],
  subject: Instance,
): LicenceDecision {
  if (subject.admitted) return { allowed: true };
  const admitted = instances.filter((i) => i.admitted).length;
  const position = waitingInOrder(instances).findIndex(
    (i) => i.namespace === subject.namespace && i.name === subject.name,
  );
  // Both the admitted instances and those created earlier come before this one.
  return capDecision(entitlements, kind, subject, admitted + position);
}

/**
 * How many instances come before each waiting one — admitted earlier, or created first — with the order
 * computed once: a synth judges every instance an app declares against the same list, and the operator
 * every resource of a kind against its watch cache; sorting again per subject made both quadratic.
 * Undefined for a subject not in the list.
 */
export function capOrder(instances: readonly Instance[]): (subject: Instance) => number | undefined {
  const admitted = instances.filter((i) => i.admitted).length;
  /** By namespace, then name: each waiting instance at its first place in the order, as enforceCap finds it. */
  const positions = new Map<string, Map<string, number>>();
  waitingInOrder(instances).forEach((i, index) => {
    const inNamespace = positions.get(i.namespace) ?? new Map<string, number>();
    positions.set(i.namespace, inNamespace);
    if (!inNamespace.has(i.name)) inNamespace.set(i.name, index);
  });
  return (subject) => {
    const position = positions.get(subject.namespace)?.get(subject.name);
    return position === undefined ? undefined : admitted + position;
  };
}

/** enforceCap for any subject of one list of instances, the order computed once (capOrder). */
export function capDecisions(
  entitlements: Entitlements,
  kind: CappedKind,
  instances: readonly Instance[],
): (subject: Instance) => LicenceDecision {
  // No subject can have `cap` instances ahead of it: all are allowed, with no order to compute (a synth
  // under a licence that covers the app).
  if (instances.length <= entitlements.caps[kind]) return () => ({ allowed: true });
  const ahead = capOrder(instances);
  const admitted = instances.filter((i) => i.admitted).length;
  return (subject) =>
    subject.admitted ? { allowed: true } : capDecision(entitlements, kind, subject, ahead(subject) ?? admitted - 1);
}

/** The cap's decision on a new instance with `ahead` instances before it. */
export function capDecisionFor(
  entitlements: Entitlements,
  kind: CappedKind,
  subject: Instance,
  ahead: number,
): LicenceDecision {
  return subject.admitted ? { allowed: true } : capDecision(entitlements, kind, subject, ahead);
}
