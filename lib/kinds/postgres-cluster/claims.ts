import type { PublishedClaim } from "../../api/resource-status.js";
import { type Claim, claimDigest } from "../../engine/claims.js";
import { generateSecretStep, type KeyRule } from "../../engine/generated-secret.js";
import { decodeCredentials, type KubeObject, keyOf } from "../../engine/objects.js";
import type { DesiredStep } from "../../engine/steps.js";
import type { DeletionPolicy } from "../datastore/mode.js";
import { CNPG_API_VERSION, databaseObjectName } from "./cnpg.js";

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

/** Whether a Secret's name is one claimSecretName gives for `cluster`: what a retained cluster keeps. */
export function isClaimSecretName(cluster: string, name: string): boolean {
  return name.startsWith(`${cluster}-claim-`) && /^[0-9a-f]{8}$/.test(name.slice(cluster.length + "-claim-".length));
}

/**
 * What CloudNativePG does with a claim's database and role once the claim goes, by the deletion policy
 * that applies to it: its Database's `databaseReclaimPolicy` and its DatabaseRole's
 * `databaseRoleReclaimPolicy` (cloudnative-pg v1.30.0, api/v1/database_types.go and
 * databaserole_types.go): `delete` drops them when their object is deleted, `retain` leaves them.
 */
export function claimReclaimPolicy(policy: DeletionPolicy): "delete" | "retain" {
  return policy === "Delete" ? "delete" : "retain";
}

/**
 * The password CNPG takes for a role: 24 random bytes, as base64url. Generated once into its Secret, never
 * kept anywhere else; a deleted Secret comes back with a new one, reported as a rotation (docs/adr/0014).
 */
export const ROLE_PASSWORD: KeyRule = { length: 32, alphabet: "base64url" };

/**
 * Where a PostgresCluster makes its claims: beside the CNPG Cluster (CloudNativePG resolves a Database's
 * and a DatabaseRole's `spec.cluster`, and a role's password Secret, in their own namespace only:
 * docs/src/declarative_role_management.md, v1.30.0), under the deletion policy that applies to them.
 */
export interface ClaimSite {
  /** The PostgresCluster: its name prefixes the Secrets, its namespace holds the credentials it publishes. */
  readonly name: string;
  readonly namespace: string;
  /** The CNPG Cluster the claims are made in, and its namespace. */
  readonly cluster: string;
  readonly clusterNamespace: string;
  readonly deletionPolicy: DeletionPolicy;
  /** Metadata every claim Secret carries besides its name: CNPG's reload label, owner references. */
  readonly secretMetadata: Omit<KubeObject["metadata"], "name">;
}

/** What a PostgresCluster makes for its claims: the steps, in order, and what it publishes in `status.claims`. */
export interface ClaimsMade {
  readonly steps: readonly DesiredStep[];
  readonly published: readonly PublishedClaim[];
}

/** The username and password of a Secret the engine observed, decoded; undefined unless it holds both. */
function generatedCredentials(secret: KubeObject | undefined): { username: string; password: string } | undefined {
  const { username, password } = decodeCredentials(secret as Parameters<typeof decodeCredentials>[0]) ?? {};
  return username && password ? { username, password } : undefined;
}

/**
 * Each claim's role and database, as CloudNativePG objects of their own beside the cluster — never an
 * entry in the Cluster's `managed.roles` (docs/adr/0033-claims.md, "Amended"): a password Secret
 * generated once in the PostgresCluster's namespace, where the claimant reads it; a DatabaseRole (login,
 * its password from that Secret) and a Database owned by that role, both under the reclaim policy of
 * `site.deletionPolicy`. When the claim goes, the engine deletes both objects, and CloudNativePG drops or
 * keeps the role and the database by that policy.
 *
 * A cluster in another namespace (an adopted one) reads a password only from a Secret beside it: the
 * generated Secret is copied there, from `objects` (what the engine observed of it). Until it has been
 * generated, nothing else of that claim is made nor published: the next pass (the operator's, at once,
 * on the new Secret's event) makes the rest. Pure.
 */
export function claimsMade(
  site: ClaimSite,
  claims: readonly Claim[],
  objects: ReadonlyMap<string, KubeObject>,
): ClaimsMade {
  const reclaim = claimReclaimPolicy(site.deletionPolicy);
  const beside = site.clusterNamespace === site.namespace;
  const made = claims.map((claim) => {
    const identifier = claimIdentifier(claim);
    const secret: KubeObject = {
      apiVersion: "v1",
      kind: "Secret",
      type: "kubernetes.io/basic-auth",
      metadata: { ...site.secretMetadata, name: claimSecretName(site.name, claim), namespace: site.namespace },
    };
    const objectName = databaseObjectName(site.cluster, identifier);
    const where = `CNPG Cluster ${site.clusterNamespace}/${site.cluster}`;
    const generate = generateSecretStep(
      secret,
      { username: { fixed: identifier }, password: ROLE_PASSWORD },
      {
        description: `create Secret ${site.namespace}/${secret.metadata.name} with a generated password for role ${identifier}, claimed by ${claim.claimant} (kept if it exists)`,
        rotation: `CNPG sets it in the database for role ${identifier} from that Secret (spec.passwordSecret of CNPG DatabaseRole ${site.clusterNamespace}/${objectName}${beside ? "" : `, through its copy beside ${where}`}): the old password stops working, ${claim.claimant} picks up the new one`,
      },
    );
    const generated = generatedCredentials(objects.get(keyOf(secret)));
    if (!beside && !generated) return { steps: [generate], published: undefined };
    const copy: KubeObject | undefined = beside
      ? undefined
      : {
          apiVersion: "v1",
          kind: "Secret",
          type: "kubernetes.io/basic-auth",
          metadata: {
            name: secret.metadata.name,
            namespace: site.clusterNamespace,
            ...(site.secretMetadata.labels ? { labels: site.secretMetadata.labels } : {}),
          },
          ...(generated ? { stringData: generated } : {}),
        };
    const role: KubeObject = {
      apiVersion: CNPG_API_VERSION,
      kind: "DatabaseRole",
      metadata: { name: objectName, namespace: site.clusterNamespace },
      spec: {
        name: identifier,
        cluster: { name: site.cluster },
        login: true,
        passwordSecret: { name: secret.metadata.name },
        databaseRoleReclaimPolicy: reclaim,
      },
    };
    const database: KubeObject = {
      apiVersion: CNPG_API_VERSION,
      kind: "Database",
      metadata: { name: objectName, namespace: site.clusterNamespace },
      spec: { name: identifier, owner: identifier, cluster: { name: site.cluster }, databaseReclaimPolicy: reclaim },
    };
    const steps: DesiredStep[] = [
      generate,
      ...(copy
        ? [
            {
              kind: "apply" as const,
              object: copy,
              description: `copy the password of role ${identifier} from Secret ${site.namespace}/${secret.metadata.name} beside ${where}, where CNPG reads it`,
            },
          ]
        : []),
      {
        kind: "apply",
        object: role,
        description: `apply CNPG DatabaseRole ${site.clusterNamespace}/${objectName}: role ${identifier} in ${where}, claimed by ${claim.claimant} (reclaim policy ${reclaim})`,
      },
      {
        kind: "apply",
        object: database,
        description: `apply CNPG Database ${site.clusterNamespace}/${objectName}: database ${identifier} owned by role ${identifier}, claimed by ${claim.claimant} (reclaim policy ${reclaim})`,
      },
    ];
    const published: PublishedClaim = {
      claimant: claim.claimant,
      database: identifier,
      user: identifier,
      credentialsSecret: { name: secret.metadata.name, namespace: site.namespace },
    };
    return { steps, published };
  });
  return {
    steps: made.flatMap((m) => m.steps),
    published: made.flatMap((m) => (m.published ? [m.published] : [])),
  };
}

/** The field by which an adopting PostgresCluster takes its consumers' claims (schema.ts PostgresAdoptClaims). */
export const ADOPT_CLAIMS_FIELD = "spec.adopt.claims";

/**
 * Why a PostgresCluster, as stored, takes no claim, and what would make one taken: what a claimant says
 * (ClaimNotTaken), `where` naming the PostgresCluster and `field` the claimant's reference to it. The
 * claimant adds its own way out: wiring by hand.
 */
export function claimsNotTaken(target: { readonly spec?: unknown } | undefined, where: string, field: string): string {
  const mode = (target?.spec as { readonly mode?: string } | undefined)?.mode;
  if (mode === "adopt")
    return `${where} adopts a CNPG Cluster the product does not own, and makes no database of its own for a consumer there unless told to: set ${ADOPT_CLAIMS_FIELD} on it (each consumer's role and database are then made beside that Cluster, which stays unmodified), point ${field} at a managed PostgresCluster`;
  return `${where} makes no database of its own for a consumer in its mode (${mode ?? "unknown"}): point ${field} at a managed PostgresCluster, or at an adopting one with ${ADOPT_CLAIMS_FIELD} set`;
}
