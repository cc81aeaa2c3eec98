import { stalledOf } from "../../lib/api/conditions.js";
import { rotationEvent } from "../../lib/engine/generated-secret.js";
import { CNPG_API_VERSION } from "../../lib/kinds/postgres-cluster/cnpg.js";
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

const community = communityEntitlements();
const admittedMain = { namespace: "team-a", name: "main", creationTimestamp: "2027-01-01T00:00:00Z", admitted: true };
const nothing: PostgresObservation = {
  capabilities: [],
  consumers: [],
  objects: new Map(),
  licence: { entitlements: community, instances: [admittedMain] },
};

describe("planPostgresCluster", () => {
  it("gates everything behind the operators: only the first pending capability is ensured", () => {
    const plan = planPostgresCluster(
      postgresCluster({}),
      {
        ...nothing,
        capabilities: [
          ownedCapability("cert-manager", {
            state: "Absent",
            action: "install",
            summary: "install cert-manager",
            ready: false,
          }),
          ownedCapability("cloudnative-pg", {
            state: "Absent",
            action: "install",
            summary: "install cloudnative-pg",
            ready: false,
          }),
        ],
      },
      POSTGRES_PLAN_CONTEXT,
    );
    expect(plan.steps).toEqual([
      { kind: "ensure-capability", capability: "cert-manager", description: "install cert-manager" },
    ]);
    expect(plan.conditions.find((c) => c.type === "OperatorsReady")).toMatchObject({
      status: "False",
      reason: "Installing",
      message: "cert-manager: install cert-manager; cloudnative-pg: install cloudnative-pg",
    });
    expect(plan.requeue).toBe(true);
    expect(plan.status.emitted).toEqual([]);
  });

  it("with --watch-namespaces, does nothing for an adoption from a namespace it does not serve, and says which", () => {
    const adopting = postgresCluster({
      mode: "adopt",
      adopt: {
        clusterRef: { name: "shared", namespace: "data" },
        credentialsSecretRef: { name: "shared-app", namespace: "data" },
      },
    });
    const plan = planPostgresCluster(adopting, nothing, {
      ...POSTGRES_PLAN_CONTEXT,
      watchNamespaces: ["team-a", "team-b"],
    });
    const message =
      'spec.adopt.clusterRef.namespace "data" and spec.adopt.credentialsSecretRef.namespace "data" are outside the namespaces this operator serves (--watch-namespaces team-a,team-b); nothing was done. Add them to --watch-namespaces, or adopt from a served namespace';
    expect(plan.steps).toEqual([]);
    expect(plan.conditions.map((c) => [c.type, c.status, c.reason, c.message])).toEqual([
      ["Ready", "False", "NamespaceNotWatched", message],
      ["DatastoreReady", "False", "NamespaceNotWatched", message],
      ["Stalled", "True", "NamespaceNotWatched", message],
    ]);
    expect(plan.events).toEqual([{ type: "Warning", reason: "NamespaceNotWatched", message }]);
    // Reported once; and served as soon as the namespace is.
    expect(
      planPostgresCluster(postgresCluster(adopting.spec, plan.status), nothing, {
        ...POSTGRES_PLAN_CONTEXT,
        watchNamespaces: ["team-a"],
      }).events,
    ).toEqual([]);
    const served = planPostgresCluster(adopting, nothing, {
      ...POSTGRES_PLAN_CONTEXT,
      watchNamespaces: ["team-a", "data"],
    });
    expect(served.conditions.map((c) => c.reason)).not.toContain("NamespaceNotWatched");
  });

  it("held back by the namespace scope, keeps the mode it had reached, so that leaving it is collected later", () => {
    const wasManaged = postgresCluster(
      {},
      { mode: "managed", type: "cnpg", conditions: [], capabilities: [], emitted: [] },
    );
    const adopting = postgresCluster(
      {
        mode: "adopt",
        adopt: {
          clusterRef: { name: "shared", namespace: "data" },
          credentialsSecretRef: { name: "shared-app", namespace: "data" },
        },
      },
      wasManaged.status,
    );
    const held = planPostgresCluster(adopting, nothing, { ...POSTGRES_PLAN_CONTEXT, watchNamespaces: ["team-a"] });
    expect(held.conditions.map((c) => c.reason)).toContain("NamespaceNotWatched");
    expect([held.status.mode, held.status.type]).toEqual(["managed", "cnpg"]);
  });

  it("records an adoption with one Event, when first seen; the status remembers it after", () => {
    const adopted = ownedCapability("cloudnative-pg", {
      state: "Adopted",
      evidence: "controller labelled app.kubernetes.io/name=cloudnative-pg runs in cnpg-elsewhere",
      summary: "adopt cloudnative-pg, leave its lifecycle alone",
    });
    const observation = { ...nothing, capabilities: [ownedCapability("cert-manager"), adopted] };
    const first = planPostgresCluster(postgresCluster({}), observation, POSTGRES_PLAN_CONTEXT);
    expect(first.events).toEqual([
      {
        type: "Normal",
        reason: "CapabilityAdopted",
        message: "cloudnative-pg: adopt cloudnative-pg, leave its lifecycle alone",
      },
    ]);
    expect(first.status.capabilities).toContainEqual(
      expect.objectContaining({ name: "cloudnative-pg", provenance: "adopted" }),
    );
    const next = planPostgresCluster(postgresCluster({}, first.status), observation, POSTGRES_PLAN_CONTEXT);
    expect(next.events.filter((e) => e.reason === "CapabilityAdopted")).toEqual([]);
  });

  it("with the operators Ready, emits credentials, the Cluster and one Database per entry, then waits for CNPG", () => {
    const plan = planPostgresCluster(
      postgresCluster({ databases: [{ name: "litellm" }] }),
      { ...nothing, capabilities: [ownedCapability("cert-manager"), ownedCapability("cloudnative-pg")] },
      POSTGRES_PLAN_CONTEXT,
    );
    expect(plan.steps.map((s) => s.kind)).toEqual(["generate-secret", "apply", "apply"]);
    expect(plan.conditions.find((c) => c.type === "DatastoreReady")).toMatchObject({
      status: "False",
      reason: "Provisioning",
    });
    expect(plan.status.emitted.map((e) => `${e.kind}/${e.name}`)).toEqual([
      "Secret/main-credentials",
      "Cluster/main",
      "Database/main-litellm",
    ]);
  });

  it("never takes over a CNPG Cluster of its name that it did not create: nothing applied, NameTaken said", () => {
    // A Cluster left by a user (or released to them under Retain): same name, no mark of this PostgresCluster.
    const theirs: KubeObject = {
      apiVersion: CNPG_API_VERSION,
      kind: "Cluster",
      metadata: { name: "main", namespace: "team-a", labels: { team: "data" } },
    };
    const plan = planPostgresCluster(
      postgresCluster({}),
      {
        ...nothing,
        capabilities: [ownedCapability("cert-manager"), ownedCapability("cloudnative-pg")],
        objects: new Map([["Cluster/team-a/main", theirs]]),
      },
      POSTGRES_PLAN_CONTEXT,
    );
    expect(plan.steps).toEqual([]);
    const message =
      "CNPG Cluster team-a/main already exists and is not this PostgresCluster's: it is left alone. Rename the PostgresCluster, or delete or rename that resource";
    expect(plan.conditions.filter((c) => c.status === "False").map((c) => [c.type, c.reason, c.message])).toEqual([
      ["Ready", "NameTaken", message],
      ["DatastoreReady", "NameTaken", message],
    ]);
    // Stalled (kstatus: Failed): only the other object's owner can free the name.
    expect(stalledOf(plan.conditions)).toMatchObject({ reason: "NameTaken", message });
    // Not retried in a loop: the other object does not go away by itself (the resync looks again).
    expect(plan.requeue).toBe(false);
    expect(plan.status.emitted).toEqual([]);
    // Said once: one Warning Event, none at the next pass that finds it reported.
    expect(plan.events).toEqual([{ type: "Warning", reason: "NameTaken", message }]);
    const again = planPostgresCluster(
      postgresCluster({}, plan.status),
      {
        ...nothing,
        capabilities: [ownedCapability("cert-manager"), ownedCapability("cloudnative-pg")],
        objects: new Map([["Cluster/team-a/main", theirs]]),
      },
      POSTGRES_PLAN_CONTEXT,
    );
    expect(again.events).toEqual([]);
  });

  it("refused for a name taken before its operators are installed: no capability ensured, NameTaken on Ready, the phase and OperatorsReady, Stalled", () => {
    // A Secret of the user's under the name of the generated credentials, with no capability installed yet.
    const theirs: KubeObject = {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "main-credentials", namespace: "team-a" },
    };
    const absent = (capability: string) =>
      ownedCapability(capability, {
        state: "Absent",
        action: "install",
        summary: `install ${capability}`,
        ready: false,
        waitingFor: ["not installed"],
      });
    const plan = planPostgresCluster(
      postgresCluster({}),
      {
        ...nothing,
        capabilities: [absent("cert-manager"), absent("cloudnative-pg")],
        objects: new Map([["Secret/team-a/main-credentials", theirs]]),
      },
      POSTGRES_PLAN_CONTEXT,
    );
    expect(plan.steps).toEqual([]);
    const message =
      "Secret team-a/main-credentials already exists and is not this PostgresCluster's: it is left alone. Rename the PostgresCluster, or delete or rename that resource";
    expect(plan.conditions.filter((c) => c.status === "False").map((c) => [c.type, c.reason, c.message])).toEqual([
      ["Ready", "NameTaken", message],
      [
        "OperatorsReady",
        "NameTaken",
        `nothing is installed for it (cert-manager, cloudnative-pg) while it is refused: ${message}`,
      ],
      ["DatastoreReady", "NameTaken", message],
    ]);
    expect(stalledOf(plan.conditions)).toMatchObject({ reason: "NameTaken", message });
    expect(plan.events).toEqual([{ type: "Warning", reason: "NameTaken", message }]);
    expect(plan.requeue).toBe(false);
  });

  it("is a pure function: the same inputs give the same plan", () => {
    const observation = {
      ...nothing,
      capabilities: [ownedCapability("cert-manager"), ownedCapability("cloudnative-pg")],
    };
    expect(planPostgresCluster(postgresCluster({}), observation, POSTGRES_PLAN_CONTEXT)).toEqual(
      planPostgresCluster(postgresCluster({}), observation, POSTGRES_PLAN_CONTEXT),
    );
  });

  const emittedCluster = { apiVersion: CNPG_API_VERSION, kind: "Cluster", name: "main", namespace: "team-a" };
  const liveCluster = (policy: string, ownedBy = "postgrescluster.team-a.main"): KubeObject => ({
    apiVersion: CNPG_API_VERSION,
    kind: "Cluster",
    metadata: {
      name: "main",
      namespace: "team-a",
      labels: { "core.navique.com/owned-by": ownedBy },
      annotations: { [DELETION_POLICY_ANNOTATION]: policy },
    },
  });
  const external = { mode: "external", external: { connectionSecretRef: { name: "pg" } } };
  const previous = { mode: "managed", type: "cnpg", conditions: [], capabilities: [], emitted: [emittedCluster] };

  it.each([
    ["Delete", "delete"],
    ["Retain", "retain"],
  ])("leaving managed mode under deletionPolicy %s: %s the Cluster, with a Warning Event", (policy, kind) => {
    const plan = planPostgresCluster(
      postgresCluster(external, previous),
      {
        ...nothing,
        objects: new Map([["Cluster/team-a/main", liveCluster(policy)]]),
        externalCredentials: { host: "h", username: "u", password: "p" },
      },
      POSTGRES_PLAN_CONTEXT,
    );
    expect(plan.steps.filter((s) => s.kind === kind)).toHaveLength(1);
    expect(plan.events.map((e) => [e.type, e.reason])).toEqual([
      ["Warning", kind === "delete" ? "DatastoreDeleted" : "DatastoreRetained"],
    ]);
    // A retained Cluster is the user's from now on: it holds no release. A deleted one holds CNPG's (and so
    // cert-manager's, its prerequisite) until it is gone: CNPG removes its finalizer.
    expect(plan.steps.filter((s) => s.kind === "release-capability").map((s) => s.description)).toEqual(
      kind === "retain"
        ? [
            "release cloudnative-pg: no consumer left (uninstalled only if owned)",
            "release cert-manager: no consumer left (uninstalled only if owned)",
          ]
        : [],
    );
  });

  it("leaving managed mode under Delete: CNPG and cert-manager released once the deleted Cluster is gone, not before", () => {
    const terminating = liveCluster("Delete");
    const waiting = planPostgresCluster(
      postgresCluster(external, { ...previous, needs: ["cert-manager", "cloudnative-pg"] }),
      {
        ...nothing,
        objects: new Map([
          ["Cluster/team-a/main", { ...terminating, metadata: { ...terminating.metadata, deletionTimestamp: "t" } }],
        ]),
        externalCredentials: { host: "h", username: "u", password: "p" },
      },
      POSTGRES_PLAN_CONTEXT,
    );
    expect(waiting.steps).toEqual([]);
    expect(waiting.events).toEqual([]);
    expect(waiting.conditions.find((c) => c.type === "OperatorsReady")).toMatchObject({
      status: "False",
      reason: "WaitingForRelease",
      message:
        "cloudnative-pg is released once its operator has let go of Cluster team-a/main (deleting) (it removes their finalizers); cert-manager is released after the capabilities that need it",
    });
    expect(waiting.status).toMatchObject({ needs: ["cert-manager", "cloudnative-pg"], emitted: [emittedCluster] });
    expect(waiting.requeue).toBe(true);

    const gone = planPostgresCluster(
      postgresCluster(external, waiting.status),
      { ...nothing, externalCredentials: { host: "h", username: "u", password: "p" } },
      POSTGRES_PLAN_CONTEXT,
    );
    expect(gone.steps.map((s) => s.description)).toEqual([
      "release cloudnative-pg: no consumer left (uninstalled only if owned)",
      "release cert-manager: no consumer left (uninstalled only if owned)",
    ]);
    expect(gone.status).toMatchObject({ needs: [], emitted: [] });
  });

  it("never removes an object that no longer carries its owned-by label, and keeps operators others need", () => {
    const plan = planPostgresCluster(
      postgresCluster(external, previous),
      {
        ...nothing,
        objects: new Map([["Cluster/team-a/main", liveCluster("Delete", "someone-else")]]),
        externalCredentials: { host: "h", username: "u", password: "p" },
        consumers: [{ key: "PostgresCluster team-b/other", needs: ["cert-manager", "cloudnative-pg"] }],
      },
      POSTGRES_PLAN_CONTEXT,
    );
    expect(plan.steps.filter((s) => s.kind === "delete" || s.kind === "retain")).toEqual([]);
    expect(plan.steps.filter((s) => s.kind === "release-capability").map((s) => s.description)).toEqual([
      "keep cloudnative-pg: still needed by PostgresCluster team-b/other",
      "keep cert-manager: still needed by PostgresCluster team-b/other",
    ]);
  });

  // Stalled (kstatus Failed; `pulumi up` stops on it) only where waiting cannot help: a Secret that is not
  // there yet may still be made by another tool, and is waited for.
  it.each([
    ["the Secret missing", undefined, { name: "pg" }, undefined],
    [
      "the Secret lacking a key",
      { host: "h", username: "u" },
      { name: "pg" },
      "Secret team-a/pg lacks keys password: add them (host, port, username, password)",
    ],
    [
      "the Secret in another namespace",
      undefined,
      { name: "pg", namespace: "other" },
      "spec.external.connectionSecretRef must name a Secret in team-a, got other/pg: copy the Secret here",
    ],
  ])(
    "external mode with %s: Stalled only where waiting cannot help",
    (_case, externalCredentials, connectionSecretRef, stalledMessage) => {
      const plan = planPostgresCluster(
        postgresCluster({ mode: "external", external: { connectionSecretRef } }),
        { ...nothing, ...(externalCredentials ? { externalCredentials } : {}) },
        POSTGRES_PLAN_CONTEXT,
      );
      const ready = plan.conditions.find((c) => c.type === "Ready");
      expect(ready?.status).toBe("False");
      if (stalledMessage === undefined) {
        expect(ready?.message).toBe(
          "Secret team-a/pg (spec.external.connectionSecretRef) does not exist: create it with keys host, port, username and password",
        );
        expect(stalledOf(plan.conditions)).toBeUndefined();
      } else {
        expect(ready?.message).toBe(stalledMessage);
        expect(stalledOf(plan.conditions)).toMatchObject({ reason: ready?.reason, message: stalledMessage });
      }
    },
  );

  it.each([
    [
      "no port key",
      { host: "db.internal", username: "u", password: "p" },
      "Secret team-a/pg holds host, username and password: consumers are sent to db.internal:5432 (no port key: 5432), which the product does not contact",
    ],
    [
      "a port key",
      { host: "db.internal", port: "6432", username: "u", password: "p" },
      "Secret team-a/pg holds host, port, username and password: consumers are sent to db.internal:6432, which the product does not contact",
    ],
  ])(
    "external mode, Ready: the message says which keys of which Secret were checked (%s), not that the host is reachable",
    (_case, externalCredentials, message) => {
      const plan = planPostgresCluster(
        postgresCluster(external),
        { ...nothing, externalCredentials },
        POSTGRES_PLAN_CONTEXT,
      );
      expect(plan.conditions.find((c) => c.type === "Ready")).toMatchObject({ status: "True", message });
    },
  );

  it("publishes status.connection, the shape every datastore publishes, and the deprecated fields beside it", () => {
    const plan = planPostgresCluster(
      postgresCluster(external),
      { ...nothing, externalCredentials: { host: "fd00::5", port: "6432", username: "u", password: "p" } },
      POSTGRES_PLAN_CONTEXT,
    );
    const secret = { name: "pg", namespace: "team-a" };
    expect(plan.status).toMatchObject({
      connection: { host: "fd00::5", port: 6432, credentialsSecret: secret, url: "postgresql://[fd00::5]:6432" },
      host: "fd00::5",
      port: 6432,
      credentialsSecret: secret,
    });
  });

  it("a type not implemented yet is Stalled: only a change of spec.type helps", () => {
    const plan = planPostgresCluster(postgresCluster({ type: "zalando" }), nothing, POSTGRES_PLAN_CONTEXT);
    expect(stalledOf(plan.conditions)).toMatchObject({
      reason: "NotImplemented",
      message: "spec.type zalando is not implemented yet; use type: cnpg (CloudNativePG)",
    });
  });

  it("on deletion releases everything and then removes the finalizer, last", () => {
    const plan = planPostgresCluster(
      postgresCluster({}, { ...previous, mode: "managed" }, true),
      { ...nothing, objects: new Map([["Cluster/team-a/main", liveCluster("Retain")]]) },
      POSTGRES_PLAN_CONTEXT,
    );
    // By target and in order: the Cluster kept, the dependant operator released before its prerequisite,
    // the finalizer last.
    expect(
      plan.steps.map((s) =>
        s.kind === "retain"
          ? `retain ${s.target.kind}/${s.target.name}`
          : s.kind === "release-capability"
            ? `release ${s.capability}`
            : s.kind,
      ),
    ).toEqual(["retain Cluster/main", "release cloudnative-pg", "release cert-manager", "remove-finalizer"]);
    expect(plan.requeue).toBe(false);
  });

  it("refuses a new instance beyond the licence's cap: no step, a condition and an Event that say why and what to do", () => {
    const others = [
      { namespace: "team-b", name: "one", creationTimestamp: "2027-01-01T00:00:00Z", admitted: true },
      { namespace: "team-c", name: "two", creationTimestamp: "2027-01-02T00:00:00Z", admitted: true },
    ];
    const fresh = { namespace: "team-a", name: "main", creationTimestamp: "2027-01-03T00:00:00Z", admitted: false };
    const plan = planPostgresCluster(
      postgresCluster({}),
      { ...nothing, licence: { entitlements: community, instances: [...others, fresh] } },
      POSTGRES_PLAN_CONTEXT,
    );
    expect(plan.steps).toEqual([]);
    expect(plan.refusal?.reason).toBe("InstanceCapExceeded");
    expect(plan.conditions.map((c) => [c.type, c.status, c.reason])).toEqual([
      ["Ready", "False", "InstanceCapExceeded"],
      ["Licensed", "False", "InstanceCapExceeded"],
      ["Stalled", "True", "InstanceCapExceeded"],
    ]);
    expect(plan.events).toEqual([
      {
        type: "Warning",
        reason: "InstanceCapExceeded",
        message: expect.stringContaining(
          "PostgresCluster team-a/main is refused: the Community edition allows 2 PostgresCluster instance(s) and 2 come before it (admitted earlier or created first)",
        ),
      },
    ]);
    // The same resource, admitted before the caps shrank, keeps running.
    const admitted = planPostgresCluster(
      postgresCluster({}),
      {
        ...nothing,
        capabilities: [ownedCapability("cert-manager"), ownedCapability("cloudnative-pg")],
        licence: { entitlements: community, instances: [...others, { ...fresh, admitted: true }] },
      },
      POSTGRES_PLAN_CONTEXT,
    );
    expect(admitted.refusal).toBeUndefined();
    expect(admitted.conditions.find((c) => c.type === "Licensed")).toMatchObject({
      status: "True",
      reason: "Admitted",
    });
  });
});

describe("credentials on deletion and drift", () => {
  const operators = [ownedCapability("cert-manager"), ownedCapability("cloudnative-pg")];
  const withRole = (policy: string) => ({
    databases: [{ name: "litellm" }, { name: "langfuse", owner: "langfuse" }],
    managed: { deletionPolicy: policy },
  });
  const ours = { "core.navique.com/owned-by": "postgrescluster.team-a.main" };
  const marks = { ...ours, "app.kubernetes.io/managed-by": "navique-ai-core-operator" };
  const owner = { apiVersion: "core.navique.com/v1alpha1", kind: "PostgresCluster", name: "main", uid: "u-1" };
  const secret = (name: string): KubeObject => ({
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name, namespace: "team-a", labels: { ...marks, "cnpg.io/reload": "true" }, ownerReferences: [owner] },
  });
  const database = (name: string, cluster = "main"): KubeObject => ({
    apiVersion: CNPG_API_VERSION,
    kind: "Database",
    metadata: { name, namespace: "team-a", labels: marks },
    spec: { name, owner: "app", cluster: { name: cluster } },
  });
  const cluster = (policy: string): KubeObject => ({
    apiVersion: CNPG_API_VERSION,
    kind: "Cluster",
    metadata: {
      name: "main",
      namespace: "team-a",
      labels: marks,
      annotations: { [DELETION_POLICY_ANNOTATION]: policy, "kept.example.com/note": "the user's" },
    },
    spec: {
      bootstrap: { initdb: { database: "app", owner: "app", secret: { name: "main-credentials" } } },
      managed: { roles: [{ name: "langfuse", passwordSecret: { name: "main-langfuse-credentials" } }] },
    },
  });
  const live = (policy: string) =>
    new Map<string, KubeObject>([
      ["Secret/team-a/main-credentials", secret("main-credentials")],
      ["Secret/team-a/main-langfuse-credentials", secret("main-langfuse-credentials")],
      ["Cluster/team-a/main", cluster(policy)],
      ["Database/team-a/main-litellm", database("main-litellm")],
      ["Database/team-a/main-langfuse", database("main-langfuse")],
    ]);
  const emitted = [
    { apiVersion: "v1", kind: "Secret", name: "main-credentials", namespace: "team-a" },
    { apiVersion: "v1", kind: "Secret", name: "main-langfuse-credentials", namespace: "team-a" },
    { apiVersion: CNPG_API_VERSION, kind: "Cluster", name: "main", namespace: "team-a" },
    { apiVersion: CNPG_API_VERSION, kind: "Database", name: "main-litellm", namespace: "team-a" },
    { apiVersion: CNPG_API_VERSION, kind: "Database", name: "main-langfuse", namespace: "team-a" },
  ];
  const status = { mode: "managed", type: "cnpg", conditions: [], capabilities: [], emitted };
  const removeMarks = [
    { op: "remove", path: "/metadata/labels/app.kubernetes.io~1managed-by" },
    { op: "remove", path: "/metadata/labels/core.navique.com~1owned-by" },
  ];
  const releaseSecret = [
    { op: "test", path: "/metadata/ownerReferences/0/uid", value: "u-1" },
    { op: "remove", path: "/metadata/ownerReferences/0" },
    ...removeMarks,
  ];

  it.each([
    ["deleted", postgresCluster(withRole("Retain"), status, true), "(PostgresCluster team-a/main deleted)"],
    [
      "moved to external",
      postgresCluster({ mode: "external", external: { connectionSecretRef: { name: "pg" } } }, status),
      "(mode/type changed from managed/cnpg to external/cnpg)",
    ],
  ])(
    "under Retain, %s: keeps the Cluster with its Secrets and Databases, each released of every mark of ours",
    (_, pc, why) => {
      const plan = planPostgresCluster(
        pc,
        {
          ...nothing,
          capabilities: pc.spec.mode === "managed" ? operators : [],
          objects: live("Retain"),
          externalCredentials: { host: "h", username: "u", password: "p" },
        },
        POSTGRES_PLAN_CONTEXT,
      );
      expect(
        plan.steps.flatMap((s) => (s.kind === "retain" ? [[`${s.target.kind}/${s.target.name}`, s.patch]] : [])),
      ).toEqual([
        ["Secret/main-credentials", releaseSecret],
        ["Secret/main-langfuse-credentials", releaseSecret],
        [
          "Cluster/main",
          [...removeMarks, { op: "remove", path: "/metadata/annotations/core.navique.com~1deletion-policy" }],
        ],
        ["Database/main-litellm", removeMarks],
        ["Database/main-langfuse", removeMarks],
      ]);
      expect(plan.steps.filter((s) => s.kind === "delete")).toEqual([]);
      expect(plan.events).toEqual([
        {
          type: "Warning",
          reason: "DatastoreRetained",
          message: `CNPG Cluster team-a/main may hold data and was kept (deletionPolicy Retain) ${why}, with its credentials Secret(s) team-a/main-credentials, team-a/main-langfuse-credentials (passwords unchanged) and its Database object(s) team-a/main-litellm, team-a/main-langfuse; they are released to you and no longer managed: dump its data and delete them yourself when safe. Deleting namespace team-a deletes them all the same, and the data on their volumes unless their PersistentVolumes' reclaim policy is Retain`,
        },
      ]);
      // Released objects are no longer recorded as emitted: the next pass leaves them alone.
      expect(plan.status.emitted).toEqual([]);
    },
  );

  it("under Delete, deletes the Cluster, its Secrets and its Databases", () => {
    const plan = planPostgresCluster(
      postgresCluster(withRole("Delete"), status, true),
      { ...nothing, objects: live("Delete") },
      POSTGRES_PLAN_CONTEXT,
    );
    expect(plan.steps.filter((s) => s.kind === "delete").map((s) => `${s.target.kind}/${s.target.name}`)).toEqual([
      "Secret/main-credentials",
      "Secret/main-langfuse-credentials",
      "Cluster/main",
      "Database/main-litellm",
      "Database/main-langfuse",
    ]);
    expect(plan.steps.filter((s) => s.kind === "retain")).toEqual([]);
  });

  it("keeps with a retained Cluster only what belongs to it: a Database of another cluster is deleted", () => {
    const objects = live("Retain");
    objects.set("Database/team-a/main-langfuse", database("main-langfuse", "elsewhere"));
    const plan = planPostgresCluster(
      postgresCluster(withRole("Retain"), status, true),
      { ...nothing, objects },
      POSTGRES_PLAN_CONTEXT,
    );
    expect(plan.steps.filter((s) => s.kind === "delete").map((s) => `${s.target.kind}/${s.target.name}`)).toEqual([
      "Database/main-langfuse",
    ]);
  });

  it.each([
    ["the app owner's", "main-credentials", "app", "spec.bootstrap.initdb.secret"],
    ["a role's", "main-langfuse-credentials", "langfuse", "spec.managed.roles[].passwordSecret"],
  ])(
    "%s Secret deleted: re-created with a new password CNPG applies, one Warning Event when re-created",
    (_, name, role, field) => {
      const objects = live("Retain");
      objects.delete(`Secret/team-a/${name}`);
      const plan = planPostgresCluster(
        postgresCluster(withRole("Retain"), status),
        { ...nothing, capabilities: operators, objects },
        POSTGRES_PLAN_CONTEXT,
      );
      const step = plan.steps.find((s) => s.kind === "generate-secret" && s.object.metadata.name === name);
      expect(step).toMatchObject({
        keys: { username: { fixed: role }, password: { length: 32, alphabet: "base64url" } },
        object: { metadata: { labels: { "cnpg.io/reload": "true" } } },
      });
      expect(step?.description).toBe(
        `re-create Secret team-a/${name}, deleted, with a new generated password (a rotation: Warning CredentialsRotated)`,
      );
      // The Event is said by the executor that re-creates it (lib/engine/execute.ts); the plan marks the step.
      expect(plan.events).toEqual([]);
      if (step?.kind !== "generate-secret") throw new Error(`no step for Secret ${name}`);
      expect(step.madeBefore).toBe(true);
      expect(rotationEvent(step, "uid").message).toBe(
        `Secret team-a/${name} was deleted and is re-created with a new generated password; CNPG sets it in the database for role ${role} from that Secret (${field} of CNPG Cluster team-a/main): the old password stops working, every consumer must pick up the new one from the Secret`,
      );
    },
  );

  it.each([
    ["Retain", undefined],
    ["Delete", [{ ...owner, controller: true, blockOwnerDeletion: true }]],
  ])("under %s, the generated Secrets carry owner references %j", (policy, references) => {
    const plan = planPostgresCluster(
      postgresCluster(withRole(policy)),
      { ...nothing, capabilities: operators },
      POSTGRES_PLAN_CONTEXT,
    );
    const secrets = plan.steps.flatMap((s) => (s.kind === "generate-secret" ? [s.object] : []));
    expect(secrets.map((s) => [s.metadata.name, s.metadata.ownerReferences])).toEqual([
      ["main-credentials", references],
      ["main-langfuse-credentials", references],
    ]);
  });

  it("reports no rotation when the Secrets are there, nor on the first pass, before anything was emitted", () => {
    const present = planPostgresCluster(
      postgresCluster(withRole("Retain"), status),
      { ...nothing, capabilities: operators, objects: live("Retain") },
      POSTGRES_PLAN_CONTEXT,
    );
    const first = planPostgresCluster(
      postgresCluster(withRole("Retain")),
      { ...nothing, capabilities: operators },
      POSTGRES_PLAN_CONTEXT,
    );
    expect([...present.events, ...first.events]).toEqual([]);
  });
});
