import * as z from "zod";
import type { KindModule } from "../../engine/kind-module.js";
import { outputsProjection } from "../../engine/outputs.js";
import { LITELLM_API_VERSION, LITELLM_ORGANIZATION } from "../gateway/litellm-api.js";
import { LITELLM_OPERATOR_CAPABILITY } from "../gateway/module.js";
import { GATEWAY_KIND } from "../gateway/schema.js";
import { litellmPlacement } from "../identity/placement.js";
import { budgetFields, gatewayDependency, IDENTITIES_FEATURE } from "../identity/schema-parts.js";
import { IDENTITY_SYNCED, syncedIdentity } from "../identity/synced.js";
import { ORGANIZATION_DEFINITION, Organization, type OrganizationStatus } from "./schema.js";

/**
 * Organization: an organisation of a Gateway's LiteLLM, as a LiteLLMOrganization beside the gateway's
 * instance (licensed feature `identities`), with its members by email. Deleted, its LiteLLMOrganization
 * goes, and the LiteLLM operator's finalizer deletes it in LiteLLM. Upstream facts:
 * ../gateway/litellm-api.ts, docs/identities.md.
 */
export const ORGANIZATION_MODULE: KindModule<Organization, OrganizationStatus> = {
  definition: ORGANIZATION_DEFINITION,
  schema: Organization,
  name: Organization.shape.metadata.shape.name,
  licence: { feature: IDENTITIES_FEATURE },
  phase: IDENTITY_SYNCED,
  // The gateway's operator: counted for this resource too, so that it is not released under it.
  needs: () => [LITELLM_OPERATOR_CAPABILITY],
  emits: [{ ...LITELLM_ORGANIZATION, label: "LiteLLMOrganization" }],
  observes: () => [],
  references: () => [],
  referencesKinds: [GATEWAY_KIND],
  dependsOn: (organization) => [gatewayDependency(organization)],
  emitsIntoReferencedNamespaces: true,
  desired: (organization, view) => {
    const { name } = organization.metadata;
    const { spec } = organization;
    return syncedIdentity(
      {
        apiVersion: LITELLM_API_VERSION,
        kind: LITELLM_ORGANIZATION.kind,
        metadata: litellmPlacement(organization),
        spec: {
          instanceRef: { name: spec.gatewayRef.name },
          organizationAlias: spec.alias ?? name,
          ...budgetFields(spec, "maxBudget"),
          ...(spec.members ? { members: spec.members.map((m) => ({ email: m.email, role: m.role })) } : {}),
        },
      },
      view,
      (status) => status.litellmOrganizationId,
    );
  },
  outputs: outputsProjection({
    schema: z.object({ litellmId: z.string().describe("The id LiteLLM gave the organisation, once synced.") }),
    secrets: [],
    project: (status) => ({ litellmId: status.litellmId ?? "" }),
  }),
};
