import * as z from "zod";
import { AGE_COLUMN, type KindDefinition, READY_COLUMN } from "../../api/crd.js";
import { withDefault } from "../../api/named-default.js";
import { objectName } from "../../api/refs.js";
import { ENGINE_STATUS } from "../../api/resource-status.js";
import { storedResource } from "../../api/stored-resource.js";
import { Email, GatewayRef, IDENTITY_LIMITS, IDENTITY_STATUS } from "../identity/schema-parts.js";

export const USER_KIND = "User";
export const USER_PLURAL = "users";

/** LiteLLM's user roles, as the LiteLLM operator's CRD enumerates them. */
export const USER_ROLES = ["proxy_admin", "proxy_admin_viewer", "internal_user", "internal_user_viewer"] as const;
/** @default for `spec.role`: the LiteLLM operator's own default. */
export const DEFAULT_USER_ROLE = "internal_user";
/** A member's role within a team, as the LiteLLM operator's CRD enumerates them. */
export const TEAM_ROLES = ["admin", "user"] as const;
/** @default for `spec.teams[].role`. */
export const DEFAULT_TEAM_ROLE = "user";
/** Most teams a User belongs to. */
export const MAX_USER_TEAMS = 50;

export const UserTeam = z
  .object({
    name: objectName.describe("A Team of this namespace, on the same gateway."),
    role: withDefault(z.enum(TEAM_ROLES), { DEFAULT_TEAM_ROLE }).describe(
      `The user's role within the team: ${TEAM_ROLES.join(" or ")}. Default ${DEFAULT_TEAM_ROLE}.`,
    ),
  })
  .strict();

export const UserSpec = z
  .object({
    gatewayRef: GatewayRef,
    email: Email.describe("The user's email address: their user id in LiteLLM, and what they sign in with."),
    role: withDefault(z.enum(USER_ROLES), { DEFAULT_USER_ROLE }).describe(
      `The user's role in LiteLLM: ${USER_ROLES.join(", ")}. Default ${DEFAULT_USER_ROLE}.`,
    ),
    ...IDENTITY_LIMITS,
    teams: z
      .array(UserTeam)
      .max(MAX_USER_TEAMS)
      .meta({ "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"] })
      .optional()
      .describe(`The Teams the user belongs to, each once, at most ${MAX_USER_TEAMS}. Default: none.`),
  })
  .strict()
  .superRefine((spec, ctx) => {
    const seen = new Set<string>();
    spec.teams?.forEach((team, index) => {
      if (seen.has(team.name))
        ctx.addIssue({
          code: "custom",
          path: ["teams", index, "name"],
          message: `team "${team.name}" is listed twice: list each team once, with one role`,
        });
      seen.add(team.name);
    });
  })
  .describe(
    "A user of the gateway's LiteLLM: their role, models, budget and teams; an initial password generated into a Secret. Needs the licensed feature identities.",
  );
export type UserSpec = z.infer<typeof UserSpec>;
/** What a program writes as a User's spec, each field documented (generated from UserSpec). */
export type { UserSpecInput } from "../../api/generated/user-spec.js";

export const UserStatus = z
  .object({
    ...ENGINE_STATUS,
    ...IDENTITY_STATUS,
    passwordSecret: z
      .object({ name: objectName.describe("Name of the Secret, in the User's namespace: key `password`.") })
      .strict()
      .optional()
      .describe("The Secret holding the user's generated initial password: its name only, never the value."),
  })
  .strict();
export type UserStatus = z.infer<typeof UserStatus>;

/** A User as stored in the cluster. */
export const User = storedResource(USER_KIND, UserSpec, UserStatus);
export type User = z.infer<typeof User>;

export const USER_DEFINITION: KindDefinition = {
  kind: USER_KIND,
  plural: USER_PLURAL,
  singular: "user",
  shortNames: [],
  scope: "Namespaced",
  description:
    "A user of a Gateway's LiteLLM (licensed feature identities): a LiteLLMUser beside the gateway with their role, models, budget and teams, and an initial password generated into a Secret the product owns.",
  spec: UserSpec,
  status: UserStatus,
  printerColumns: [
    READY_COLUMN,
    { name: "Email", type: "string", jsonPath: ".spec.email", description: "The user's email" },
    AGE_COLUMN,
  ],
};
