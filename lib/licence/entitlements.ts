import * as z from "zod";

/** Paid features, enumerated: there are no wildcards, and an unknown name is refused everywhere. */
export const FEATURES = ["auto-wiring", "stack", "identities"] as const;
export const Feature = z.enum(FEATURES);
export type Feature = z.infer<typeof Feature>;

/** Kinds whose instances a licence may cap. */
export const CAPPED_KINDS = [
  "SecretsManagement",
  "PostgresCluster",
  "ClickHouseCluster",
  "RedisInstance",
  "MongoCluster",
  "MeilisearchInstance",
  "Gateway",
  "Observability",
  "ChatUI",
  "ManagementPlane",
  "Stack",
  "Organization",
  "Team",
  "User",
] as const;
export const CappedKind = z.enum(CAPPED_KINDS);
export type CappedKind = z.infer<typeof CappedKind>;

/**
 * The kinds a feature brings: a licence listing the feature must cap each of them, since their
 * Community cap is 0 and a licence that grants `stack` but allows no Stack grants nothing.
 */
export const FEATURE_KINDS: Readonly<Record<Feature, readonly CappedKind[]>> = {
  "auto-wiring": [],
  stack: ["Stack"],
  identities: ["Organization", "Team", "User"],
};

/** How to obtain what is missing: named in every refusal. */
export const HOW_TO_LICENSE =
  "ask your navique account contact for a licence that includes it, then apply it as the License named `navique`";

/** What a licence grants: explicit features and per-kind instance caps. */
export interface Entitlements {
  readonly edition: "Community" | "Licensed";
  readonly features: ReadonlySet<Feature>;
  readonly caps: Readonly<Record<CappedKind, number>>;
  /** Why Community applies, when it does because a licence was refused or expired. */
  readonly reason?: string;
  readonly licenseId?: string;
  readonly expiresAt?: Date;
}

/**
 * The built-in Community defaults: no paid feature, free-tier caps. The base platform — datastores,
 * a gateway, observability, a chat UI — keeps working on them.
 */
export const COMMUNITY_CAPS: Readonly<Record<CappedKind, number>> = {
  SecretsManagement: 1,
  PostgresCluster: 2,
  ClickHouseCluster: 1,
  RedisInstance: 2,
  MongoCluster: 1,
  MeilisearchInstance: 1,
  Gateway: 1,
  Observability: 1,
  ChatUI: 1,
  ManagementPlane: 1,
  Stack: 0,
  Organization: 0,
  Team: 0,
  User: 0,
};

export function communityEntitlements(reason?: string): Entitlements {
  return { edition: "Community", features: new Set(), caps: COMMUNITY_CAPS, ...(reason ? { reason } : {}) };
}
