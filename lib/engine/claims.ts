import { createHash } from "node:crypto";
import type { Entitlements } from "../licence/entitlements.js";
import { type Dependency, dependenciesOf, wiringOf } from "./dependencies.js";
import type { EngineResource, KindModule } from "./kind-module.js";
import type { Credentials } from "./objects.js";
import { type ObservedGrant, referencePermitted } from "./reference-grants.js";

/**
 * A claim: a resource that depends on another (a Gateway on a PostgresCluster) asks, through that
 * dependency, for something of its own inside it — a database and a user of its own, never shared with
 * another consumer. The engine collects the claims made on a resource from every referrer and hands them
 * to its kind, which makes them and publishes each in `status.claims`; the claimant reads its own there,
 * with its credentials (docs/adr/0033-claims.md).
 */
export interface Claim {
  /** `Kind/namespace/name` of the claimant: what `status.claims` is keyed by. */
  readonly claimant: string;
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
  /** The claimant's field naming the target: what messages say. */
  readonly field: string;
}

/** A claim as the target publishes it in `status.claims`, once made: a database and a user, or a key. */
export interface PublishedClaim {
  readonly claimant: string;
  readonly database?: string;
  readonly user?: string;
  /** The Secret, in the target's namespace, holding the claim's credentials (username, password, or `keys`). */
  readonly credentialsSecret: { readonly name: string; readonly namespace: string };
  /** The keys of that Secret by what they hold, where they are not username and password (a virtual key's apiKey). */
  readonly keys?: { readonly apiKey?: string };
}

/**
 * The condition reason of a resource waiting for a target to make its claim (lib/kinds/datastore/
 * claimed-database.ts …): what the front ends that run no operator look for (lib/engine/claim-targets.ts).
 */
export const CLAIM_PENDING = "ClaimPending";

/** The key of a claimant, as `status.claims` names it. */
export function claimantKey(resource: {
  readonly kind: string;
  readonly metadata: { readonly namespace: string; readonly name: string };
}): string {
  return `${resource.kind}/${resource.metadata.namespace}/${resource.metadata.name}`;
}

/**
 * A short, stable digest of a claimant: what the names a target makes for it end with, so that two
 * claimants whose names read alike once shortened or folded never share a database, a user or a Secret.
 */
export function claimDigest(claimant: string): string {
  return createHash("sha256").update(claimant).digest("hex").slice(0, 8);
}

/**
 * The claims made on `target` now, from the resources of every kind that references its kind: those
 * whose dependency on it asks for a claim and is auto-wired under the entitlements (a manual one is
 * wired by the user, who brings what the claim would have made), that are not being deleted (a claim
 * goes with its claimant), and that are in its namespace or allowed by a grant there. In a stable order.
 */
export function claimsOn(
  target: EngineResource,
  referrers: readonly { readonly module: KindModule; readonly resources: readonly EngineResource[] }[],
  entitlements: Entitlements,
  grants: readonly ObservedGrant[],
): Claim[] {
  const claims = referrers.flatMap(({ module, resources }) =>
    resources
      .filter((resource) => !resource.metadata.deletionTimestamp)
      .flatMap((resource) =>
        dependenciesOf(module, resource)
          .filter((dependency) => claimedOn(target, resource, dependency, entitlements, grants))
          .map((dependency) => ({
            claimant: claimantKey(resource),
            kind: resource.kind,
            namespace: resource.metadata.namespace,
            name: resource.metadata.name,
            field: dependency.field,
          })),
      ),
  );
  return claims.sort((a, b) => a.claimant.localeCompare(b.claimant));
}

/** Whether a dependency asks for a claim on `target`: it names exactly that resource, with a claim. */
function claimsTarget(dependency: Dependency, target: EngineResource): boolean {
  if (!dependency.claim || dependency.kind !== target.kind) return false;
  return dependency.name === target.metadata.name && dependency.namespace === target.metadata.namespace;
}

/**
 * Whether a resource of another namespace than `target`'s asks for a claim on it. Only such a claim
 * stands by a grant — one in the target's namespace (claimedOn) —, so only then do the grants there
 * decide anything about its claims: other referrers elsewhere, which claim on other targets, do not.
 */
export function claimedFromElsewhere(
  target: EngineResource,
  referrers: readonly { readonly module: KindModule; readonly resources: readonly EngineResource[] }[],
): boolean {
  return referrers.some(({ module, resources }) =>
    resources.some(
      (resource) =>
        resource.metadata.namespace !== target.metadata.namespace &&
        !resource.metadata.deletionTimestamp &&
        dependenciesOf(module, resource).some((dependency) => claimsTarget(dependency, target)),
    ),
  );
}

/** Whether one dependency of a resource is a claim on `target` that stands: auto-wired, and granted. */
function claimedOn(
  target: EngineResource,
  resource: EngineResource,
  dependency: Dependency,
  entitlements: Entitlements,
  grants: readonly ObservedGrant[],
): boolean {
  if (!claimsTarget(dependency, target)) return false;
  if (wiringOf(dependency, entitlements).mode !== "auto") return false;
  const referrer = { group: dependency.group, kind: resource.kind, namespace: resource.metadata.namespace };
  return referencePermitted(referrer, dependency, grants);
}

/** The kinds whose resources may claim on `target`: those declaring a reference to its kind. */
export function claimantKinds(target: KindModule, registry: readonly KindModule[]): KindModule[] {
  return registry.filter((m) => m.referencesKinds.includes(target.definition.kind));
}

/** A resource's own claim as a target publishes it, if made. */
export function publishedClaim(
  target: { readonly status?: unknown } | undefined,
  claimant: string,
): PublishedClaim | undefined {
  const claims = (target as { status?: { claims?: readonly PublishedClaim[] } } | undefined)?.status?.claims;
  return claims?.find((c) => c.claimant === claimant);
}

/** Whether a target takes claims at all in its present mode: it publishes `status.claims` (empty or not). */
export function takesClaims(target: { readonly status?: unknown } | undefined): boolean {
  return Array.isArray((target as { status?: { claims?: unknown } } | undefined)?.status?.claims);
}

/** What a claimant's view holds of its claim, by the dependency's field: the published claim and its credentials. */
export interface ClaimedView {
  readonly claim: PublishedClaim;
  readonly credentials: Credentials | undefined;
}
