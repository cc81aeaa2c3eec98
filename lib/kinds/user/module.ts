import * as z from "zod";
import type { Dependency } from "../../engine/dependencies.js";
import { generateSecretStep } from "../../engine/generated-secret.js";
import type { KindModule } from "../../engine/kind-module.js";
import type { KubeObject } from "../../engine/objects.js";
import { outputsProjection } from "../../engine/outputs.js";
import { LITELLM_API_VERSION, LITELLM_USER } from "../gateway/litellm-api.js";
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
import { TEAM_KIND } from "../team/schema.js";
import { USER_DEFINITION, User, type UserStatus } from "./schema.js";

/** The Secret holding a User's generated initial password: `<user>-initial-password`, key `password`. */
export function passwordSecretName(user: User): string {
  return `${user.metadata.name}-initial-password`;
}

/** Its key: what the LiteLLM operator's `initialPasswordSecretRef` would name. */
export const PASSWORD_KEY = "password";

/** Each Team the user lists, of the same Gateway, Ready before it is made a member of it. */
function teamDependencies(user: User): Dependency[] {
  return (user.spec.teams ?? []).map((team, index) =>
    sameGatewayDependency(user, { field: `spec.teams[${index}].name`, kind: TEAM_KIND, name: team.name }),
  );
}

/**
 * User: a user of a Gateway's LiteLLM, as a LiteLLMUser beside the gateway's instance (licensed feature
 * `identities`) with their role, models, budget and teams — each a Team's LiteLLMTeam, by `teamRef` —,
 * and an initial password generated into a Secret the product owns. The LiteLLM operator of the pinned
 * chart (0.23.0) has no field to pass it on (`initialPasswordSecretRef` came later): the Secret waits
 * for it, and status says where it is. Deleted, the LiteLLMUser goes — the LiteLLM operator's finalizer
 * deletes the user in LiteLLM, and with it their keys — and the Secret with it. Upstream facts:
 * ../gateway/litellm-api.ts, docs/identities.md.
 */
export const USER_MODULE: KindModule<User, UserStatus> = {
  definition: USER_DEFINITION,
  schema: User,
  name: User.shape.metadata.shape.name,
  licence: { feature: IDENTITIES_FEATURE },
  phase: IDENTITY_SYNCED,
  needs: () => [LITELLM_OPERATOR_CAPABILITY],
  emits: [
    { apiVersion: "v1", kind: "Secret", plural: "secrets" },
    { ...LITELLM_USER, label: "LiteLLMUser" },
  ],
  observes: () => [],
  references: () => [],
  referencesKinds: [GATEWAY_KIND, TEAM_KIND],
  dependsOn: (user) => [gatewayDependency(user), ...teamDependencies(user)],
  emitsIntoReferencedNamespaces: true,
  desired: (user, view) => {
    const { namespace } = user.metadata;
    const { spec } = user;
    const secret: KubeObject = {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: passwordSecretName(user), namespace },
      type: "Opaque",
    };
    const made = syncedIdentity(
      {
        apiVersion: LITELLM_API_VERSION,
        kind: LITELLM_USER.kind,
        metadata: litellmPlacement(user),
        spec: {
          instanceRef: { name: spec.gatewayRef.name },
          userId: spec.email,
          userEmail: spec.email,
          userRole: spec.role,
          ...budgetFields(spec, "maxBudget"),
          ...(spec.teams
            ? {
                teams: spec.teams.map((team) => ({
                  teamRef: { name: placedNameOf(user, team.name) },
                  role: team.role,
                })),
              }
            : {}),
        },
      },
      view,
      (status) => status.litellmUserId,
      [
        generateSecretStep(
          secret,
          { [PASSWORD_KEY]: { length: 24, alphabet: "alphanumeric" } },
          {
            description: `create Secret ${namespace}/${secret.metadata.name} with a generated initial password (kept if it exists)`,
            rotation: `a new initial password: give it to ${spec.email}, who has not signed in with the old one if it was never passed on`,
          },
        ),
      ],
    );
    return { ...made, status: { ...made.status, passwordSecret: { name: secret.metadata.name } } };
  },
  outputs: outputsProjection({
    schema: z.object({
      litellmId: z.string().describe("The id LiteLLM gave the user, once synced."),
      passwordSecret: z.string().describe("The Secret holding the initial password (key `password`): its name only."),
    }),
    secrets: [],
    project: (status) => ({ litellmId: status.litellmId ?? "", passwordSecret: status.passwordSecret?.name ?? "" }),
  }),
};
