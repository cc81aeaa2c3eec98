import * as z from "zod";
import { AGE_COLUMN, type KindDefinition, READY_COLUMN } from "../../api/crd.js";
import { API_GROUP } from "../../api/group.js";
import { LocalRef, referenceTo } from "../../api/refs.js";
import { ENGINE_STATUS } from "../../api/resource-status.js";
import { storedResource } from "../../api/stored-resource.js";
import { Alias, GatewayRef, IDENTITY_LIMITS, IDENTITY_STATUS } from "../identity/schema-parts.js";
import { ORGANIZATION_KIND } from "../organization/schema.js";

export const TEAM_KIND = "Team";
export const TEAM_PLURAL = "teams";

export const TeamSpec = z
  .object({
    gatewayRef: GatewayRef,
    alias: Alias,
    organizationRef: referenceTo({ group: API_GROUP, kinds: [ORGANIZATION_KIND] } as const, LocalRef)
      .optional()
      .describe(
        "The Organization (in this namespace, of the same Gateway) the team belongs to in LiteLLM. Default: none.",
      ),
    ...IDENTITY_LIMITS,
  })
  .strict()
  .describe(
    "A team of the gateway's LiteLLM: its models and budget, in an Organization if it names one. Its members are the Users that list it in spec.teams. Needs the licensed feature identities.",
  );
export type TeamSpec = z.infer<typeof TeamSpec>;
/** What a program writes as a Team's spec, each field documented (generated from TeamSpec). */
export type { TeamSpecInput } from "../../api/generated/team-spec.js";

export const TeamStatus = z.object({ ...ENGINE_STATUS, ...IDENTITY_STATUS }).strict();
export type TeamStatus = z.infer<typeof TeamStatus>;

/** A Team as stored in the cluster. */
export const Team = storedResource(TEAM_KIND, TeamSpec, TeamStatus);
export type Team = z.infer<typeof Team>;

export const TEAM_DEFINITION: KindDefinition = {
  kind: TEAM_KIND,
  plural: TEAM_PLURAL,
  singular: "team",
  shortNames: [],
  scope: "Namespaced",
  description:
    "A team of a Gateway's LiteLLM (licensed feature identities): a LiteLLMTeam beside the gateway, its models and budget; its members are the Users that list it.",
  spec: TeamSpec,
  status: TeamStatus,
  printerColumns: [READY_COLUMN, AGE_COLUMN],
};
