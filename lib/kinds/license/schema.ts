import * as z from "zod";
import { Condition } from "../../api/conditions.js";
import { AGE_COLUMN, type KindDefinition } from "../../api/crd.js";
import { singletonName } from "../../api/singleton-name.js";
import { CappedKind, Feature } from "../../licence/entitlements.js";

export const LICENSE_KIND = "License";
export const LICENSE_PLURAL = "licenses";
/** The one License the product reads: a cluster-scoped singleton of this name. */
export const LICENSE_NAME = "navique";

const LICENSE_SINGLETON = singletonName(LICENSE_KIND, LICENSE_NAME, "the License is the one licence of a cluster");

/** A License's metadata.name: LICENSE_NAME, refused otherwise with the name received. */
export const licenseName = LICENSE_SINGLETON.rule;

export const LicenseSpec = z
  .object({
    token: z
      .string()
      .min(1)
      .max(8192)
      // Checked before the signature: base64url parts and dots, with the blank space a pasted token may
      // carry around it; nothing that could break a line of a status or Event the token's parts reach.
      .regex(/^[\t\n\r ]*[A-Za-z0-9_.-]+[\t\n\r ]*$/, {
        message:
          "must be a licence token: nvq1.<key id>.<payload>.<signature>, letters, digits, '-', '_' and '.' only; copy the whole token again",
      })
      .describe("The signed licence token (nvq1.<key id>.<payload>.<signature>), verified offline by the product."),
  })
  .strict()
  .describe("The signed offline licence.");
export type LicenseSpec = z.infer<typeof LicenseSpec>;
/** What a program writes as the License's spec, each field documented (generated from LicenseSpec). */
export type { LicenseSpecInput } from "../../api/generated/license-spec.js";

export const LicenseStatus = z
  .object({
    edition: z.enum(["Community", "Licensed"]).optional().describe("The edition in force."),
    licenseId: z.string().optional().describe("Identifier of the licence in force, as its token states it."),
    licensee: z.string().optional().describe("To whom the licence in force was issued."),
    expiresAt: z.string().optional().describe("When the licence expires; Community applies from then on."),
    features: z.array(Feature).default([]).describe("Paid features in force."),
    caps: z
      .partialRecord(
        CappedKind,
        z.number().int().min(0).describe("Most resources of this kind admitted per cluster; absent: no cap."),
      )
      .optional()
      .describe("Instance caps in force, per kind."),
    conditions: z.array(Condition).default([]).describe("Valid: whether the token verified, and if not why."),
  })
  .strict();
export type LicenseStatus = z.infer<typeof LicenseStatus>;

export const LICENSE_DEFINITION: KindDefinition = {
  kind: LICENSE_KIND,
  plural: LICENSE_PLURAL,
  singular: "license",
  shortNames: [],
  scope: "Cluster",
  description: `The signed offline licence: a cluster-scoped singleton named ${LICENSE_NAME}. Without a valid one, the Community defaults apply.`,
  spec: LicenseSpec,
  status: LicenseStatus,
  printerColumns: [
    { name: "Edition", type: "string", jsonPath: ".status.edition", description: "Edition in force" },
    { name: "Licence", type: "string", jsonPath: ".status.licenseId", description: "Licence id" },
    { name: "Expires", type: "string", jsonPath: ".status.expiresAt", description: "Expiry" },
    AGE_COLUMN,
  ],
  rootValidations: [LICENSE_SINGLETON.validation],
};
