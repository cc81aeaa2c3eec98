import { V1MicroTime } from "@kubernetes/client-node";
import { API_GROUP, API_GROUP_VERSION, API_VERSION, OPERATOR_NAME } from "../api/group.js";
import { LICENSE_KIND, LICENSE_NAME, LICENSE_PLURAL, type LicenseStatus } from "../api/license.js";
import { HOLDER_IDENTITY } from "../apply/lease-lock.js";
import type { KubeClient } from "../cluster/kube-client.js";
import type { Entitlements } from "../licence/entitlements.js";
import { resolveEntitlements } from "../licence/resolve.js";
import { readLicense } from "../observe/license.js";

/** Events about the cluster-scoped License are recorded in this namespace, as Kubernetes does for Nodes. */
const EVENT_NAMESPACE = "default";

export interface LicenseOutcome {
  readonly entitlements: Entitlements;
  /** Set when this pass found the licence no longer in force (expired or refused) after it was. */
  readonly downgraded?: string;
}

function licenseStatus(entitlements: Entitlements, now: Date): LicenseStatus {
  const valid = entitlements.edition === "Licensed";
  return {
    edition: entitlements.edition,
    ...(entitlements.licenseId ? { licenseId: entitlements.licenseId } : {}),
    ...(entitlements.expiresAt ? { expiresAt: entitlements.expiresAt.toISOString() } : {}),
    features: [...entitlements.features],
    caps: { ...entitlements.caps },
    conditions: [
      {
        type: "Valid",
        status: valid ? "True" : "False",
        reason: valid ? "Verified" : (entitlements.reason?.split(":")[0] ?? "NoLicence"),
        message: valid
          ? `licence ${entitlements.licenseId} verified offline; in force until ${entitlements.expiresAt?.toISOString()}`
          : `Community defaults apply: ${entitlements.reason ?? "no licence"}`,
        lastTransitionTime: now.toISOString(),
      },
    ],
  };
}

/**
 * Verifies the License singleton at `now` and records the edition in force in its status. When a licence
 * that was in force no longer is (it expired, most often), the product downgrades to Community: it says so
 * with a Warning Event and changes nothing that runs — instances admitted before keep running.
 */
export async function reconcileLicense(
  client: KubeClient,
  options: { readonly now: Date; readonly trustedKeys?: ReadonlyMap<string, string> },
): Promise<LicenseOutcome | undefined> {
  const license = await readLicense(client);
  if (!license) return undefined;
  const entitlements = resolveEntitlements(license.spec?.token, {
    now: options.now,
    ...(options.trustedKeys ? { trustedKeys: options.trustedKeys } : {}),
  });
  const status = licenseStatus(entitlements, options.now);
  const was = license.status?.edition;
  await client.custom.patchClusterCustomObjectStatus(
    // JSON patch `add` replaces the member when it exists.
    {
      group: API_GROUP,
      version: API_VERSION,
      plural: LICENSE_PLURAL,
      name: LICENSE_NAME,
      body: [{ op: "add", path: "/status", value: status }],
    },
    undefined,
  );
  if (was !== "Licensed" || entitlements.edition !== "Community") return { entitlements };
  const downgraded = `licence ${license.status?.licenseId ?? ""} no longer applies (${entitlements.reason}): downgraded to the Community edition. Nothing running was deleted or changed; new instances beyond the Community caps will be refused.`;
  await client.events.createNamespacedEvent({
    namespace: EVENT_NAMESPACE,
    body: {
      metadata: { generateName: "navique-license-", namespace: EVENT_NAMESPACE },
      eventTime: new V1MicroTime(options.now.getTime()),
      type: "Warning",
      reason: "LicenseDowngraded",
      note: downgraded.slice(0, 1024),
      action: "Verify",
      reportingController: `${API_GROUP}/${OPERATOR_NAME}`,
      reportingInstance: HOLDER_IDENTITY.slice(0, 128),
      regarding: {
        apiVersion: API_GROUP_VERSION,
        kind: LICENSE_KIND,
        name: LICENSE_NAME,
        uid: license.metadata.uid ?? "",
      },
    },
  });
  return { entitlements, downgraded };
}
