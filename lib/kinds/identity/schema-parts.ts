import * as z from "zod";
import { API_GROUP } from "../../api/group.js";
import { ObjectRef, referenceTo, refNamespace } from "../../api/refs.js";
import type { Dependency } from "../../engine/dependencies.js";
import { GATEWAY_KIND, GatewayModel } from "../gateway/schema.js";

// What Organization, Team and User share: the Gateway whose LiteLLM they are identities of, the models
// they may use and their budget — each mapped onto the LiteLLM operator's field of the same meaning
// (lib/kinds/gateway/litellm-api.ts).

/** The licensed feature every identity kind needs. */
export const IDENTITIES_FEATURE = "identities";

/**
 * The Gateway: in the identity's namespace, or in another under a ReferenceGrant there. What an identity
 * makes sits beside the gateway's LiteLLMInstance — the LiteLLM operator resolves `instanceRef` in the
 * namespace of the object naming it (identity/placement.ts).
 */
export const GatewayRef = referenceTo({ group: API_GROUP, kinds: [GATEWAY_KIND] } as const, ObjectRef).describe(
  "The Gateway whose LiteLLM proxy holds this identity; in another namespace only under a ReferenceGrant there, which then holds what is made for it.",
);

/** Most models an identity lists. */
export const MAX_IDENTITY_MODELS = 100;

/** The models an identity may use, by the names the gateway serves them under. */
export const IdentityModels = z
  .array(GatewayModel.shape.name)
  .max(MAX_IDENTITY_MODELS)
  .optional()
  .describe(
    `The models it may use, by the names the gateway serves them under (spec.models[].name of the Gateway), at most ${MAX_IDENTITY_MODELS}. Default: every model.`,
  );

/** A budget in USD. */
export const Budget = z
  .number()
  .min(0)
  .max(1_000_000_000)
  .optional()
  .describe("The most it may spend, in USD; requests beyond it are refused by the gateway. Default: no limit.");

/** A LiteLLM duration: a number and s, m, h or d (`30d`). */
export const BudgetDuration = z
  .string()
  .max(5)
  .regex(/^[1-9][0-9]{0,3}[smhd]$/, {
    message: "must be a LiteLLM duration: a number then s, m, h or d (e.g. 30d)",
  })
  .optional()
  .describe("How often the spend is reset, e.g. 30d or 7d. Default: never.");

/** What an identity is to the functions below: where it is, and the Gateway it names. */
export interface IdentityOfGateway {
  readonly metadata: { readonly namespace: string; readonly name: string };
  readonly spec: { readonly gatewayRef: { readonly name: string; readonly namespace?: string | undefined } };
}

/** The Gateway an identity names, its namespace resolved: `namespace/name`. */
export function gatewayOf(identity: IdentityOfGateway): { readonly namespace: string; readonly name: string } {
  const { gatewayRef } = identity.spec;
  return { namespace: refNamespace(gatewayRef, identity.metadata.namespace), name: gatewayRef.name };
}

/** The one dependency every identity has: its Gateway, Ready (its proxy up, the operator installed). */
export function gatewayDependency(identity: IdentityOfGateway): Dependency {
  return { field: "spec.gatewayRef", group: API_GROUP, kind: GATEWAY_KIND, ...gatewayOf(identity), needs: "ready" };
}

/**
 * A dependency of one identity on another of the same Gateway — a User on the Team it joins, a Team on
 * its Organization —: LiteLLM keeps each gateway's identities apart, so a target of another Gateway does
 * not fit (Dependency.fits), and nothing is made until both name the same.
 */
export function sameGatewayDependency(
  identity: IdentityOfGateway & { readonly kind: string },
  target: { readonly field: string; readonly kind: string; readonly name: string },
): Dependency {
  const mine = gatewayOf(identity);
  return {
    field: target.field,
    group: API_GROUP,
    kind: target.kind,
    namespace: identity.metadata.namespace,
    name: target.name,
    needs: "ready",
    fits: (found) => {
      const theirs = (found.spec as { gatewayRef?: { name?: string; namespace?: string } } | undefined)?.gatewayRef;
      const namespace = refNamespace(theirs ?? {}, found.metadata.namespace ?? identity.metadata.namespace);
      if (theirs?.name === mine.name && namespace === mine.namespace) return undefined;
      return `is of Gateway ${namespace}/${theirs?.name ?? "(none)"}, not of this ${identity.kind}'s Gateway ${mine.namespace}/${mine.name}: LiteLLM keeps each gateway's identities apart. Point both spec.gatewayRef at the same Gateway`;
    },
  };
}

/** What every identity may be limited to: the models it may use and its budget. */
export const IDENTITY_LIMITS = {
  models: IdentityModels,
  maxBudget: Budget,
  budgetDuration: BudgetDuration,
};

/**
 * An identity's limits as its LiteLLM object takes them, where set: the models and the budget's period
 * under the same names, the budget under `budgetField` (a LiteLLMTeam calls it maxBudgetMonthly).
 */
export function budgetFields(
  spec: {
    readonly models?: readonly string[] | undefined;
    readonly maxBudget?: number | undefined;
    readonly budgetDuration?: string | undefined;
  },
  budgetField: "maxBudget" | "maxBudgetMonthly",
): Record<string, unknown> {
  return {
    ...(spec.models ? { models: [...spec.models] } : {}),
    ...(spec.budgetDuration ? { budgetDuration: spec.budgetDuration } : {}),
    ...(spec.maxBudget !== undefined ? { [budgetField]: spec.maxBudget } : {}),
  };
}

/** An email address as LiteLLM keys a person by it: a user's id, an organisation member. */
export const Email = z.email({ message: "must be an email address (e.g. ada@example.com)" }).max(254);

/** A name people read in LiteLLM's Admin UI: printable ASCII, not ending with a space. */
export const Alias = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[\x20-\x7e]*[\x21-\x7e]$/, { message: "must be printable ASCII, not ending with a space" })
  .optional()
  .describe("The name LiteLLM's Admin UI shows. Default: the resource's name.");

/** An identity's status fields beside the engine's: what the LiteLLM operator reports of it. */
export const IDENTITY_STATUS = {
  litellmId: z.string().optional().describe("The id LiteLLM gave it, once the LiteLLM operator synced it."),
  spend: z.number().optional().describe("What it has spent so far, in USD, as LiteLLM counts it."),
};
