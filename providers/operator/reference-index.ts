import type { Reference } from "../../lib/engine/reference-grants.js";

/**
 * Which resources reference what, kept from the watch events of every registered kind: a change to a
 * referenced object, or to the grants of a namespace referenced into, re-queues exactly its referrers
 * without listing anything.
 */
export class ReferenceIndex {
  private readonly byReferrer = new Map<string, { namespaces: string[]; targets: string[] }>();

  /** `Kind/namespace/name` of a referenced object. */
  static targetKey(reference: Pick<Reference, "kind" | "namespace" | "name">): string {
    return `${reference.kind}/${reference.namespace}/${reference.name}`;
  }

  /** Records (or replaces) what `referrer` references now; an empty list forgets it. */
  set(referrer: string, references: readonly Reference[]): void {
    if (references.length === 0) {
      this.byReferrer.delete(referrer);
      return;
    }
    this.byReferrer.set(referrer, {
      namespaces: [...new Set(references.map((r) => r.namespace))],
      targets: references.map(ReferenceIndex.targetKey),
    });
  }

  forget(referrer: string): void {
    this.byReferrer.delete(referrer);
  }

  /** The referrers whose references point into `namespace`. */
  referringInto(namespace: string): string[] {
    return [...this.byReferrer.entries()].filter(([, r]) => r.namespaces.includes(namespace)).map(([key]) => key);
  }

  /** The referrers of the object `Kind/namespace/name`. */
  referring(target: string): string[] {
    return [...this.byReferrer.entries()].filter(([, r]) => r.targets.includes(target)).map(([key]) => key);
  }
}
