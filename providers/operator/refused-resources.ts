/**
 * What a licence refusal was decided from: the resource as it was read, the seats of its kind (the
 * instances admitted, which the cap counts first) and the entitlements in force. While all three are
 * the same, a pass decides the same refusal again and changes nothing.
 */
export interface RefusalInputs {
  readonly resourceVersion: string;
  readonly seats: string;
  readonly entitlements: string;
}

/**
 * The resources whose last pass ended refused by the licence, with what it was decided from: a resync
 * passes over them until one of those inputs changes. With the Community caps, 998 of 1,000 resources of
 * a kind are refused; judging each again every resync, unchanged, was most of the operator's steady work.
 * Watch events are never skipped: any change to a resource is reconciled at once.
 */
export class RefusedResources {
  private readonly refused = new Map<string, RefusalInputs>();

  record(key: string, inputs: RefusalInputs): void {
    this.refused.set(key, inputs);
  }

  forget(key: string): void {
    this.refused.delete(key);
  }

  /**
   * The resource changed in nothing a pass decides from (its status or finalizers: the pass's own
   * writes, watched back): the refusal stands from the same inputs at its new resourceVersion.
   */
  renewed(key: string, resourceVersion: string): void {
    const known = this.refused.get(key);
    if (known) this.refused.set(key, { ...known, resourceVersion });
  }

  /** Whether `key` was refused from exactly these inputs: judging it again would decide the same. */
  unchanged(key: string, inputs: RefusalInputs): boolean {
    const known = this.refused.get(key);
    return (
      known !== undefined &&
      known.resourceVersion === inputs.resourceVersion &&
      known.seats === inputs.seats &&
      known.entitlements === inputs.entitlements
    );
  }

  /** The refused keys whose key starts with `prefix` (`Kind/`): a seat of that kind may just have been freed. */
  withPrefix(prefix: string): string[] {
    return [...this.refused.keys()].filter((key) => key.startsWith(prefix));
  }
}
