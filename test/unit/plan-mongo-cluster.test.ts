import type { Claim } from "../../lib/engine/claims.js";
import { rotationEvent } from "../../lib/engine/generated-secret.js";
import type { EngineResource } from "../../lib/engine/kind-module.js";
import type { KubeObject } from "../../lib/engine/objects.js";
import { ownershipMarks } from "../../lib/engine/ownership.js";
import { claimIdentifier, claimSecretName } from "../../lib/kinds/mongo-cluster/claims.js";
import { MONGO_CLUSTER_MODULE } from "../../lib/kinds/mongo-cluster/module.js";
import { LAST_SUCCESSFUL_CONFIGURATION } from "../../lib/kinds/mongo-cluster/mongodb-community-api.js";
import { MongoCluster } from "../../lib/kinds/mongo-cluster/schema.js";
import { operatorKindPlans } from "../support/plans.js";

const {
  resource: mongo,
  view,
  plan,
} = operatorKindPlans(
  MONGO_CLUSTER_MODULE,
  { name: "docs", namespace: "data" },
  { capability: "mongodb-kubernetes", namespace: "mongodb", release: "mongodb-kubernetes-operator" },
);

const claimOf = (kind: string, namespace: string, name: string): Claim => ({
  claimant: `${kind}/${namespace}/${name}`,
  kind,
  namespace,
  name,
  field: "spec.mongoRef",
});

/** What the objects of a plan's steps are, by `Kind/namespace/name`, as the cluster holds them once applied. */
function applied(steps: ReturnType<typeof plan>["steps"], owner: EngineResource): Map<string, KubeObject> {
  const marks = ownershipMarks(owner);
  const live = new Map<string, KubeObject>();
  for (const step of steps) {
    if (step.kind !== "apply" && step.kind !== "generate-secret") continue;
    const object = step.object;
    live.set(`${object.kind}/${object.metadata.namespace}/${object.metadata.name}`, {
      ...object,
      metadata: { ...object.metadata, labels: { ...object.metadata.labels, ...marks.labels } },
    });
  }
  return live;
}

/** The MongoDBCommunity as the operator leaves it once it reconciled (no operator runs here: written by the test). */
function reconciledByOperator(object: KubeObject, members: number, phase = "Running"): KubeObject {
  const spec = object.spec as { users: unknown[] };
  return {
    ...object,
    metadata: {
      ...object.metadata,
      annotations: { ...object.metadata.annotations, [LAST_SUCCESSFUL_CONFIGURATION]: JSON.stringify(spec) },
    },
    status: { phase, currentMongoDBMembers: members, currentStatefulSetReplicas: members, mongoUri: "mongodb://x" },
  };
}

function communityStep(steps: ReturnType<typeof plan>["steps"]): KubeObject {
  const step = steps.find((s) => s.kind === "apply" && s.object.kind === "MongoDBCommunity");
  if (step?.kind !== "apply") throw new Error("no MongoDBCommunity applied");
  return step.object;
}

describe("a MongoCluster", () => {
  it("managed: a generated admin password, its pods' identity, a SCRAM replica set; Ready once the operator reports every member Running", () => {
    const first = plan(mongo({}), view());
    expect(first.steps.map((s) => s.description)).toEqual([
      "create Secret data/docs-credentials with a generated password for user admin (kept if it exists)",
      "apply ServiceAccount data/docs-database (the identity its MongoDB pods run as)",
      "apply Role data/docs-database (the identity its MongoDB pods run as)",
      "apply RoleBinding data/docs-database (the identity its MongoDB pods run as)",
      "apply MongoDBCommunity data/docs (MongoDB 8.3.4, 3 member(s), 10Gi each, 0 claim(s))",
    ]);
    const replicaSet = communityStep(first.steps);
    expect(replicaSet).toEqual({
      apiVersion: "mongodbcommunity.mongodb.com/v1",
      kind: "MongoDBCommunity",
      metadata: {
        name: "docs",
        namespace: "data",
        labels: {
          "app.kubernetes.io/managed-by": "navique-ai-core-operator",
          "core.navique.com/owned-by": "mongocluster.data.docs",
        },
        annotations: {
          "core.navique.com/deletion-policy": "Retain",
          "core.navique.com/owner": "MongoCluster/data/docs",
        },
      },
      spec: {
        type: "ReplicaSet",
        members: 3,
        version: "8.3.4",
        security: { authentication: { modes: ["SCRAM"], ignoreUnknownUsers: false } },
        users: [
          {
            name: "admin",
            db: "admin",
            passwordSecretRef: { name: "docs-credentials", key: "password" },
            roles: [{ name: "root", db: "admin" }],
            scramCredentialsSecretName: "docs-admin",
            connectionStringSecretName: "docs-admin-connection",
          },
        ],
        statefulSet: {
          spec: {
            template: { spec: { serviceAccountName: "docs-database" } },
            volumeClaimTemplates: [
              { metadata: { name: "data-volume" }, spec: { resources: { requests: { storage: "10Gi" } } } },
            ],
          },
        },
      },
    });
    // The password is generated into the Secret, never written in the replica set's spec.
    const secret = first.steps[0];
    if (secret?.kind !== "generate-secret") throw new Error("the first step is not the generated Secret");
    expect(secret.keys).toEqual({ username: { fixed: "admin" }, password: { length: 32, alphabet: "base64url" } });
    // Under Retain nothing made beside it is owned by the MongoCluster: the garbage collector leaves it with the data.
    expect(first.steps.every((s) => !("object" in s) || s.object.metadata.ownerReferences === undefined)).toBe(true);
    expect(first.status.connection).toEqual({
      host: "docs-svc.data.svc",
      port: 27017,
      credentialsSecret: { name: "docs-credentials", namespace: "data" },
      url: "mongodb://docs-svc.data.svc:27017",
    });
    expect(first.status.claims).toEqual([]);
    expect(first.conditions.find((c) => c.type === "DatastoreReady")).toMatchObject({
      status: "False",
      reason: "Provisioning",
      message: "waiting for MongoDBCommunity data/docs: it does not exist yet",
    });

    const objects = applied(first.steps, mongo({}));
    const pending = reconciledByOperator(replicaSet, 3, "Pending");
    objects.set("MongoDBCommunity/data/docs", {
      ...pending,
      status: { ...(pending.status as object), message: "ReplicaSet is not yet ready, retrying in 10 seconds" },
    });
    expect(plan(mongo({}, first.status), view({ objects })).conditions[0]?.message).toBe(
      "waiting for MongoDBCommunity data/docs: phase Pending: ReplicaSet is not yet ready, retrying in 10 seconds",
    );
    // Running with fewer members than asked: the status predates the spec (it has no observedGeneration).
    objects.set("MongoDBCommunity/data/docs", reconciledByOperator(replicaSet, 1));
    expect(plan(mongo({}, first.status), view({ objects })).conditions[0]?.message).toBe(
      "waiting for MongoDBCommunity data/docs: phase Running with 1 of 3 members",
    );
    objects.set("MongoDBCommunity/data/docs", reconciledByOperator(replicaSet, 3));
    const ready = plan(mongo({}, first.status), view({ objects }));
    expect(ready.conditions.find((c) => c.type === "DatastoreReady")).toMatchObject({
      status: "True",
      reason: "MongoDBReady",
      message: "MongoDBCommunity data/docs is Ready: phase Running with 3 of 3 members",
    });
    expect(ready.conditions[0]).toMatchObject({
      type: "Ready",
      status: "True",
      message: "MongoDB reachable at docs-svc.data.svc:27017",
    });
  });

  it("managed with Delete and a StorageClass: owned beside objects, the StorageClass on both volumes", () => {
    const spec = { managed: { members: 1, storage: { size: "5Gi", storageClass: "fast" }, deletionPolicy: "Delete" } };
    const first = plan(mongo(spec), view());
    expect(communityStep(first.steps).spec).toMatchObject({
      members: 1,
      statefulSet: {
        spec: {
          volumeClaimTemplates: [
            {
              metadata: { name: "data-volume" },
              spec: { resources: { requests: { storage: "5Gi" } }, storageClassName: "fast" },
            },
            { metadata: { name: "logs-volume" }, spec: { storageClassName: "fast" } },
          ],
        },
      },
    });
    const owned = first.steps.filter((s) => "object" in s && s.object.kind !== "MongoDBCommunity");
    expect(owned).toHaveLength(4);
    for (const step of owned)
      expect("object" in step && step.object.metadata.ownerReferences).toEqual([
        expect.objectContaining({ kind: "MongoCluster", name: "docs", uid: "u-docs" }),
      ]);
  });

  it("claims: a user and a database of its own per claimant, published once the operator has made the user; a claim that goes takes its user and Secret with it", () => {
    const claims = [claimOf("ChatUI", "apps", "chat"), claimOf("ChatUI", "team", "chat")];
    const [apps, team] = claims.map((c) => claimIdentifier(c));
    expect(apps).toMatch(/^chatui_apps_chat_[0-9a-f]{8}$/);
    expect(apps).not.toBe(team);
    const first = plan(mongo({}), view({ claims }));
    expect(first.steps.map((s) => s.description).slice(0, 3)).toEqual([
      "create Secret data/docs-credentials with a generated password for user admin (kept if it exists)",
      `create Secret data/${claimSecretName("docs", claims[0] as Claim)} with a generated password for user ${apps}, claimed by ChatUI/apps/chat (kept if it exists)`,
      `create Secret data/${claimSecretName("docs", claims[1] as Claim)} with a generated password for user ${team}, claimed by ChatUI/team/chat (kept if it exists)`,
    ]);
    const replicaSet = communityStep(first.steps);
    const users = (replicaSet.spec as { users: { name: string }[] }).users;
    expect(users[1]).toEqual({
      name: apps,
      db: apps,
      passwordSecretRef: { name: claimSecretName("docs", claims[0] as Claim), key: "password" },
      roles: [
        { name: "readWrite", db: apps },
        { name: "dbAdmin", db: apps },
      ],
      scramCredentialsSecretName: claimSecretName("docs", claims[0] as Claim),
      connectionStringSecretName: `${claimSecretName("docs", claims[0] as Claim)}-connection`,
    });
    // Not made yet: nothing published, the claimants wait.
    expect(first.status.claims).toEqual([]);

    const objects = applied(first.steps, mongo({}));
    objects.set("MongoDBCommunity/data/docs", reconciledByOperator(replicaSet, 3));
    const made = plan(mongo({}, first.status), view({ claims, objects }));
    expect(made.status.claims).toEqual(
      claims.map((c, i) => ({
        claimant: c.claimant,
        database: [apps, team][i],
        user: [apps, team][i],
        credentialsSecret: { name: claimSecretName("docs", c), namespace: "data" },
      })),
    );

    // ChatUI team/chat goes: its user leaves the spec (the agent removes it: ignoreUnknownUsers false), its Secret is deleted.
    const left = plan(mongo({}, made.status), view({ claims: [claims[0] as Claim], objects }));
    expect((communityStep(left.steps).spec as { users: { name: string }[] }).users.map((u) => u.name)).toEqual([
      "admin",
      apps,
    ]);
    expect(left.steps.filter((s) => s.kind === "delete").map((s) => s.description)).toEqual([
      `delete Secret data/${claimSecretName("docs", claims[1] as Claim)} (no longer in the spec)`,
    ]);
    expect(left.status.claims?.map((c) => c.claimant)).toEqual(["ChatUI/apps/chat"]);
  });

  it("a generated Secret deleted by hand is re-created with a new password, and the rotation says the operator sets it", () => {
    const emitted = [{ apiVersion: "v1", kind: "Secret", namespace: "data", name: "docs-credentials" }];
    const rotated = plan(mongo({}, { emitted }), view());
    const step = rotated.steps[0];
    if (step?.kind !== "generate-secret") throw new Error("the first step is not the generated Secret");
    expect(step.description).toBe(
      "re-create Secret data/docs-credentials, deleted, with a new generated password (a rotation: Warning CredentialsRotated)",
    );
    expect(rotationEvent(step, "uid").message).toBe(
      "Secret data/docs-credentials was deleted and is re-created with a new generated password; the MongoDB operator sets user admin's password from that Secret (spec.users[].passwordSecretRef of MongoDBCommunity data/docs) at its next reconcile, which a change of the Secret triggers: the old password stops working, every consumer must pick up the new one from the Secret",
    );
  });

  it("leaving managed mode under Retain keeps the replica set with its password Secrets and its pods' identity, released", () => {
    const claims = [claimOf("ChatUI", "apps", "chat")];
    const managed = plan(mongo({}), view({ claims }));
    const live = applied(managed.steps, mongo({}));
    const spec = { mode: "external", external: { connectionSecretRef: { name: "mongo-conn" } } };
    const moved = plan(
      mongo(spec, managed.status),
      view({
        capabilities: [],
        objects: live,
        reads: { externalCredentials: { host: "m.example", username: "u", password: "p" } },
      }),
    );
    const secret = claimSecretName("docs", claims[0] as Claim);
    expect(moved.steps.map((s) => s.description)).toEqual([
      "keep Secret data/docs-credentials with retained MongoDBCommunity data/docs (its password unchanged): released to you, no longer managed",
      `keep Secret data/${secret} with retained MongoDBCommunity data/docs (its password unchanged): released to you, no longer managed`,
      "keep ServiceAccount data/docs-database with retained MongoDBCommunity data/docs (its MongoDB pods run as it): released to you, no longer managed",
      "keep Role data/docs-database with retained MongoDBCommunity data/docs (what its MongoDB pods may do): released to you, no longer managed",
      "keep RoleBinding data/docs-database with retained MongoDBCommunity data/docs (grants its pods' Role): released to you, no longer managed",
      "keep MongoDBCommunity data/docs, which may hold data (deletionPolicy Retain): released to you, no longer managed",
      "release mongodb-kubernetes: no consumer left (uninstalled only if owned)",
    ]);
    expect(moved.events.filter((e) => e.reason === "DatastoreRetained").map((e) => e.message)).toEqual([
      `MongoDBCommunity data/docs may hold data and was kept (deletionPolicy Retain) (mode changed from managed to external), with its password Secret(s) data/docs-credentials, data/${secret} (passwords unchanged) and the service account its pods run as data/docs-database and its pods' Role data/docs-database and its pods' RoleBinding data/docs-database; they are released to you and no longer managed: dump its data and delete them yourself when safe. Deleting namespace data deletes them all the same, and the data on their volumes unless their PersistentVolumes' reclaim policy is Retain`,
    ]);
  });

  it("adopt: the credentials copied into <name>-adopted-credentials; host and port as the operator derives them from the adopted spec", () => {
    const spec = {
      mode: "adopt",
      adopt: {
        communityRef: { name: "shared", namespace: "mongo" },
        credentialsSecretRef: { name: "shared-admin-app", namespace: "mongo" },
      },
    };
    const grant = {
      namespace: "mongo",
      spec: {
        from: [{ group: "core.navique.com", kind: "MongoCluster", namespace: "data" }],
        to: [
          { group: "mongodbcommunity.mongodb.com", kind: "MongoDBCommunity" },
          { group: "", kind: "Secret" },
        ],
      },
    };
    const target = {
      apiVersion: "mongodbcommunity.mongodb.com/v1",
      kind: "MongoDBCommunity",
      metadata: { name: "shared", namespace: "mongo" },
      spec: {
        members: 2,
        statefulSet: { spec: { serviceName: "shared-mongo" } },
        additionalMongodConfig: { net: { port: 27018 } },
      },
      status: { phase: "Running", currentMongoDBMembers: 2 },
    };
    const credentials = { username: "app", password: "s3cr3t-Adopted", "connectionString.standard": "mongodb://..." };
    const adopted = plan(
      mongo(spec),
      view({
        capabilities: [],
        referenceGrants: [grant],
        reads: { adoptTarget: target, adoptCredentials: credentials },
      }),
    );
    expect(adopted.steps.map((s) => s.description)).toEqual([
      "copy the credentials of mongo/shared-admin-app into Secret data/docs-adopted-credentials",
    ]);
    expect((adopted.steps[0] as { object: KubeObject }).object).toMatchObject({
      kind: "Secret",
      metadata: { name: "docs-adopted-credentials", namespace: "data" },
      stringData: { username: "app", password: "s3cr3t-Adopted" },
    });
    expect(adopted.status.connection).toEqual({
      host: "shared-mongo.mongo.svc",
      port: 27018,
      credentialsSecret: { name: "docs-adopted-credentials", namespace: "data" },
      url: "mongodb://shared-mongo.mongo.svc:27018",
    });
    expect(adopted.status.provenance).toBe("adopted");
    expect(adopted.conditions.find((c) => c.type === "DatastoreReady")).toMatchObject({
      status: "True",
      reason: "AdoptedMongoDBReady",
      message: "adopted MongoDBCommunity mongo/shared is Ready: phase Running with 2 of 2 members",
    });
    // The adopted MongoCluster takes no claims: its status publishes none.
    expect(adopted.status.claims).toBeUndefined();
    expect(JSON.stringify([adopted.conditions, adopted.events, adopted.status])).not.toContain("s3cr3t-Adopted");

    const lacking = plan(
      mongo(spec),
      view({
        capabilities: [],
        referenceGrants: [grant],
        reads: { adoptTarget: target, adoptCredentials: { password: "x" } },
      }),
    );
    expect(lacking.conditions.find((c) => c.type === "DatastoreReady")).toMatchObject({
      reason: "CredentialsMissing",
      message:
        "Secret mongo/shared-admin-app (spec.adopt.credentialsSecretRef) is missing or lacks keys username and password: point the reference at the Secret that holds them",
    });
    const missing = plan(mongo(spec), view({ capabilities: [], referenceGrants: [grant], reads: {} }));
    expect(missing.conditions.find((c) => c.type === "DatastoreReady")).toMatchObject({
      reason: "AdoptTargetMissing",
      message:
        "MongoDBCommunity mongo/shared (spec.adopt.communityRef) does not exist: create it or correct the reference",
    });
    const refused = plan(mongo(spec), view({ capabilities: [], referenceGrants: [] }));
    expect(refused.steps).toEqual([]);
    expect(refused.conditions[0]?.reason).toBe("ReferenceNotPermitted");
  });

  it("external: wires the connection Secret, which must hold host, username and password; its database is published", () => {
    const spec = { mode: "external", external: { connectionSecretRef: { name: "mongo-conn" } } };
    const missing = plan(mongo(spec), view({ capabilities: [] }));
    expect(missing.conditions.find((c) => c.type === "DatastoreReady")?.message).toBe(
      "Secret data/mongo-conn (spec.external.connectionSecretRef) does not exist: create it with keys host, port, username and password",
    );
    const lacking = plan(mongo(spec), view({ capabilities: [], reads: { externalCredentials: { host: "m" } } }));
    expect(lacking.conditions.find((c) => c.type === "DatastoreReady")).toMatchObject({
      reason: "ConnectionSecretInvalid",
      message: "Secret data/mongo-conn lacks keys username, password: add them (host, port, username, password)",
    });
    const credentials = { host: "m.example", port: "27019", username: "u", password: "p", database: "chat" };
    const wired = plan(mongo(spec), view({ capabilities: [], reads: { externalCredentials: credentials } }));
    expect(wired.steps).toEqual([]);
    expect(wired.status.connection).toEqual({
      host: "m.example",
      port: 27019,
      credentialsSecret: { name: "mongo-conn", namespace: "data" },
      database: "chat",
      url: "mongodb://m.example:27019",
    });
    expect(wired.conditions[0]).toMatchObject({
      status: "True",
      message:
        "Secret data/mongo-conn holds host, port, username and password: consumers are sent to m.example:27019, which the product does not contact",
    });
  });

  it("refuses a name the operator's StatefulSets could not bear, and a version that is no MAJOR.MINOR.PATCH", () => {
    const parsed = MongoCluster.safeParse({
      apiVersion: "core.navique.com/v1alpha1",
      kind: "MongoCluster",
      metadata: { name: "m".repeat(49), namespace: "data" },
      spec: { managed: { version: "8.0" } },
    });
    expect(parsed.error?.issues.map((i) => [i.path.join("."), i.message])).toEqual([
      [
        "metadata.name",
        "a MongoCluster name has at most 48 characters, received 49: its MongoDBCommunity, and the StatefulSets the MongoDB operator derives from it (<name>-arb), are named after it. Choose a shorter name",
      ],
      ["spec.managed.version", 'must be a MongoDB version such as "8.3.4"'],
    ]);
  });
});
