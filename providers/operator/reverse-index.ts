/**
 * A many-to-many map kept both ways: what each holder points at, and who points at each target. A watch
 * event about a target finds its holders by key, whatever the number of holders (no scan of every holder
 * per event: an operator serving thousands of resources sees one event per emitted object changed).
 */
export class ReverseIndex {
  private readonly targetsOf = new Map<string, ReadonlySet<string>>();
  private readonly holdersOf = new Map<string, Set<string>>();

  /** Records (or replaces) what `holder` points at now; none forgets it. */
  set(holder: string, targets: Iterable<string>): void {
    this.forget(holder);
    const unique = new Set(targets);
    if (unique.size === 0) return;
    this.targetsOf.set(holder, unique);
    for (const target of unique) {
      const holders = this.holdersOf.get(target) ?? new Set<string>();
      holders.add(holder);
      this.holdersOf.set(target, holders);
    }
  }

  forget(holder: string): void {
    const targets = this.targetsOf.get(holder);
    if (!targets) return;
    this.targetsOf.delete(holder);
    for (const target of targets) {
      const holders = this.holdersOf.get(target);
      holders?.delete(holder);
      if (holders?.size === 0) this.holdersOf.delete(target);
    }
  }

  /** The holders pointing at `target`, in the order they were recorded. */
  holders(target: string): string[] {
    return [...(this.holdersOf.get(target) ?? [])];
  }
}
