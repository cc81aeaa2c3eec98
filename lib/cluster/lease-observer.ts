import type { V1Lease } from "@kubernetes/client-node";

/** Who holds a Lease another process waits for, and until when its lease runs unless renewed. */
export interface LeaseHolder {
  readonly identity: string;
  readonly until: Date;
}

/**
 * A Lease's holder judged as client-go's leader election judges it: by how long the record (holder and
 * resourceVersion) has gone unchanged as this process saw it, never by comparing the holder's renewTime
 * with this machine's clock, so that clocks skewed between machines cannot make a live holder look
 * expired. Serves the install locks (lib/capabilities/lease-lock.ts) and the leader election
 * (lib/cluster/leader-election.ts) alike.
 */
export class LeaseObserver {
  private seen: { readonly version: string; readonly identity: string; readonly at: number } | undefined;

  constructor(private readonly now: () => number = Date.now) {}

  /** The holder of `lease` and whether its lease has run out; `defaultSeconds` when the Lease says no duration. */
  holder(lease: V1Lease, defaultSeconds: number): LeaseHolder & { readonly expired: boolean } {
    const identity = lease.spec?.holderIdentity ?? "";
    const version = `${identity}/${lease.metadata?.resourceVersion ?? ""}`;
    const now = this.now();
    if (this.seen?.version !== version) this.seen = { version, identity, at: now };
    const duration = (lease.spec?.leaseDurationSeconds ?? defaultSeconds) * 1000;
    const until = this.seen.at + duration;
    return { identity: identity || "unknown", until: new Date(until), expired: !identity || until < now };
  }

  /** The holder of the record last seen; empty when none was, or it had none. */
  get lastHolder(): string {
    return this.seen?.identity ?? "";
  }
}
