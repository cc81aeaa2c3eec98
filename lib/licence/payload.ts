import * as z from "zod";
import { CAPPED_KINDS, CappedKind, FEATURE_KINDS, Feature } from "./entitlements.js";

/** Text with no control or format characters (line breaks, bidi overrides). */
const PRINTABLE = /^[^\p{Cc}\p{Cf}]*$/u;

const instant = z.iso.datetime({ offset: true }).describe("An RFC 3339 instant, e.g. 2027-01-31T00:00:00Z.");

/** What a licence says, signed: identity, validity window, features and caps. Strict: nothing else. */
export const LicensePayload = z
  .object({
    // Quoted in statuses and Events: printable text only, even from a signed payload.
    licenseId: z
      .string()
      .min(1)
      .max(128)
      .regex(PRINTABLE, { message: "must be printable text, no control characters" }),
    licensee: z.string().min(1).max(256).regex(PRINTABLE, { message: "must be printable text, no control characters" }),
    issuedAt: instant,
    notBefore: instant,
    expiresAt: instant,
    features: z
      .array(Feature)
      .max(16)
      .refine((features) => new Set(features).size === features.length, { message: "features must not repeat" }),
    caps: z.partialRecord(CappedKind, z.number().int().min(0).max(100_000)),
  })
  .strict()
  .superRefine((payload, ctx) => {
    if (Date.parse(payload.expiresAt) <= Date.parse(payload.notBefore)) {
      ctx.addIssue({ code: "custom", message: "expiresAt must be after notBefore", path: ["expiresAt"] });
    }
    for (const feature of payload.features) {
      for (const kind of FEATURE_KINDS[feature]) {
        if (payload.caps[kind] !== undefined) continue;
        ctx.addIssue({
          code: "custom",
          message: `feature "${feature}" needs caps.${kind}: say how many ${kind} instances the licence allows (the Community cap is 0)`,
          path: ["caps", kind],
        });
      }
    }
  });
export type LicensePayload = z.infer<typeof LicensePayload>;

export { CAPPED_KINDS };
