import type { Condition } from "../../lib/api/conditions.js";
import type { Claim } from "../../lib/engine/claims.js";
import type { EngineResource } from "../../lib/engine/kind-module.js";
import { failedPlan } from "../../lib/engine/plan.js";
import type { DesiredStep } from "../../lib/engine/steps.js";
import {
  claimIdentifier,
  claimReclaimPolicy,
  claimSecretName,
  claimsMade,
  isClaimSecretName,
} from "../../lib/kinds/postgres-cluster/claims.js";
import { CNPG_API_VERSION } from "../../lib/kinds/postgres-cluster/cnpg.js";
import { POSTGRES_CLUSTER_MODULE } from "../../lib/kinds/postgres-cluster/module.js";
import { communityEntitlements } from "../../lib/licence/entitlements.js";
import {
  DELETION_POLICY_ANNOTATION,
  type KubeObject,
  ownedCapability,
  POSTGRES_PLAN_CONTEXT,
  type PostgresObservation,
  planPostgresCluster,
  postgresCluster,
} from "../support/plans.js";

const operators = [ownedCapability("cert-manager"), ownedCapability("cloudnative-pg")];

function claim(namespace: string, name: string): Claim {
  return {
    claimant: `Gateway/${namespace}/${name}`,
    kind: "Gateway",
    namespace,
    name,
    field: "spec.database.postgresClusterRef",
  };
}

const LLM = claim("apps", "llm");
const llm = claimIdentifier(LLM);
const llmObject = `main-${llm.replace(/_/g, "-")}`;
const llmSecret = claimSecretName("main", LLM);

const view = (overrides: Partial<PostgresObservation> = {}): PostgresObservation => ({
  capabilities: operators,
  consumers: [],
  objects: new Map(),
  licence: {
    entitlements: communityEntitlements(),
    instances: [{ namespace: "team-a", name: "main", creationTimestamp: "2027-01-01T00:00:00Z", admitted: true }],
  },
  ...overrides,
});

const condition = (conditions: readonly Condition[], type: string) => conditions.find((c) => c.type === type);

const applied = (steps: readonly { kind: string; object?: KubeObject }[], kind: string) =>
  steps.flatMap((s) => (s.kind === "apply" && s.object?.kind === kind ? [s.object] : []));

/** The role names a planned CNPG Cluster lists in its managed.roles; undefined when it has no managed block. */
const managedRoles = (steps: readonly { kind: string; object?: KubeObject }[]) => {
  const [cluster] = applied(steps, "Cluster");
  if (!cluster) throw new Error("no apply of the CNPG Cluster planned");
  return (cluster.spec as { managed?: { roles: { name: string }[] } }).managed?.roles.map((r) => r.name);
};

describe("a PostgresCluster's claims", () => {
  it.each([
    ["Delete", "delete"],
    ["Retain", "retain"],
  ] as const)("under %s: a DatabaseRole and a Database beside the cluster, reclaim policy %s", (policy, reclaim) => {
    expect(claimReclaimPolicy(policy)).toBe(reclaim);
    const made = claimsMade(
      {
        name: "main",
        namespace: "team-a",
        cluster: "main",
        clusterNamespace: "team-a",
        deletionPolicy: policy,
        secretMetadata: { labels: { "cnpg.io/reload": "true" } },
      },
      [LLM],
      new Map(),
    );
    expect(made.steps.map((s: DesiredStep) => `${s.kind} ${s.object.kind} ${s.object.metadata.name}`)).toEqual([
      `generate-secret Secret ${llmSecret}`,
      `apply DatabaseRole ${llmObject}`,
      `apply Database ${llmObject}`,
    ]);
    const [secret, role, database] = made.steps.map((s) => s.object);
    expect(secret).toMatchObject({
      type: "kubernetes.io/basic-auth",
      metadata: { name: llmSecret, namespace: "team-a", labels: { "cnpg.io/reload": "true" } },
    });
    expect(made.steps[0]).toMatchObject({ keys: { username: { fixed: llm } } });
    expect(role).toEqual({
      apiVersion: CNPG_API_VERSION,
      kind: "DatabaseRole",
      metadata: { name: llmObject, namespace: "team-a" },
      spec: {
        name: llm,
        cluster: { name: "main" },
        login: true,
        passwordSecret: { name: llmSecret },
        databaseRoleReclaimPolicy: reclaim,
      },
    });
    expect(database?.spec).toEqual({
      name: llm,
      owner: llm,
      cluster: { name: "main" },
      databaseReclaimPolicy: reclaim,
    });
    expect(made.published).toEqual([
      {
        claimant: "Gateway/apps/llm",
        database: llm,
        user: llm,
        credentialsSecret: { name: llmSecret, namespace: "team-a" },
      },
    ]);
  });

  it("a managed cluster lists only its spec.databases' owners in the Cluster's managed.roles, never a claim's role", () => {
    const plan = planPostgresCluster(
      postgresCluster({ databases: [{ name: "billing", owner: "billing" }], managed: { deletionPolicy: "Delete" } }),
      view({ claims: [LLM] }),
      POSTGRES_PLAN_CONTEXT,
    );
    expect(managedRoles(plan.steps)).toEqual(["billing"]);
    expect(applied(plan.steps, "DatabaseRole").map((r) => r.metadata.name)).toEqual([llmObject]);
    expect(plan.status.claims?.map((c) => c.user)).toEqual([llm]);
  });

  it("a claim gone: its DatabaseRole, Database and Secret are deleted — CNPG then drops or keeps the role and database by their reclaim policy", () => {
    const marks = { "core.navique.com/owned-by": "postgrescluster.team-a.main" };
    const live = (kind: string, name: string, spec?: unknown): KubeObject => ({
      apiVersion: kind === "Secret" ? "v1" : CNPG_API_VERSION,
      kind,
      metadata: { name, namespace: "team-a", labels: marks },
      ...(spec ? { spec } : {}),
    });
    const objects = new Map<string, KubeObject>([
      [`Secret/team-a/${llmSecret}`, live("Secret", llmSecret)],
      [`DatabaseRole/team-a/${llmObject}`, live("DatabaseRole", llmObject, { cluster: { name: "main" } })],
      [`Database/team-a/${llmObject}`, live("Database", llmObject, { cluster: { name: "main" } })],
    ]);
    const emitted = [
      { apiVersion: "v1", kind: "Secret", name: llmSecret, namespace: "team-a" },
      { apiVersion: CNPG_API_VERSION, kind: "DatabaseRole", name: llmObject, namespace: "team-a" },
      { apiVersion: CNPG_API_VERSION, kind: "Database", name: llmObject, namespace: "team-a" },
    ];
    const status = { mode: "managed", type: "cnpg", conditions: [], capabilities: [], emitted };
    const plan = planPostgresCluster(
      postgresCluster({ managed: { deletionPolicy: "Delete" } }, status),
      view({ claims: [], objects }),
      POSTGRES_PLAN_CONTEXT,
    );
    expect(plan.steps.flatMap((s) => (s.kind === "delete" ? [s.description] : []))).toEqual([
      `delete Secret team-a/${llmSecret} (no longer in the spec)`,
      `delete DatabaseRole team-a/${llmObject} (no longer in the spec)`,
      `delete Database team-a/${llmObject} (no longer in the spec)`,
    ]);
    // No tombstone in the Cluster: CNPG leaves alone a role its managed.roles no longer lists.
    expect(managedRoles(plan.steps)).toBeUndefined();
    expect(plan.status.claims).toEqual([]);
    expect(plan.status.emitted?.map((e) => e.kind)).not.toContain("DatabaseRole");
    // A pass that fails before the deletions (here at the Cluster's apply) keeps them recorded as emitted,
    // so that the next pass deletes them; one that dies writes no status, which keeps them too.
    const clusterStep = plan.steps.find((s) => s.kind === "apply" && s.object.kind === "Cluster");
    if (!clusterStep) throw new Error("no apply of the Cluster planned");
    const failed = failedPlan(POSTGRES_CLUSTER_MODULE, postgresCluster({}) as EngineResource, plan, clusterStep, {
      reason: "ApplyRejected",
      message: "refused",
      fingerprint: "ApplyRejected",
    });
    expect(failed.status.emitted?.map((e) => `${e.kind}/${e.name}`)).toEqual(
      expect.arrayContaining([`Secret/${llmSecret}`, `DatabaseRole/${llmObject}`, `Database/${llmObject}`]),
    );
  });

  it("deleted under Retain, the retained Cluster keeps its claims' DatabaseRoles and their Secrets, released", () => {
    const marks = { "core.navique.com/owned-by": "postgrescluster.team-a.main" };
    const objects = new Map<string, KubeObject>([
      [
        "Cluster/team-a/main",
        {
          apiVersion: CNPG_API_VERSION,
          kind: "Cluster",
          metadata: {
            name: "main",
            namespace: "team-a",
            labels: marks,
            annotations: { [DELETION_POLICY_ANNOTATION]: "Retain" },
          },
          spec: {},
        },
      ],
      [
        `Secret/team-a/${llmSecret}`,
        { apiVersion: "v1", kind: "Secret", metadata: { name: llmSecret, namespace: "team-a", labels: marks } },
      ],
      [
        `DatabaseRole/team-a/${llmObject}`,
        {
          apiVersion: CNPG_API_VERSION,
          kind: "DatabaseRole",
          metadata: { name: llmObject, namespace: "team-a", labels: marks },
          spec: { name: llm, cluster: { name: "main" }, databaseRoleReclaimPolicy: "retain" },
        },
      ],
    ]);
    const emitted = [...objects.values()].map((o) => ({
      apiVersion: o.apiVersion,
      kind: o.kind,
      name: o.metadata.name,
      namespace: "team-a",
    }));
    const status = { mode: "managed", type: "cnpg", conditions: [], capabilities: [], emitted };
    const plan = planPostgresCluster(
      postgresCluster({}, status, true),
      view({ capabilities: [], objects }),
      POSTGRES_PLAN_CONTEXT,
    );
    expect(plan.steps.filter((s) => s.kind === "delete")).toEqual([]);
    expect(plan.steps.flatMap((s) => (s.kind === "retain" ? [`${s.target.kind}/${s.target.name}`] : []))).toEqual([
      "Cluster/main",
      `Secret/${llmSecret}`,
      `DatabaseRole/${llmObject}`,
    ]);
    expect(plan.events.map((e) => e.message)).toEqual([
      `CNPG Cluster team-a/main may hold data and was kept (deletionPolicy Retain) (PostgresCluster team-a/main deleted), with its credentials Secret(s) team-a/${llmSecret} (passwords unchanged) and its DatabaseRole object(s) team-a/${llmObject}; they are released to you and no longer managed: dump its data and delete them yourself when safe. Deleting namespace team-a deletes them all the same, and the data on their volumes unless their PersistentVolumes' reclaim policy is Retain`,
    ]);
  });

  it("recognises its claims' Secrets by name, for the cluster they were made for only", () => {
    expect(isClaimSecretName("main", llmSecret)).toBe(true);
    expect(isClaimSecretName("other", llmSecret)).toBe(false);
    expect(isClaimSecretName("main", "main-claim-xyz")).toBe(false);
    expect(isClaimSecretName("main", "main-credentials")).toBe(false);
  });
});

describe("an adopting PostgresCluster's claims (spec.adopt.claims)", () => {
  const adoptedCluster = (namespace: string): KubeObject => ({
    apiVersion: CNPG_API_VERSION,
    kind: "Cluster",
    metadata: { name: "shared", namespace },
    spec: { managed: { roles: [{ name: "reporting", login: true }] } },
    status: { conditions: [{ type: "Ready", status: "True" }] },
  });
  const adopting = (clusterNamespace: string | undefined, claims?: unknown) =>
    postgresCluster({
      mode: "adopt",
      adopt: {
        clusterRef: { name: "shared", ...(clusterNamespace ? { namespace: clusterNamespace } : {}) },
        credentialsSecretRef: { name: "shared-app", ...(clusterNamespace ? { namespace: clusterNamespace } : {}) },
        ...(claims ? { claims } : {}),
      },
    });
  // The grant by which namespace data lets team-a's PostgresClusters adopt its Cluster (docs/reference-grants.md).
  const grant = {
    namespace: "data",
    spec: {
      from: [{ group: "core.navique.com", kind: "PostgresCluster", namespace: "team-a" }],
      to: [
        { group: "postgresql.cnpg.io", kind: "Cluster", name: "shared" },
        { group: "", kind: "Secret", name: "shared-app" },
      ],
    },
  };
  const adoptView = (clusterNamespace: string, overrides: Partial<PostgresObservation> = {}) =>
    view({
      capabilities: [],
      referenceGrants: [grant],
      claims: [LLM],
      adoptTarget: adoptedCluster(clusterNamespace),
      adoptCredentials: { username: "owner", password: "pw" },
      ...overrides,
    });
  const sharedObject = `shared-${llm.replace(/_/g, "-")}`;

  it("takes none without the opt-in: no status.claims, nothing of a claim made", () => {
    const pc = adopting(undefined);
    expect(POSTGRES_CLUSTER_MODULE.takesClaims?.(pc)).toBe(false);
    const plan = planPostgresCluster(pc, adoptView("team-a"), POSTGRES_PLAN_CONTEXT);
    expect(plan.status.claims).toBeUndefined();
    expect(plan.steps.map((s) => ("object" in s ? s.object.kind : s.kind))).toEqual(["Secret"]);
  });

  it("opted in, beside an adopted Cluster in its own namespace: a DatabaseRole and a Database there, the Cluster never written", () => {
    const pc = adopting(undefined, {});
    expect(pc.spec.adopt?.claims).toEqual({ deletionPolicy: "Retain" });
    expect(POSTGRES_CLUSTER_MODULE.takesClaims?.(pc)).toBe(true);
    const plan = planPostgresCluster(pc, adoptView("team-a"), POSTGRES_PLAN_CONTEXT);
    expect(
      plan.steps.map((s) => `${s.kind} ${"object" in s ? `${s.object.kind} ${s.object.metadata.name}` : ""}`),
    ).toEqual([
      "apply Secret main-adopted-credentials",
      `generate-secret Secret ${llmSecret}`,
      `apply DatabaseRole ${sharedObject}`,
      `apply Database ${sharedObject}`,
    ]);
    expect(applied(plan.steps, "DatabaseRole")[0]?.spec).toEqual({
      name: llm,
      cluster: { name: "shared" },
      login: true,
      passwordSecret: { name: llmSecret },
      databaseRoleReclaimPolicy: "retain",
    });
    expect(applied(plan.steps, "Database")[0]?.spec).toMatchObject({ databaseReclaimPolicy: "retain" });
    expect(plan.status.claims).toEqual([
      {
        claimant: "Gateway/apps/llm",
        database: llm,
        user: llm,
        credentialsSecret: { name: llmSecret, namespace: "team-a" },
      },
    ]);
  });

  it("opted in across namespaces: the password generated here first, then copied beside the Cluster with the role and database, and only then published", () => {
    const pc = adopting("data", { deletionPolicy: "Delete" });
    const first = planPostgresCluster(pc, adoptView("data"), POSTGRES_PLAN_CONTEXT);
    expect(first.steps.filter((s) => "object" in s && s.object.kind !== "Secret")).toEqual([]);
    expect(first.steps.find((s) => s.kind === "generate-secret")?.object.metadata).toMatchObject({
      name: llmSecret,
      namespace: "team-a",
    });
    expect(first.status.claims).toEqual([]);

    const generated: KubeObject = {
      apiVersion: "v1",
      kind: "Secret",
      metadata: {
        name: llmSecret,
        namespace: "team-a",
        labels: { "core.navique.com/owned-by": "postgrescluster.team-a.main" },
      },
      ...{ data: { username: Buffer.from(llm).toString("base64"), password: Buffer.from("pw-1").toString("base64") } },
    };
    const objects = new Map([[`Secret/team-a/${llmSecret}`, generated]]);
    const second = planPostgresCluster(pc, adoptView("data", { objects }), POSTGRES_PLAN_CONTEXT);
    const copy = second.steps.find(
      (s) => s.kind === "apply" && s.object.kind === "Secret" && s.object.metadata.namespace === "data",
    );
    expect(copy?.description).toBe(
      `copy the password of role ${llm} from Secret team-a/${llmSecret} beside CNPG Cluster data/shared, where CNPG reads it`,
    );
    expect(copy && "object" in copy ? copy.object.stringData : undefined).toEqual({ username: llm, password: "pw-1" });
    expect(applied(second.steps, "DatabaseRole")[0]).toMatchObject({
      metadata: { name: sharedObject, namespace: "data" },
      spec: { passwordSecret: { name: llmSecret }, databaseRoleReclaimPolicy: "delete" },
    });
    expect(applied(second.steps, "Database")[0]).toMatchObject({
      metadata: { name: sharedObject, namespace: "data" },
      spec: { cluster: { name: "shared" }, databaseReclaimPolicy: "delete" },
    });
    expect(second.status.claims).toEqual([
      {
        claimant: "Gateway/apps/llm",
        database: llm,
        user: llm,
        credentialsSecret: { name: llmSecret, namespace: "team-a" },
      },
    ]);
  });

  it("keeps making its claims while the adopted Cluster cannot be read: a claim is never withdrawn for a moment's miss", () => {
    const plan = planPostgresCluster(
      adopting(undefined, { deletionPolicy: "Delete" }),
      adoptView("team-a", { adoptTarget: undefined }),
      POSTGRES_PLAN_CONTEXT,
    );
    expect(condition(plan.conditions, "DatastoreReady")).toMatchObject({
      status: "False",
      reason: "AdoptTargetMissing",
    });
    expect(applied(plan.steps, "DatabaseRole").map((r) => r.metadata.name)).toEqual([sharedObject]);
    expect(plan.status.claims?.map((c) => c.claimant)).toEqual(["Gateway/apps/llm"]);
  });
});
