import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { type V1Lease, V1MicroTime } from "@kubernetes/client-node";
import { API_GROUP, OPERATOR_NAME, SYSTEM_NAMESPACE } from "../api/group.js";
import { holderAnnotations, holderProcessGone } from "./holder-process.js";
import { type KubeClient, orUndefined, statusOf } from "./kube-client.js";
import { LeaseObserver } from "./lease-observer.js";

/** The Lease the operator's replicas elect their leader on, in the system namespace. */
export const LEADER_LEASE_NAME = `${OPERATOR_NAME}-leader`;

/**
 * controller-runtime's defaults (pkg/manager: LeaseDuration 15 s, RenewDeadline 10 s, RetryPeriod 2 s): a
 * standby takes over ~15 s after the leader died, and a leader that could not renew for 10 s stops — five
 * seconds before anyone may take the lease from it — so that two leaders never act at once.
 */
export const LEADER_LEASE_DURATION_MS = 15_000;
export const LEADER_RENEW_DEADLINE_MS = 10_000;
export const LEADER_RETRY_PERIOD_MS = 2_000;

/**
 * This process's candidate identity: its host name (a Pod's name, in a cluster) and a random suffix, as
 * controller-runtime's `hostname_uuid` — two processes on one host (a restarted container, two local
 * operators) never share one.
 */
export const CANDIDATE_IDENTITY = `${hostname()}_${randomBytes(4).toString("hex")}`;

/** Which leader Lease a process holds, as whom: what its install locks record (lib/capabilities/lease-lock.ts). */
export interface Leadership {
  readonly namespace: string;
  readonly name: string;
  readonly identity: string;
}

/**
 * The annotation an install lock's holder that leads writes on the lock: its leadership. A leader that lost
 * it has stopped its work — writes fenced, helm killed — before its lease ends (its renew deadline is
 * shorter; lib/cli/operator-command.ts), so a lock whose holder no longer leads is
 * a dead holder's.
 */
export const HOLDER_LEADERSHIP_ANNOTATION = `${API_GROUP}/holder-leadership`;

let heldLeadership: Leadership | undefined;

/** The leadership this process holds now, if it leads. */
export function leadershipHeld(): Leadership | undefined {
  return heldLeadership;
}

export interface LeaderElectionOptions {
  readonly client: KubeClient;
  /** @default LEADER_LEASE_NAME */
  readonly leaseName?: string;
  /** @default SYSTEM_NAMESPACE */
  readonly namespace?: string;
  /** @default CANDIDATE_IDENTITY */
  readonly identity?: string;
  /** How long a lease not renewed keeps others out. @default LEADER_LEASE_DURATION_MS */
  readonly leaseDurationMs?: number;
  /** A leader that has not renewed for this long gives up leadership. @default LEADER_RENEW_DEADLINE_MS */
  readonly renewDeadlineMs?: number;
  /** How often a standby tries to acquire and the leader renews. @default LEADER_RETRY_PERIOD_MS */
  readonly retryPeriodMs?: number;
  /** Told of each new leader seen and of failed renewals. */
  readonly report?: (line: string) => void;
  /** @default Date.now */
  readonly now?: () => number;
}

/**
 * Leader election on a coordination.k8s.io Lease, as client-go's leaderelection package runs it for
 * controller-runtime: a candidate takes the Lease when it has none, when its holder released it (empty
 * holder) or when the record has gone unchanged for the lease duration as this candidate observed it
 * (never by comparing the holder's renewTime with this clock: clocks skew between machines); optimistic
 * concurrency (resourceVersion) settles races. The leader renews every retry period and calls `onLost`
 * when it has not renewed within the renew deadline or finds the Lease taken. See
 * docs/adr/0027-leader-election.md.
 */
export class LeaderElector {
  readonly identity: string;
  readonly leaseName: string;
  readonly namespace: string;
  private readonly durationMs: number;
  private readonly deadlineMs: number;
  private readonly retryMs: number;
  private readonly now: () => number;
  private readonly report: (line: string) => void;
  /** The record last seen and when this process first saw it: what tells an expired lease. */
  private readonly observer: LeaseObserver;
  private lastRenewal = 0;
  private renewer: NodeJS.Timeout | undefined;
  private renewal: Promise<void> = Promise.resolve();
  private leading = false;
  private lastLeaderReported = "";

  constructor(private readonly options: LeaderElectionOptions) {
    this.identity = options.identity ?? CANDIDATE_IDENTITY;
    this.leaseName = options.leaseName ?? LEADER_LEASE_NAME;
    this.namespace = options.namespace ?? SYSTEM_NAMESPACE;
    this.durationMs = options.leaseDurationMs ?? LEADER_LEASE_DURATION_MS;
    this.deadlineMs = options.renewDeadlineMs ?? LEADER_RENEW_DEADLINE_MS;
    this.retryMs = options.retryPeriodMs ?? LEADER_RETRY_PERIOD_MS;
    this.now = options.now ?? Date.now;
    this.observer = new LeaseObserver(this.now);
    this.report = options.report ?? (() => {});
    if (!(this.deadlineMs < this.durationMs))
      throw new Error(
        `leader election: the renew deadline (${this.deadlineMs} ms) must be shorter than the lease duration (${this.durationMs} ms), or two leaders could act at once`,
      );
  }

  get isLeader(): boolean {
    return this.leading;
  }

  /**
   * Waits until this process holds the Lease: true then; false when `signal` aborted the wait first (a
   * standby stopped). A failed request is reported and tried again at the next retry period.
   */
  async acquire(signal?: AbortSignal): Promise<boolean> {
    while (!signal?.aborted) {
      try {
        if (await this.tryAcquireOrRenew()) {
          this.leading = true;
          heldLeadership = { namespace: this.namespace, name: this.leaseName, identity: this.identity };
          this.lastRenewal = this.now();
          return true;
        }
      } catch (error) {
        this.report(`[leader] trying to acquire ${this.where()} failed, trying again: ${messageOf(error)}`);
      }
      await pause(this.retryMs, signal);
    }
    return false;
  }

  /**
   * Renews the Lease every retry period; calls `onLost` once, and stops renewing, when no renewal
   * succeeded within the renew deadline or another holder took the Lease. A timer: the event loop stays
   * free while helm runs as a child process.
   */
  keepRenewing(onLost: (reason: string) => void): void {
    const lose = (reason: string) => {
      if (!this.leading) return;
      this.leading = false;
      heldLeadership = undefined;
      this.stopRenewing();
      onLost(reason);
    };
    this.renewer = setInterval(() => {
      const since = this.now() - this.lastRenewal;
      if (since > this.deadlineMs) {
        lose(`no renewal of ${this.where()} succeeded for ${since} ms (renew deadline ${this.deadlineMs} ms)`);
        return;
      }
      this.renewal = this.renewal
        .then(async () => {
          if (!this.leading) return;
          if (await this.tryAcquireOrRenew()) this.lastRenewal = this.now();
          else lose(`${this.where()} is now held by ${this.observedHolder()}`);
        })
        .catch((error: unknown) => this.report(`[leader] renewing ${this.where()} failed: ${messageOf(error)}`));
    }, this.retryMs);
  }

  /**
   * Gives the Lease up at once (client-go's ReleaseOnCancel): an empty holder, which a standby takes at its
   * next retry instead of waiting out the lease. Called after the leader stopped its work.
   */
  async release(): Promise<void> {
    this.stopRenewing();
    await this.renewal;
    if (!this.leading) return;
    this.leading = false;
    heldLeadership = undefined;
    const current = await orUndefined(
      this.options.client.coordination.readNamespacedLease({ name: this.leaseName, namespace: this.namespace }),
    );
    if (current?.spec?.holderIdentity !== this.identity) return;
    const at = new V1MicroTime(this.now());
    await this.options.client.coordination.replaceNamespacedLease({
      name: this.leaseName,
      namespace: this.namespace,
      body: {
        ...current,
        spec: { ...current.spec, holderIdentity: "", leaseDurationSeconds: 1, renewTime: at, acquireTime: at },
      },
    });
  }

  private stopRenewing(): void {
    if (this.renewer) clearInterval(this.renewer);
    this.renewer = undefined;
  }

  private where(): string {
    return `the leader lease ${this.namespace}/${this.leaseName}`;
  }

  private observedHolder(): string {
    return this.observer.lastHolder || "nobody";
  }

  /** One step of client-go's tryAcquireOrRenew: true when this process holds the Lease after it. */
  private async tryAcquireOrRenew(): Promise<boolean> {
    const { client } = this.options;
    const now = this.now();
    const at = new V1MicroTime(now);
    const seconds = Math.ceil(this.durationMs / 1000);
    const current = await orUndefined(
      client.coordination.readNamespacedLease({ name: this.leaseName, namespace: this.namespace }),
    );
    try {
      if (!current) {
        await client.coordination.createNamespacedLease({
          namespace: this.namespace,
          body: {
            metadata: { name: this.leaseName, namespace: this.namespace, annotations: holderAnnotations() },
            spec: {
              holderIdentity: this.identity,
              leaseDurationSeconds: seconds,
              acquireTime: at,
              renewTime: at,
              leaseTransitions: 0,
            },
          },
        });
        this.reportLeader(this.identity);
        return true;
      }
      const holder = current.spec?.holderIdentity ?? "";
      const { expired } = this.observer.holder(current, seconds);
      // Beyond client-go: a holder on this machine whose process has ended is known dead at once.
      const held =
        holder !== "" && holder !== this.identity && !expired && !holderProcessGone(current.metadata?.annotations);
      if (held) {
        this.reportLeader(holder);
        return false;
      }
      const ours = holder === this.identity;
      const spec: V1Lease["spec"] = {
        ...current.spec,
        holderIdentity: this.identity,
        leaseDurationSeconds: seconds,
        renewTime: at,
        ...(ours ? {} : { acquireTime: at, leaseTransitions: (current.spec?.leaseTransitions ?? 0) + 1 }),
      };
      const metadata = ours
        ? current.metadata
        : { ...current.metadata, annotations: holderAnnotations(current.metadata?.annotations) };
      const updated = await client.coordination.replaceNamespacedLease({
        name: this.leaseName,
        namespace: this.namespace,
        body: { ...current, metadata, spec },
      });
      this.observer.holder(updated, seconds);
      if (!ours) this.reportLeader(this.identity);
      return true;
    } catch (error) {
      // 409: another candidate created or took the Lease between this read and write.
      if (statusOf(error) === 409) return false;
      throw error;
    }
  }

  private reportLeader(holder: string): void {
    if (holder === this.lastLeaderReported) return;
    this.lastLeaderReported = holder;
    this.report(
      holder === this.identity
        ? `[leader] ${this.identity} acquired ${this.where()}`
        : `[leader] ${this.identity} waits as a standby: ${holder} holds ${this.where()}`,
    );
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? (error.message.split("\n")[0] ?? "") : String(error);
}

/** Waits `ms`, or less when `signal` aborts. */
function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}
