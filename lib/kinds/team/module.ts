import * as z from "zod";
import type { KindModule } from "../../engine/kind-module.js";
import { outputsProjection } from "../../engine/outputs.js";
import { LITELLM_API_VERSION, LITELLM_TEAM } from "../gateway/litellm-api.js";
import { LITELLM_OPERATOR_CAPABILITY } from "../gateway/module.js";
import { GATEWAY_KIND } from "../gateway/schema.js";
import { litellmPlacement, placedNameOf } from "../identity/placement.js";
import {
  budgetFields,
  gatewayDependency,
  IDENTITIES_FEATURE,
  sameGatewayDependency,
} from "../identity/schema-parts.js";
import { IDENTITY_SYNCED, syncedIdentity } from "../identity/synced.js";
import { ORGANIZATION_KIND } from "../organization/schema.js";
import { TEAM_DEFINITION, Team, type TeamStatus } from "./schema.js";

/**
 * The LiteLLM operator's membership mode for the teams the product makes: `mixed`, so that the members a
 * User adds from its side (`teams[].teamRef`) are kept; in `crd` mode a team removes every member its own
 * spec does not list.
 */
export const TEAM_MEMBER_MANAGEMENT = "mixed";

/**
 * Team: a team of a Gateway's LiteLLM, as a LiteLLMTeam beside the gateway's instance (licensed feature
 * `identities`), in an Organization of the same gateway if it names one; its members are the Users that
 * list it. Deleted, its LiteLLMTeam goes, and the LiteLLM operator's finalizer deletes it in LiteLLM.
 * Upstream facts: ../gateway/litellm-api.ts, docs/identities.md.
 */
export const TEAM_MODULE: KindModule<Team, TeamStatus> = {
  definition: TEAM_DEFINITION,
  schema: Team,
  name: Team.shape.metadata.shape.name,
  licence: { feature: IDENTITIES_FEATURE },
  phase: IDENTITY_SYNCED,
  needs: () => [LITELLM_OPERATOR_CAPABILITY],
  emits: [{ ...LITELLM_TEAM, label: "LiteLLMTeam" }],
  observes: () => [],
  references: () => [],
  referencesKinds: [GATEWAY_KIND, ORGANIZATION_KIND],
  dependsOn: (team) => [
    gatewayDependency(team),
    ...(team.spec.organizationRef
      ? [
          sameGatewayDependency(team, {
            field: "spec.organizationRef",
            kind: ORGANIZATION_KIND,
            name: team.spec.organizationRef.name,
          }),
        ]
      : []),
  ],
  emitsIntoReferencedNamespaces: true,
  desired: (team, view) => {
    const { name } = team.metadata;
    const { spec } = team;
    return syncedIdentity(
      {
        apiVersion: LITELLM_API_VERSION,
        kind: LITELLM_TEAM.kind,
        metadata: litellmPlacement(team),
        spec: {
          instanceRef: { name: spec.gatewayRef.name },
          teamAlias: spec.alias ?? name,
          memberManagement: TEAM_MEMBER_MANAGEMENT,
          ...(spec.organizationRef ? { organizationRef: { name: placedNameOf(team, spec.organizationRef.name) } } : {}),
          // The operator's field says monthly; the reset period is budgetDuration's.
          ...budgetFields(spec, "maxBudgetMonthly"),
        },
      },
      view,
      (status) => status.litellmTeamId,
    );
  },
  outputs: outputsProjection({
    schema: z.object({ litellmId: z.string().describe("The id LiteLLM gave the team, once synced.") }),
    secrets: [],
    project: (status) => ({ litellmId: status.litellmId ?? "" }),
  }),
};
