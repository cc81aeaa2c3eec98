import { referrerKinds, StoredReferenceGrant } from "../../lib/api/reference-grant.js";
import { checkInput } from "../../lib/api/validation.js";
import {
  grantsToCreate,
  type ObservedGrant,
  type Reference,
  type Referrer,
  referenceNotPermittedMessage,
  ungrantedReferences,
} from "../../lib/engine/reference-grants.js";
import { CNPG_API_VERSION } from "../../lib/kinds/postgres-cluster/cnpg.js";
import { PostgresCluster } from "../../lib/kinds/postgres-cluster/schema.js";
import { REGISTRY, ReferenceGrantSpec } from "../../lib/kinds/registry.js";
import { communityEntitlements } from "../../lib/licence/entitlements.js";
import { constructRefusal, planRefusal } from "../support/front-end-refusals.js";
import { type KubeObject, type PlanContext, type PostgresObservation, planPostgresCluster } from "../support/plans.js";

const referrer: Referrer = { group: "core.navique.com", kind: "PostgresCluster", namespace: "apps" };
const secret: Reference = {
  field: "spec.adopt.credentialsSecretRef",
  group: "",
  kind: "Secret",
  name: "shared-app",
  namespace: "data",
};
const cluster: Reference = {
  field: "spec.adopt.clusterRef",
  group: "postgresql.cnpg.io",
  kind: "Cluster",
  name: "shared",
  namespace: "data",
};

const fromApps = { group: "core.navique.com", kind: "PostgresCluster", namespace: "apps" };
const grant = (spec: Partial<ObservedGrant["spec"]>, namespace = "data"): ObservedGrant => ({
  namespace,
  spec: { from: [fromApps], to: [{ group: "", kind: "Secret", name: "shared-app" }], ...spec },
});

describe("ungrantedReferences: Gateway API's ReferenceGrant semantics", () => {
  it.each<[string, readonly ObservedGrant[], readonly Reference[], readonly Reference[]]>([
    ["no grant: refused", [], [secret], [secret]],
    ["a grant naming the Secret: allowed", [grant({})], [secret], []],
    [
      "a name-less `to` allows every name of that group and kind",
      [grant({ to: [{ group: "", kind: "Secret" }] })],
      [secret],
      [],
    ],
    [
      "a `to` naming another object: refused",
      [grant({ to: [{ group: "", kind: "Secret", name: "other" }] })],
      [secret],
      [secret],
    ],
    ["a `to` of another kind: refused", [grant({ to: [{ group: "", kind: "ConfigMap" }] })], [secret], [secret]],
    [
      "a `to` of another group: refused",
      [grant({ to: [{ group: "postgresql.cnpg.io", kind: "Secret" }] })],
      [secret],
      [secret],
    ],
    [
      "a `from` of another namespace: refused",
      [grant({ from: [{ ...fromApps, namespace: "elsewhere" }] })],
      [secret],
      [secret],
    ],
    ["a `from` of another kind: refused", [grant({ from: [{ ...fromApps, kind: "Stack" }] })], [secret], [secret]],
    [
      "a `from` of another group: refused",
      [grant({ from: [{ ...fromApps, group: "gateway.networking.k8s.io" }] })],
      [secret],
      [secret],
    ],
    ["a grant in another namespace than the target's: refused", [grant({}, "apps")], [secret], [secret]],
    [
      "entries are ORed: one matching `from` and one matching `to` suffice",
      [
        grant({
          from: [{ ...fromApps, namespace: "x" }, fromApps],
          to: [
            { group: "", kind: "ConfigMap" },
            { group: "postgresql.cnpg.io", kind: "Cluster", name: "shared" },
          ],
        }),
      ],
      [cluster],
      [],
    ],
    [
      "grants add up: each reference allowed by its own grant",
      [grant({}), grant({ to: [{ group: "postgresql.cnpg.io", kind: "Cluster" }] })],
      [cluster, secret],
      [],
    ],
    ["only the ungranted reference is returned", [grant({})], [cluster, secret], [cluster]],
    ["a same-namespace reference needs no grant", [], [{ ...secret, namespace: "apps" }], []],
  ])("%s", (_, grants, references, expected) => {
    expect(ungrantedReferences(referrer, references, grants)).toEqual(expected);
  });
});

describe("the grant to create, as messages say it", () => {
  it("names the namespace, the referrer and every object, one line per namespace", () => {
    expect(grantsToCreate(referrer, [cluster, secret])).toEqual([
      'a ReferenceGrant in namespace data from group core.navique.com kind PostgresCluster namespace apps to group postgresql.cnpg.io kind Cluster name shared, and to group "" kind Secret name shared-app',
    ]);
    expect(grantsToCreate(referrer, [cluster, { ...secret, namespace: "vault" }])).toEqual([
      "a ReferenceGrant in namespace data from group core.navique.com kind PostgresCluster namespace apps to group postgresql.cnpg.io kind Cluster name shared",
      'a ReferenceGrant in namespace vault from group core.navique.com kind PostgresCluster namespace apps to group "" kind Secret name shared-app',
    ]);
  });

  it("says which fields are refused and that nothing was read there", () => {
    expect(referenceNotPermittedMessage(referrer, [secret])).toBe(
      'spec.adopt.credentialsSecretRef (namespace data) is not granted by the referenced namespace: nothing was read, copied or created there. Create a ReferenceGrant in namespace data from group core.navique.com kind PostgresCluster namespace apps to group "" kind Secret name shared-app',
    );
  });
});

describe("the ReferenceGrant schema", () => {
  it("keeps Gateway API's shape and bounds", () => {
    expect(ReferenceGrantSpec.safeParse({ from: [], to: [{ group: "", kind: "Secret" }] }).success).toBe(false);
    expect(
      ReferenceGrantSpec.safeParse({ from: [{ ...fromApps, namespace: "a.b" }], to: [{ group: "", kind: "Secret" }] })
        .error?.issues[0]?.message,
    ).toBe("must be a lowercase RFC 1123 label: letters, digits and '-', starting and ending with a letter or digit");
    expect(
      ReferenceGrantSpec.safeParse({ from: [fromApps], to: [{ group: "example.com/x", kind: "Secret" }] }).error
        ?.issues[0]?.message,
    ).toBe('must be an API group: "" for the core group, or a lowercase DNS subdomain such as core.navique.com');
  });

  const REFERRERS =
    "ChatUI, ClickHouseCluster, Gateway, MeilisearchInstance, MongoCluster, Observability, Organization, PostgresCluster, RedisInstance, Team, User";
  const toSecret = { group: "", kind: "Secret" };

  it("names in `from` only kinds of the registry that hold references: the referrers are computed from the schemas", () => {
    expect(
      referrerKinds(REGISTRY.kinds.map((module) => module.definition))
        .sort()
        .join(", "),
    ).toBe(REFERRERS);
  });

  it("refuses a `from` entry that could never match, at its index, saying what would", () => {
    expect(
      checkInput(
        ReferenceGrantSpec,
        {
          from: [
            fromApps,
            { ...fromApps, kind: "Secret" },
            { ...fromApps, kind: "Stack" },
            { ...fromApps, group: "gateway.networking.k8s.io", kind: "HTTPRoute" },
          ],
          to: [toSecret],
        },
        "spec",
      ),
    ).toEqual({
      ok: false,
      problems: [
        {
          path: "spec.from[1].kind",
          message: `must be a kind of the product that holds references (${REFERRERS}): an entry of another kind would never match (received "Secret")`,
        },
        {
          path: "spec.from[2].kind",
          message: `must be a kind of the product that holds references (${REFERRERS}): an entry of another kind would never match (received "Stack")`,
        },
        {
          path: "spec.from[3].group",
          message:
            'must be core.navique.com: only resources of the product hold the references a grant opens, so an entry of another group would never match (received "gateway.networking.k8s.io")',
        },
        {
          path: "spec.from[3].kind",
          message: `must be a kind of the product that holds references (${REFERRERS}): an entry of another kind would never match (received "HTTPRoute")`,
        },
      ],
    });
  });

  it("refuses an entry of `from` or `to` written twice, at the index of the repetition", () => {
    expect(
      checkInput(
        ReferenceGrantSpec,
        {
          from: [
            fromApps,
            { ...fromApps, namespace: "web" },
            { namespace: "apps", kind: "PostgresCluster", group: "core.navique.com" },
          ],
          to: [toSecret, { ...toSecret, name: "pg" }, { kind: "Secret", group: "" }],
        },
        "spec",
      ),
    ).toEqual({
      ok: false,
      problems: [
        { path: "spec.from[2]", message: "repeats spec.from[0]: each entry is written once; remove this one" },
        { path: "spec.to[2]", message: "repeats spec.to[0]: each entry is written once; remove this one" },
      ],
    });
  });

  it("still reads a grant stored before these rules: what it names is granted, nothing revoked", () => {
    const stored = {
      apiVersion: "core.navique.com/v1alpha1",
      kind: "ReferenceGrant",
      metadata: { name: "older", namespace: "data" },
      spec: { from: [fromApps, fromApps, { ...fromApps, kind: "Secret" }], to: [toSecret, toSecret] },
    };
    expect(StoredReferenceGrant.parse(stored).spec).toEqual(stored.spec);
    expect(ungrantedReferences(referrer, [secret], [{ namespace: "data", spec: stored.spec }])).toEqual([]);
  });
});

describe("a ReferenceGrant that could never match, in every front end of the process", () => {
  const spec = { from: [fromApps, { ...fromApps, kind: "Secret" }, fromApps], to: [{ group: "", kind: "Secret" }] };
  const lines = [
    'spec.from[1].kind: must be a kind of the product that holds references (ChatUI, ClickHouseCluster, Gateway, MeilisearchInstance, MongoCluster, Observability, Organization, PostgresCluster, RedisInstance, Team, User): an entry of another kind would never match (received "Secret")',
    "spec.from[2]: repeats spec.from[0]: each entry is written once; remove this one",
  ];

  it("cdk8s synth: each refusal on the construct, at the entry's index", () => {
    expect(constructRefusal("ReferenceGrant", spec)).toEqual(
      lines.map((line) => `[test/judged] ReferenceGrant ${line}`),
    );
  });

  it("navique plan: the grant refused, at the entry's index", () => {
    expect(planRefusal("ReferenceGrant", spec)).toEqual([
      `platform.yaml document 1 (line 1) is invalid:\n${lines.map((l) => `  - ${l}`).join("\n")}\n  Correct the document; it was not planned`,
    ]);
  });
});

// The gate in the PostgresCluster planner: before anything is read-and-copied or applied.
describe("planPostgresCluster: references into another namespace", () => {
  const context: PlanContext = {
    withPrerequisites: (name) => [name],
    releaseOf: (name) => ({ name, namespace: name }),
  };
  const spec = {
    mode: "adopt",
    adopt: {
      clusterRef: { name: "shared", namespace: "data" },
      credentialsSecretRef: { name: "shared-app", namespace: "data" },
    },
    databases: [{ name: "librechat" }],
  };
  const adopting = (status?: unknown) =>
    PostgresCluster.parse({
      apiVersion: "core.navique.com/v1alpha1",
      kind: "PostgresCluster",
      metadata: { name: "chat-db", namespace: "apps", uid: "u-1", generation: 1 },
      spec,
      ...(status ? { status } : {}),
    });
  const adoptTarget: KubeObject = {
    apiVersion: CNPG_API_VERSION,
    kind: "Cluster",
    metadata: { name: "shared", namespace: "data" },
    status: { phase: "Cluster in healthy state", conditions: [{ type: "Ready", status: "True" }] },
  };
  const observed: PostgresObservation = {
    capabilities: [],
    consumers: [],
    objects: new Map(),
    adoptTarget,
    adoptCredentials: { username: "chat", password: "pw" },
    licence: {
      entitlements: communityEntitlements(),
      instances: [{ namespace: "apps", name: "chat-db", creationTimestamp: "2027-01-01T00:00:00Z", admitted: true }],
    },
  };
  const message =
    'spec.adopt.clusterRef (namespace data) and spec.adopt.credentialsSecretRef (namespace data) are not granted by the referenced namespace: nothing was read, copied or created there. Create a ReferenceGrant in namespace data from group core.navique.com kind PostgresCluster namespace apps to group postgresql.cnpg.io kind Cluster name shared, and to group "" kind Secret name shared-app';
  const granted: ObservedGrant = {
    namespace: "data",
    spec: {
      from: [fromApps],
      to: [
        { group: "", kind: "Secret", name: "shared-app" },
        { group: "postgresql.cnpg.io", kind: "Cluster", name: "shared" },
      ],
    },
  };

  it("without a grant: nothing is copied or created, Ready and DatastoreReady say which grant to create, one Event", () => {
    const plan = planPostgresCluster(adopting(), observed, context);
    expect(plan.steps).toEqual([]);
    expect(plan.conditions.map((c) => [c.type, c.status, c.reason, c.message])).toEqual([
      ["Ready", "False", "ReferenceNotPermitted", message],
      ["DatastoreReady", "False", "ReferenceNotPermitted", message],
      ["Stalled", "True", "ReferenceNotPermitted", message],
    ]);
    expect(plan.events).toEqual([{ type: "Warning", reason: "ReferenceNotPermitted", message }]);
    expect(plan.status.credentialsSecret).toBeUndefined();
    expect(JSON.stringify(plan)).not.toContain("pw");
    // Once: the next pass finds the problem reported already.
    expect(planPostgresCluster(adopting(plan.status), observed, context).events).toEqual([]);
  });

  it("with the grant: the credentials are copied and the Database created beside the adopted cluster", () => {
    const plan = planPostgresCluster(adopting(), { ...observed, referenceGrants: [granted] }, context);
    expect(plan.steps.map((s) => s.description)).toEqual([
      "copy the credentials of data/shared-app into Secret apps/chat-db-adopted-credentials",
      "apply CNPG Database data/shared-librechat beside the adopted cluster",
    ]);
    expect(plan.conditions.find((c) => c.type === "Ready")?.status).toBe("True");
  });

  it("a grant removed later: the copied credentials are deleted, the Database beside the adopted cluster stays", () => {
    const before = planPostgresCluster(adopting(), { ...observed, referenceGrants: [granted] }, context);
    const labels = { "core.navique.com/owned-by": "postgrescluster.apps.chat-db" };
    const objects = new Map<string, KubeObject>([
      [
        "Secret/apps/chat-db-adopted-credentials",
        {
          apiVersion: "v1",
          kind: "Secret",
          metadata: { name: "chat-db-adopted-credentials", namespace: "apps", labels },
        },
      ],
      [
        "Database/data/shared-librechat",
        {
          apiVersion: CNPG_API_VERSION,
          kind: "Database",
          metadata: { name: "shared-librechat", namespace: "data", labels },
        },
      ],
    ]);
    const revoked = planPostgresCluster(adopting(before.status), { ...observed, objects }, context);
    expect(revoked.steps).toEqual([
      {
        kind: "delete",
        target: { apiVersion: "v1", kind: "Secret", name: "chat-db-adopted-credentials", namespace: "apps" },
        description: "delete Secret apps/chat-db-adopted-credentials: the credentials it copied are no longer granted",
      },
    ]);
    expect(revoked.events).toEqual([
      { type: "Warning", reason: "ReferenceNotPermitted", message },
      {
        type: "Normal",
        reason: "GarbageCollected",
        message:
          "deleting Secret apps/chat-db-adopted-credentials: the grant that allowed copying the credentials is gone",
      },
    ]);
    expect(revoked.status.emitted).toEqual([
      { apiVersion: CNPG_API_VERSION, kind: "Database", name: "shared-librechat", namespace: "data" },
    ]);
    expect(revoked.status.mode).toBe("adopt");
  });

  it("an adoption from the resource's own namespace needs no grant", () => {
    const local = PostgresCluster.parse({
      ...adopting(),
      spec: { ...spec, adopt: { clusterRef: { name: "shared" }, credentialsSecretRef: { name: "shared-app" } } },
    });
    const plan = planPostgresCluster(local, observed, context);
    expect(plan.conditions.map((c) => c.reason)).not.toContain("ReferenceNotPermitted");
    expect(plan.steps.map((s) => s.kind)).toEqual(["apply", "apply"]);
  });
});
