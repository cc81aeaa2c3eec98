import type { PublishedClaim } from "../../api/resource-status.js";
import { type Claim, claimDigest } from "../../engine/claims.js";

/** PostgreSQL's limit on an identifier (NAMEDATALEN - 1 bytes). */
const MAX_IDENTIFIER = 63;

/**
 * The database and user made for a claim, one name for both: `<kind>_<namespace>_<name>` folded to what
 * PostgreSQL takes unquoted (lowercase letters, digits, `_`), shortened, and ended by the claimant's
 * digest — two claimants never share one, however alike their names fold (`gateway_apps_llm_1a2b3c4d`).
 */
export function claimIdentifier(claim: Pick<Claim, "claimant" | "kind" | "namespace" | "name">): string {
  const suffix = `_${claimDigest(claim.claimant)}`;
  const base = `${claim.kind}_${claim.namespace}_${claim.name}`.toLowerCase().replace(/[^a-z0-9]+/g, "_");
  return `${base.slice(0, MAX_IDENTIFIER - suffix.length).replace(/_+$/, "")}${suffix}`;
}

/** The Secret holding a claim's credentials, beside the cluster: `<cluster>-claim-<digest>`. */
export function claimSecretName(cluster: string, claim: Pick<Claim, "claimant">): string {
  return `${cluster}-claim-${claimDigest(claim.claimant)}`;
}

/** What a managed PostgresCluster makes for each claim, and publishes in `status.claims`. */
export interface ClaimMade {
  readonly identifier: string;
  readonly secret: string;
  readonly published: PublishedClaim;
}

export function claimsMade(cluster: string, namespace: string, claims: readonly Claim[]): ClaimMade[] {
  return claims.map((claim) => {
    const identifier = claimIdentifier(claim);
    const secret = claimSecretName(cluster, claim);
    return {
      identifier,
      secret,
      published: {
        claimant: claim.claimant,
        database: identifier,
        user: identifier,
        credentialsSecret: { name: secret, namespace },
      },
    };
  });
}
