import { API_GROUP, API_GROUP_VERSION } from "../../lib/api/group.js";
import { claimedFromElsewhere, claimsOn, publishedClaim, takesClaims } from "../../lib/engine/claims.js";
import type { EngineResource } from "../../lib/engine/kind-module.js";
import type { ObservedGrant } from "../../lib/engine/reference-grants.js";
import { GATEWAY_MODULE } from "../../lib/kinds/gateway/module.js";
import { Gateway } from "../../lib/kinds/gateway/schema.js";
import { claimIdentifier, claimSecretName } from "../../lib/kinds/postgres-cluster/claims.js";
import { COMMUNITY_CAPS, communityEntitlements, type Entitlements } from "../../lib/licence/entitlements.js";

const AUTO_WIRING: Entitlements = {
  edition: "Licensed",
  features: new Set(["auto-wiring"]),
  caps: COMMUNITY_CAPS,
  licenseId: "lic-claims",
};

const cluster: EngineResource = {
  apiVersion: API_GROUP_VERSION,
  kind: "PostgresCluster",
  metadata: { name: "shared", namespace: "data" },
  spec: {},
};

function gateway(namespace: string, name: string, database: Record<string, unknown>, deleting = false) {
  return Gateway.parse({
    apiVersion: API_GROUP_VERSION,
    kind: "Gateway",
    metadata: { name, namespace, ...(deleting ? { deletionTimestamp: "2027-01-01T00:00:00Z" } : {}) },
    spec: { database: { mode: "postgresCluster", ...database } },
  }) as EngineResource;
}

const onShared = { postgresClusterRef: { name: "shared", namespace: "data" } };
const GRANT: ObservedGrant = {
  namespace: "data",
  spec: {
    from: [{ group: API_GROUP, kind: "Gateway", namespace: "apps" }],
    to: [{ group: API_GROUP, kind: "PostgresCluster", name: "shared" }],
  },
};

describe("claims", () => {
  it("are made by auto-wired dependencies that ask for one, granted, of claimants not being deleted", () => {
    const resources = [
      gateway("apps", "llm", onShared),
      // Wired by hand: the user brings the database; no claim.
      gateway("apps", "manual", { ...onShared, databaseUrlSecretRef: { name: "db", key: "url" } }),
      // Another namespace without a grant: no claim.
      gateway("other", "llm", onShared),
      // Being deleted: its claim goes.
      gateway("apps", "leaving", onShared, true),
      // Another cluster.
      gateway("apps", "elsewhere", { postgresClusterRef: { name: "other", namespace: "data" } }),
    ];
    const claims = claimsOn(cluster, [{ module: GATEWAY_MODULE as never, resources }], AUTO_WIRING, [GRANT]);
    expect(claims).toEqual([
      {
        claimant: "Gateway/apps/llm",
        kind: "Gateway",
        namespace: "apps",
        name: "llm",
        field: "spec.database.postgresClusterRef",
      },
    ]);
    // Without auto-wiring every dependency is manual: no claim at all.
    expect(
      claimsOn(cluster, [{ module: GATEWAY_MODULE as never, resources }], communityEntitlements(), [GRANT]),
    ).toEqual([]);
    // Without the grant, none from another namespace.
    expect(claimsOn(cluster, [{ module: GATEWAY_MODULE as never, resources }], AUTO_WIRING, [])).toEqual([]);
  });

  // The grants of the cluster's namespace are read only when they decide something: a claim on it from
  // another namespace. Referrers elsewhere that claim on another target, or are leaving, do not need them.
  it("need the grants of the target's namespace only for a claim on it from another namespace", () => {
    const on = (resources: EngineResource[]) =>
      claimedFromElsewhere(cluster, [{ module: GATEWAY_MODULE as never, resources }]);
    expect(on([gateway("apps", "llm", onShared)])).toBe(true);
    expect(on([gateway("data", "llm", { postgresClusterRef: { name: "shared" } })])).toBe(false);
    expect(on([gateway("apps", "other", { postgresClusterRef: { name: "other", namespace: "data" } })])).toBe(false);
    expect(on([gateway("apps", "leaving", onShared, true)])).toBe(false);
    expect(on([])).toBe(false);
  });

  it("name a database and user no two claimants share, within PostgreSQL's 63 bytes, and a Secret beside the cluster", () => {
    const claim = (namespace: string, name: string) => ({
      claimant: `Gateway/${namespace}/${name}`,
      kind: "Gateway",
      namespace,
      name,
    });
    expect(claimIdentifier(claim("apps", "llm"))).toMatch(/^gateway_apps_llm_[0-9a-f]{8}$/);
    // Names that fold alike stay apart by the digest.
    expect(claimIdentifier(claim("a-b", "c"))).not.toBe(claimIdentifier(claim("a", "b-c")));
    const long = claimIdentifier(claim("n".repeat(63), "g".repeat(63)));
    expect(long.length).toBeLessThanOrEqual(63);
    expect(long).toMatch(/^[a-z0-9_]+$/);
    expect(claimSecretName("shared", claim("apps", "llm"))).toMatch(/^shared-claim-[0-9a-f]{8}$/);
  });

  it("are read back by their claimant from the target's status; a target without status.claims takes none", () => {
    const published = {
      claimant: "Gateway/apps/llm",
      database: "gateway_apps_llm_1",
      user: "gateway_apps_llm_1",
      credentialsSecret: { name: "shared-claim-1", namespace: "data" },
    };
    const target = { status: { claims: [published] } };
    expect(publishedClaim(target, "Gateway/apps/llm")).toEqual(published);
    expect(publishedClaim(target, "Gateway/apps/other")).toBeUndefined();
    expect(takesClaims(target)).toBe(true);
    expect(takesClaims({ status: { claims: [] } })).toBe(true);
    expect(takesClaims({ status: {} })).toBe(false);
  });
});
