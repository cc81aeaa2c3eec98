import { API_GROUP, API_VERSION } from "../api/group.js";
import { LICENSE_NAME, LICENSE_PLURAL, type LicenseStatus } from "../api/license.js";
import { type KubeClient, orUndefined, statusOf } from "../cluster/kube-client.js";

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
