import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import { setTimeout as sleep } from "node:timers/promises";
import { type V1Lease, V1MicroTime } from "@kubernetes/client-node";
import { SYSTEM_NAMESPACE } from "../api/group.js";
import { type KubeClient, orUndefined, statusOf } from "../cluster/kube-client.js";

/** How long a holder may go without renewing before another process may take the lock over. */
const LEASE_SECONDS = 60;
const RENEW_EVERY_MS = 15_000;
const POLL_MS = 500;

/** This process's identity as a lock holder: unique per process, readable in `kubectl get lease`. */
export const HOLDER_IDENTITY = `${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`;

function expired(lease: V1Lease, now: Date): boolean {
  const renewed = lease.spec?.renewTime ?? lease.spec?.acquireTime;
  if (!renewed) return true;
  const duration = (lease.spec?.leaseDurationSeconds ?? LEASE_SECONDS) * 1000;
  return new Date(renewed).getTime() + duration < now.getTime();
}

/**
 * A mutual-exclusion lock across processes and machines, made of a coordination.k8s.io Lease in the
 * system namespace: Helm is not safe for concurrent operations on one release, so every install,
 * upgrade or uninstall of a capability runs under the lock named after it. A holder that dies is
 * replaced once its lease expires; optimistic concurrency (resourceVersion) settles races.
 */
export async function withLeaseLock<T>(
  client: KubeClient,
  name: string,
  fn: () => Promise<T>,
  options: { readonly holder?: string; readonly onWait?: (holder: string) => void } = {},
): Promise<T> {
  const holder = options.holder ?? HOLDER_IDENTITY;
  await ensureSystemNamespace(client);
  await acquire(client, name, holder, options.onWait);
  const renewer = setInterval(() => {
    void renew(client, name, holder);
  }, RENEW_EVERY_MS);
  try {
    return await fn();
  } finally {
    clearInterval(renewer);
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

// Lease times are MicroTime: the apiserver refuses a timestamp with fewer than six fractional digits.
function leaseBody(name: string, holder: string, now: Date, resourceVersion?: string): V1Lease {
  const at = new V1MicroTime(now.getTime());
  return {
    metadata: { name, namespace: SYSTEM_NAMESPACE, ...(resourceVersion ? { resourceVersion } : {}) },
    spec: { holderIdentity: holder, leaseDurationSeconds: LEASE_SECONDS, acquireTime: at, renewTime: at },
  };
}

async function acquire(
  client: KubeClient,
  name: string,
  holder: string,
  onWait?: (holder: string) => void,
): Promise<void> {
  let reported = "";
  for (;;) {
    const now = new Date();
    const current = await orUndefined(client.coordination.readNamespacedLease({ name, namespace: SYSTEM_NAMESPACE }));
    try {
      if (!current) {
        await client.coordination.createNamespacedLease({
          namespace: SYSTEM_NAMESPACE,
          body: leaseBody(name, holder, now),
        });
        return;
      }
      if (current.spec?.holderIdentity === holder || expired(current, now)) {
        await client.coordination.replaceNamespacedLease({
          name,
          namespace: SYSTEM_NAMESPACE,
          body: leaseBody(name, holder, now, current.metadata?.resourceVersion),
        });
        return;
      }
    } catch (error) {
      // 409: another process created or took the lease between our read and write; look again.
      if (statusOf(error) !== 409) throw error;
      continue;
    }
    const other = current.spec?.holderIdentity ?? "unknown";
    if (other !== reported) {
      reported = other;
      onWait?.(other);
    }
    await sleep(POLL_MS);
  }
}

async function renew(client: KubeClient, name: string, holder: string): Promise<void> {
  const current = await orUndefined(
    client.coordination.readNamespacedLease({ name, namespace: SYSTEM_NAMESPACE }),
  ).catch(() => undefined);
  if (current?.spec?.holderIdentity !== holder) return;
  await client.coordination
    .replaceNamespacedLease({
      name,
      namespace: SYSTEM_NAMESPACE,
      body: { ...current, spec: { ...current.spec, renewTime: new V1MicroTime() } },
    })
    .catch(() => undefined);
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
