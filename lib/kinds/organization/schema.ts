import * as z from "zod";
import { AGE_COLUMN, type KindDefinition, READY_COLUMN } from "../../api/crd.js";
import { ENGINE_STATUS } from "../../api/resource-status.js";
import { storedResource } from "../../api/stored-resource.js";
import { Alias, GatewayRef, IDENTITY_LIMITS, IDENTITY_STATUS } from "../identity/schema-parts.js";

export const ORGANIZATION_KIND = "Organization";
export const ORGANIZATION_PLURAL = "organizations";

export const OrganizationSpec = z
  .object({
    gatewayRef: GatewayRef,
    alias: Alias,
    ...IDENTITY_LIMITS,
  })
  .strict()
  .describe(
    "An organisation of the gateway's LiteLLM: its models and budget. Teams and users are declared on their own. Needs the licensed feature identities.",
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
