import { API_GROUP, API_VERSION } from "../../api/group.js";
import { type KubeClient, statusOf } from "../../cluster/kube-client.js";
import { recordEvent, sameStatus, withTransitionTimes } from "../../engine/report.js";
import type { Entitlements } from "../../licence/entitlements.js";
import { resolveEntitlements } from "../../licence/resolve.js";
import { readLicense } from "../../observe/license.js";
import { LICENSE_KIND, LICENSE_NAME, LICENSE_PLURAL, type LicenseStatus } from "./schema.js";

export interface LicenseOutcome {
  readonly entitlements: Entitlements;
  /** Set when this pass found the licence no longer in force (expired or refused) after it was. */
  readonly downgraded?: string;
}

/** The License's status for these entitlements; its condition keeps the stored lastTransitionTime unless its status changes. */
function licenseStatus(entitlements: Entitlements, now: Date, stored: LicenseStatus | undefined): LicenseStatus {
  const valid = entitlements.edition === "Licensed";
  return {
    edition: entitlements.edition,
    ...(entitlements.licenseId ? { licenseId: entitlements.licenseId } : {}),
    ...(entitlements.expiresAt ? { expiresAt: entitlements.expiresAt.toISOString() } : {}),
    features: [...entitlements.features],
    caps: { ...entitlements.caps },
    conditions: withTransitionTimes(
      stored?.conditions,
      [
        {
          type: "Valid",
          status: valid ? "True" : "False",
          reason: valid ? "Verified" : (entitlements.reason?.split(":")[0] ?? "NoLicence"),
          message: valid
            ? `licence ${entitlements.licenseId} verified offline; in force until ${entitlements.expiresAt?.toISOString()}`
            : `Community defaults apply: ${entitlements.reason ?? "no licence"}`,
        },
      ],
      now,
    ),
  };
}

/**
 * Verifies the License singleton at `now` and records the edition in force in its status. When a licence
 * that was in force no longer is (it expired, most often), the product downgrades to Community: it says so
 * with a Warning Event and changes nothing that runs — instances admitted before keep running.
 *
 * A status that says what is stored already is not written: the License watch would otherwise bring the
 * License back at once, and every operator would rewrite it in a loop. The write is conditional on the
 * resourceVersion read, and the downgrade Event has a name of its own, so that two operators record it
 * once between them.
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
  const status = licenseStatus(entitlements, options.now, license.status);
  const was = license.status?.edition;
  // Whether this pass changed the stored status: a downgrade is reported by the process that made it.
  let written = false;
  if (!license.status || !sameStatus(status, license.status)) {
    const { resourceVersion } = (license as { metadata: { resourceVersion?: string } }).metadata;
    try {
      await client.custom.patchClusterCustomObjectStatus(
        // JSON patch `add` replaces the member when it exists; the resourceVersion makes the write conditional.
        {
          group: API_GROUP,
          version: API_VERSION,
          plural: LICENSE_PLURAL,
          name: LICENSE_NAME,
          body: [
            ...(resourceVersion ? [{ op: "replace", path: "/metadata/resourceVersion", value: resourceVersion }] : []),
            { op: "add", path: "/status", value: status },
          ],
        },
        undefined,
      );
      written = true;
    } catch (error) {
      // Another operator wrote it meanwhile: the next pass decides from what it wrote.
      if (statusOf(error) !== 409) throw error;
    }
  }
  if (!written || was !== "Licensed" || entitlements.edition !== "Community") return { entitlements };
  const licenseId = license.status?.licenseId ?? "";
  const downgraded = `licence ${licenseId} no longer applies (${entitlements.reason}): downgraded to the Community edition. Nothing running was deleted or changed; new instances beyond the Community caps will be refused.`;
  const validSince = license.status?.conditions.find((c) => c.type === "Valid")?.lastTransitionTime ?? "";
  await recordEvent(
    client,
    { kind: LICENSE_KIND, metadata: { name: LICENSE_NAME, uid: license.metadata.uid } },
    { type: "Warning", reason: "LicenseDowngraded", message: downgraded, cause: `${licenseId}:${validSince}` },
    options.now,
    "Verify",
  );
  return { entitlements, downgraded };
}
