import type { Reference } from "../../lib/engine/reference-grants.js";
import { ReverseIndex } from "./reverse-index.js";

/**
 * Which resources reference what, kept from the watch events of every registered kind: a change to a
 * referenced object, or to the grants of a namespace referenced into, re-queues exactly its referrers
 * without listing anything, each found by key.
 */
export class ReferenceIndex {
  private readonly byTarget = new ReverseIndex();
  private readonly byNamespace = new ReverseIndex();

  /**
   * `group/Kind/namespace/name` of a referenced object: with its API group, so that two kinds of one name
   * in two groups (a `Cluster` of CloudNativePG and one of another operator) never share referrers.
   */
  static targetKey(reference: Pick<Reference, "group" | "kind" | "namespace" | "name">): string {
    return `${reference.group}/${reference.kind}/${reference.namespace}/${reference.name}`;
  }

  /** Records (or replaces) what `referrer` references now; an empty list forgets it. */
  set(referrer: string, references: readonly Reference[]): void {
    this.byTarget.set(referrer, references.map(ReferenceIndex.targetKey));
    this.byNamespace.set(
      referrer,
      references.map((r) => r.namespace),
    );
  }

  forget(referrer: string): void {
    this.byTarget.forget(referrer);
    this.byNamespace.forget(referrer);
  }

  /** The referrers whose references point into `namespace`. */
  referringInto(namespace: string): string[] {
    return this.byNamespace.holders(namespace);
  }

  /** The referrers of the object `group/Kind/namespace/name` (targetKey). */
  referring(target: string): string[] {
    return this.byTarget.holders(target);
  }
}
