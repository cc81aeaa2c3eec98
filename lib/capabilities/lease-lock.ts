import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import { setTimeout as sleep } from "node:timers/promises";
import { type V1Lease, V1MicroTime } from "@kubernetes/client-node";
import * as z from "zod";
import { SYSTEM_NAMESPACE } from "../api/group.js";
import { holderAnnotations, holderProcessGone } from "../cluster/holder-process.js";
import { type KubeClient, orUndefined, statusOf } from "../cluster/kube-client.js";
import { HOLDER_LEADERSHIP_ANNOTATION, leadershipHeld } from "../cluster/leader-election.js";
import { type LeaseHolder, LeaseObserver } from "../cluster/lease-observer.js";

/**
 * How long a holder may go without renewing before another process may take the lock over. Short, so that
 * a holder killed mid-install (kill -9, a node lost) delays the next one by seconds, not a minute; the
 * holder renews three times per lease, so one or two slow or failed renewals on a busy apiserver do not
 * lose it.
 */
export const LEASE_SECONDS = 15;
export const RENEW_EVERY_MS = 5_000;
const POLL_MS = 500;

/** This process's identity as a lock holder: unique per process, readable in `kubectl get lease`. */
export const HOLDER_IDENTITY = `${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`;

export type { LeaseHolder } from "../cluster/lease-observer.js";

export interface LeaseLockOptions {
  readonly holder?: string;
  /** Called when the lock is found held by someone else, once per holder. */
  readonly onWait?: (holder: LeaseHolder) => void;
  /** Called when the lock is taken at once from a holder known to be dead, with why it is known. */
  readonly onTakeOver?: (holder: string, why: string) => void;
  /** Called when a renewal fails; the holder keeps working, and the next renewal tries again. */
  readonly onRenewFailed?: (error: unknown) => void;
  /** The lease's duration, as client-go's LeaseDuration. @default LEASE_SECONDS */
  readonly leaseSeconds?: number;
  /** How often the holder renews, as client-go's RetryPeriod. @default RENEW_EVERY_MS */
  readonly renewEveryMs?: number;
}

/**
 * A mutual-exclusion lock across processes and machines, made of a coordination.k8s.io Lease in the
 * system namespace: Helm is not safe for concurrent operations on one release, so every install,
 * upgrade or uninstall of a capability runs under the lock named after it. The holder renews the lease
 * while `fn` runs (a timer: helm runs as a child process, so the event loop stays free to renew); a
 * holder that dies is replaced at once when it is known dead (its process ended on this machine, or it
 * led and another leads now), else once its lease has gone unrenewed for its duration; optimistic
 * concurrency (resourceVersion) settles races. See docs/adr/0007-install-lock.md.
 */
export async function withLeaseLock<T>(
  client: KubeClient,
  name: string,
  fn: () => Promise<T>,
  options: LeaseLockOptions = {},
): Promise<T> {
  const holder = options.holder ?? HOLDER_IDENTITY;
  return inProcess(`${holder}\u0000${name}`, () => withLease(client, name, holder, fn, options));
}

/**
 * The locks this process holds or waits for, by holder and name: the tail of each one's queue of callers.
 * The Lease excludes other processes; a holder finding the Lease already its own takes it (a lease left by
 * a renewal that outlived its release), so two callers of one process — two reconciles of the operator's
 * work queue needing the same capability at once — are queued here, one after the other.
 */
const localQueues = new Map<string, Promise<void>>();

async function inProcess<T>(key: string, fn: () => Promise<T>): Promise<T> {
  const before = localQueues.get(key) ?? Promise.resolve();
  let done: () => void = () => {};
  const tail = before.then(() => new Promise<void>((resolve) => (done = resolve)));
  localQueues.set(key, tail);
  await before;
  try {
    return await fn();
  } finally {
    done();
    if (localQueues.get(key) === tail) localQueues.delete(key);
  }
}

async function withLease<T>(
  client: KubeClient,
  name: string,
  holder: string,
  fn: () => Promise<T>,
  options: LeaseLockOptions,
): Promise<T> {
  await ensureSystemNamespace(client);
  await acquire(client, name, holder, options.leaseSeconds ?? LEASE_SECONDS, options);
  let renewal: Promise<void> = Promise.resolve();
  const renewer = setInterval(() => {
    // One renewal at a time; a failure is reported and never rejects (an unhandled rejection would end the process).
    renewal = renewal.then(() => renew(client, name, holder)).catch((error: unknown) => options.onRenewFailed?.(error));
  }, options.renewEveryMs ?? RENEW_EVERY_MS);
  try {
    return await fn();
  } finally {
    clearInterval(renewer);
    await renewal;
    await releaseLease(client, name, holder);
  }
}

export async function ensureSystemNamespace(client: KubeClient): Promise<void> {
  try {
    await client.core.createNamespace({ body: { metadata: { name: SYSTEM_NAMESPACE } } });
  } catch (error) {
    if (statusOf(error) !== 409) throw error;
  }
}

/**
 * What a holder records of itself, so that a contender can tell at once that it is dead: its process (a
 * contender on the same machine sees it ended) and, when it leads, its leadership (a contender anywhere
 * sees another lead: the holder stopped its work, as a leader that lost the lead does).
 */
function lockAnnotations(): Record<string, string> {
  const leadership = leadershipHeld();
  return {
    ...holderAnnotations(),
    ...(leadership ? { [HOLDER_LEADERSHIP_ANNOTATION]: JSON.stringify(leadership) } : {}),
  };
}

const recordedLeadership = z.strictObject({
  namespace: z.string().min(1).max(63),
  name: z.string().min(1).max(253),
  identity: z.string().min(1).max(253),
});

/**
 * Why the lock's holder is known to be dead without waiting out its lease, or undefined: its process ended
 * on this machine, or it led when it took the lock and no longer does.
 */
async function deadHolder(client: KubeClient, lease: V1Lease): Promise<string | undefined> {
  const annotations = lease.metadata?.annotations;
  if (holderProcessGone(annotations)) return "its process, on this machine, has ended";
  const text = annotations?.[HOLDER_LEADERSHIP_ANNOTATION];
  if (!text) return undefined;
  let recorded: z.infer<typeof recordedLeadership>;
  try {
    recorded = recordedLeadership.parse(JSON.parse(text));
  } catch {
    return undefined;
  }
  const leader = await orUndefined(
    client.coordination.readNamespacedLease({ name: recorded.name, namespace: recorded.namespace }),
  );
  const now = leader?.spec?.holderIdentity || "nobody";
  if (now === recorded.identity) return undefined;
  return `it led as ${recorded.identity} and the leader Lease ${recorded.namespace}/${recorded.name} is now held by ${now}`;
}

// Lease times are MicroTime: the apiserver refuses a timestamp with fewer than six fractional digits.
function leaseBody(name: string, holder: string, seconds: number, now: Date, resourceVersion?: string): V1Lease {
  const at = new V1MicroTime(now.getTime());
  return {
    metadata: {
      name,
      namespace: SYSTEM_NAMESPACE,
      annotations: lockAnnotations(),
      ...(resourceVersion ? { resourceVersion } : {}),
    },
    spec: { holderIdentity: holder, leaseDurationSeconds: seconds, acquireTime: at, renewTime: at },
  };
}

async function acquire(
  client: KubeClient,
  name: string,
  holder: string,
  seconds: number,
  options: Pick<LeaseLockOptions, "onWait" | "onTakeOver">,
): Promise<void> {
  const observer = new LeaseObserver();
  let reported = "";
  for (;;) {
    const now = new Date();
    const current = await orUndefined(client.coordination.readNamespacedLease({ name, namespace: SYSTEM_NAMESPACE }));
    try {
      if (!current) {
        await client.coordination.createNamespacedLease({
          namespace: SYSTEM_NAMESPACE,
          body: leaseBody(name, holder, seconds, now),
        });
        return;
      }
      const dead = current.spec?.holderIdentity === holder ? undefined : await deadHolder(client, current);
      if (dead) options.onTakeOver?.(current.spec?.holderIdentity ?? "unknown", dead);
      if (current.spec?.holderIdentity === holder || observer.holder(current, LEASE_SECONDS).expired || dead) {
        await client.coordination.replaceNamespacedLease({
          name,
          namespace: SYSTEM_NAMESPACE,
          body: leaseBody(name, holder, seconds, now, current.metadata?.resourceVersion),
        });
        return;
      }
    } catch (error) {
      // 409: another process created or took the lease between our read and write; look again.
      if (statusOf(error) !== 409) throw error;
      continue;
    }
    const other = observer.holder(current, LEASE_SECONDS);
    if (other.identity !== reported) {
      reported = other.identity;
      options.onWait?.(other);
    }
    await sleep(POLL_MS);
  }
}

/** Renews the lease if this holder still holds it; throws what the apiserver answered otherwise. */
async function renew(client: KubeClient, name: string, holder: string): Promise<void> {
  const current = await orUndefined(client.coordination.readNamespacedLease({ name, namespace: SYSTEM_NAMESPACE }));
  if (current?.spec?.holderIdentity !== holder)
    throw new Error(
      `the lease ${SYSTEM_NAMESPACE}/${name} is no longer held by ${holder} (held by ${current?.spec?.holderIdentity ?? "nobody"})`,
    );
  await client.coordination.replaceNamespacedLease({
    name,
    namespace: SYSTEM_NAMESPACE,
    body: { ...current, spec: { ...current.spec, renewTime: new V1MicroTime() } },
  });
}

async function releaseLease(client: KubeClient, name: string, holder: string): Promise<void> {
  const current = await orUndefined(client.coordination.readNamespacedLease({ name, namespace: SYSTEM_NAMESPACE }));
  if (current?.spec?.holderIdentity !== holder) return;
  await orUndefined(
    client.coordination.deleteNamespacedLease({
      name,
      namespace: SYSTEM_NAMESPACE,
      body: { preconditions: { resourceVersion: current.metadata?.resourceVersion } },
    }),
  ).catch((error: unknown) => {
    if (statusOf(error) !== 409) throw error;
  });
}
