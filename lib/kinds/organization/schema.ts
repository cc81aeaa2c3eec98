import * as z from "zod";
import { AGE_COLUMN, type KindDefinition, READY_COLUMN } from "../../api/crd.js";
import { withDefault } from "../../api/named-default.js";
import { ENGINE_STATUS } from "../../api/resource-status.js";
import { storedResource } from "../../api/stored-resource.js";
import { Alias, Email, GatewayRef, IDENTITY_LIMITS, IDENTITY_STATUS } from "../identity/schema-parts.js";

export const ORGANIZATION_KIND = "Organization";
export const ORGANIZATION_PLURAL = "organizations";

/** A member's role within an organisation, as the LiteLLM operator's CRD enumerates them. */
export const ORGANIZATION_ROLES = ["org_admin", "internal_user"] as const;
/** @default for `spec.members[].role`: the LiteLLM operator's own default. */
export const DEFAULT_ORGANIZATION_ROLE = "internal_user";
/** Most members an Organization lists. */
export const MAX_ORGANIZATION_MEMBERS = 500;

export const OrganizationMember = z
  .object({
    email: Email.describe("The member's email address, as LiteLLM knows them (a User's spec.email)."),
    role: withDefault(z.enum(ORGANIZATION_ROLES), { DEFAULT_ORGANIZATION_ROLE }).describe(
      `The member's role in the organisation: ${ORGANIZATION_ROLES.join(" or ")}. Default ${DEFAULT_ORGANIZATION_ROLE}.`,
    ),
  })
  .strict();

export const OrganizationSpec = z
  .object({
    gatewayRef: GatewayRef,
    alias: Alias,
    ...IDENTITY_LIMITS,
    members: z
      .array(OrganizationMember)
      .max(MAX_ORGANIZATION_MEMBERS)
      .meta({ "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["email"] })
      .optional()
      .describe(
        `The organisation's members by email, each once, at most ${MAX_ORGANIZATION_MEMBERS}; LiteLLM then holds exactly these (one listed no more is removed from it). Default: none, and those LiteLLM holds are left as they are.`,
      ),
  })
  .strict()
  .superRefine((spec, ctx) => {
    const seen = new Set<string>();
    spec.members?.forEach((member, index) => {
      if (seen.has(member.email))
        ctx.addIssue({
          code: "custom",
          path: ["members", index, "email"],
          message: `member "${member.email}" is listed twice: list each member once, with one role`,
        });
      seen.add(member.email);
    });
  })
  .describe(
    "An organisation of the gateway's LiteLLM: its models, budget and members. Teams and users are declared on their own. Needs the licensed feature identities.",
  );
export type OrganizationSpec = z.infer<typeof OrganizationSpec>;
/** What a program writes as an Organization's spec, each field documented (generated from OrganizationSpec). */
export type { OrganizationSpecInput } from "../../api/generated/organization-spec.js";

export const OrganizationStatus = z.object({ ...ENGINE_STATUS, ...IDENTITY_STATUS }).strict();
export type OrganizationStatus = z.infer<typeof OrganizationStatus>;

/** An Organization as stored in the cluster. */
export const Organization = storedResource(ORGANIZATION_KIND, OrganizationSpec, OrganizationStatus);
export type Organization = z.infer<typeof Organization>;

export const ORGANIZATION_DEFINITION: KindDefinition = {
  kind: ORGANIZATION_KIND,
  plural: ORGANIZATION_PLURAL,
  singular: "organization",
  shortNames: ["org"],
  scope: "Namespaced",
  description:
    "An organisation of a Gateway's LiteLLM (licensed feature identities): a LiteLLMOrganization beside the gateway, its models and budget.",
  spec: OrganizationSpec,
  status: OrganizationStatus,
  printerColumns: [READY_COLUMN, AGE_COLUMN],
};
