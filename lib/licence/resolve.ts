import { COMMUNITY_CAPS, communityEntitlements, type Entitlements } from "./entitlements.js";
import { LicenseError, verifyLicense } from "./token.js";
import { TRUSTED_KEYS } from "./trusted-keys.js";

/**
 * The entitlements in force at `now`: the licence's when its token verifies, otherwise the Community
 * defaults with the reason (never an exception: a bad licence must not stop the base platform). Caps a
 * licence does not name keep their Community value.
 */
export function resolveEntitlements(
  token: string | undefined,
  options: { readonly now: Date; readonly trustedKeys?: ReadonlyMap<string, string> },
): Entitlements {
  if (token === undefined || token.trim() === "") return communityEntitlements();
  try {
    const { payload } = verifyLicense(token, { trustedKeys: options.trustedKeys ?? TRUSTED_KEYS, now: options.now });
    return {
      edition: "Licensed",
      features: new Set(payload.features),
      caps: { ...COMMUNITY_CAPS, ...payload.caps },
      licenseId: payload.licenseId,
      expiresAt: new Date(payload.expiresAt),
    };
  } catch (error) {
    if (error instanceof LicenseError) return communityEntitlements(`${error.code}: ${error.message}`);
    throw error;
  }
}
