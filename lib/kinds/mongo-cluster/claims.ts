import type { PublishedClaim } from "../../api/resource-status.js";
import { type Claim, claimDigest } from "../../engine/claims.js";
import { DEFAULT_PASSWORD_KEY, type MongoDBUser } from "./mongodb-community-api.js";

/** MongoDB's limit on a database name: fewer than 64 bytes. */
const MAX_DATABASE_NAME = 63;

/**
 * The roles a claim's user gets, on its own database only: read and write its data, manage its collections
 * and indexes — what an application needs of its schema — and nothing on any other database, nor the
 * right to make users (dbOwner's userAdmin).
 */
export const CLAIM_ROLES = ["readWrite", "dbAdmin"] as const;

/**
 * The database and user made for a claim, one name for both: `<kind>_<namespace>_<name>` folded to
 * lowercase letters, digits and `_` (nothing MongoDB refuses in a database name), shortened to fit 63
 * bytes, and ended by the claimant's digest — two claimants never share one, however alike their names
 * fold (`chatui_apps_librechat_1a2b3c4d`).
 */
export function claimIdentifier(claim: Pick<Claim, "claimant" | "kind" | "namespace" | "name">): string {
  const suffix = `_${claimDigest(claim.claimant)}`;
  const base = `${claim.kind}_${claim.namespace}_${claim.name}`.toLowerCase().replace(/[^a-z0-9]+/g, "_");
  return `${base.slice(0, MAX_DATABASE_NAME - suffix.length).replace(/_+$/, "")}${suffix}`;
}

/** The Secret holding a claim's credentials (username, password), beside the cluster: `<cluster>-claim-<digest>`. */
export function claimSecretName(cluster: string, claim: Pick<Claim, "claimant">): string {
  return `${cluster}-claim-${claimDigest(claim.claimant)}`;
}

/** Whether a Secret's name is one claimSecretName gives for `cluster`. */
export function isClaimSecretName(cluster: string, name: string): boolean {
  return name.startsWith(`${cluster}-claim-`) && /^[0-9a-f]{8}$/.test(name.slice(`${cluster}-claim-`.length));
}

/** What a managed MongoCluster makes for one claim: the user in its MongoDBCommunity, its Secret, what it publishes. */
export interface ClaimMade {
  readonly claim: Claim;
  readonly identifier: string;
  readonly secret: string;
  readonly user: MongoDBUser;
  readonly published: PublishedClaim;
}

/**
 * Each claim as a user of the MongoDBCommunity whose authentication database is its own database (the
 * path of the connection strings the operator writes for it), its password read from the claim's Secret
 * (which stays: the operator re-reads it at each reconcile), its SCRAM credentials and connection strings
 * in Secrets of names derived from the claim's, never the operator's defaults.
 */
export function claimsMade(cluster: string, namespace: string, claims: readonly Claim[]): ClaimMade[] {
  return claims.map((claim) => {
    const identifier = claimIdentifier(claim);
    const secret = claimSecretName(cluster, claim);
    return {
      claim,
      identifier,
      secret,
      user: {
        name: identifier,
        db: identifier,
        passwordSecretRef: { name: secret, key: DEFAULT_PASSWORD_KEY },
        roles: CLAIM_ROLES.map((role) => ({ name: role, db: identifier })),
        scramCredentialsSecretName: secret,
        connectionStringSecretName: `${secret}-connection`,
      },
      published: {
        claimant: claim.claimant,
        database: identifier,
        user: identifier,
        credentialsSecret: { name: secret, namespace },
      },
    };
  });
}
