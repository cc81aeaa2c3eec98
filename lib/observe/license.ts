import type { KubernetesObject } from "@kubernetes/client-node";
import { API_GROUP, API_VERSION } from "../api/group.js";
import { type KubeClient, orUndefined, statusOf } from "../cluster/kube-client.js";
import { LICENSE_NAME, LICENSE_PLURAL, type LicenseStatus } from "../kinds/license/schema.js";
import type { Instance } from "../licence/enforce.js";
import type { Entitlements } from "../licence/entitlements.js";
import { resolveEntitlements } from "../licence/resolve.js";

/** The License singleton as stored; only the fields the product reads. */
export interface StoredLicense {
  readonly metadata: { readonly uid?: string };
  readonly spec?: { readonly token?: string };
  readonly status?: LicenseStatus;
}

/** The cluster's License singleton, or undefined when there is none (or no License kind yet: Community). */
export async function readLicense(client: KubeClient): Promise<StoredLicense | undefined> {
  try {
    return (await orUndefined(
      client.custom.getClusterCustomObject({
        group: API_GROUP,
        version: API_VERSION,
        plural: LICENSE_PLURAL,
        name: LICENSE_NAME,
      }),
    )) as StoredLicense | undefined;
  } catch (error) {
    if (statusOf(error) === 404) return undefined;
    throw error;
  }
}

/** The entitlements in force at `now`, from the cluster's License; the Community defaults without a valid one. */
export async function observeEntitlements(
  client: KubeClient,
  options: {
    readonly now: Date;
    readonly trustedKeys?: ReadonlyMap<string, string>;
    /**
     * The License kind's objects from a watch cache kept current (the operator's), or undefined when
     * there is none complete: then the singleton is read.
     */
    readonly licences?: () => readonly KubernetesObject[] | undefined;
  },
): Promise<Entitlements> {
  const cached = options.licences?.();
  const license = cached
    ? (cached.find((object) => object.metadata?.name === LICENSE_NAME) as StoredLicense | undefined)
    : await readLicense(client);
  return resolveEntitlements(license?.spec?.token, {
    now: options.now,
    ...(options.trustedKeys ? { trustedKeys: options.trustedKeys } : {}),
  });
}

/**
 * Every instance of a capped kind as the cap sees it, `self` included: a resource not created yet (a
 * preview) is the newest instance.
 */
export function capInstances<R extends { readonly metadata: { readonly namespace: string; readonly name: string } }>(
  all: readonly R[],
  self: R,
  instanceOf: (resource: R, now: string) => Instance,
  now: Date,
): Instance[] {
  const at = now.toISOString();
  const instances = all.map((other) => instanceOf(other, at));
  const stored = all.some(
    (o) => o.metadata.namespace === self.metadata.namespace && o.metadata.name === self.metadata.name,
  );
  if (!stored) instances.push(instanceOf(self, at));
  return instances;
}
