import { ApiObject, Chart, Testing } from "cdk8s";
import * as kplus from "cdk8s-plus-28";
import { parseAllDocuments } from "yaml";
import {
  fromName,
  Gateway,
  type GatewayProps,
  PostgresCluster,
  RedisInstance,
  type Referenceable,
  SecretsManagement,
} from "../../constructs/index.js";
import type { API_GROUP } from "../../lib/api/group.js";
import type { ReferenceTree } from "../../lib/api/reference-fields.js";
import type { GatewaySpec } from "../../lib/kinds/gateway/schema.js";
import type { PostgresClusterSpec } from "../../lib/kinds/postgres-cluster/schema.js";
import type { SecretsManagementSpec } from "../../lib/kinds/secrets-management/schema.js";
import { SECRETS_MANAGEMENT_TARGET } from "../../lib/kinds/secrets-management/secrets-ref.js";
import { synthProblems } from "../support/synth-problems.js";

// The `@ts-expect-error` lines are the compile-time half of these tests: tsc (npm test's type-check)
// fails if a construct of the wrong kind is ever accepted where a reference field expects another kind.

/** A chart in namespace `apps`, with the app behind it. */
function platform() {
  const app = Testing.app();
  return { app, chart: new Chart(app, "platform", { namespace: "apps" }) };
}

describe("a reference field takes a construct of the kind its schema names", () => {
  it("GIVEN a PostgresCluster or a RedisInstance where a Secret is referenced THEN tsc refuses it, and so does synth", () => {
    const { chart } = platform();
    const db = new PostgresCluster(chart, "db", { spec: {} });
    const cache = new RedisInstance(chart, "cache");
    new PostgresCluster(chart, "reporting", {
      spec: {
        mode: "external",
        external: {
          // @ts-expect-error a PostgresCluster is no Secret
          connectionSecretRef: db,
        },
      },
    });
    new RedisInstance(chart, "queue", {
      spec: {
        mode: "external",
        external: {
          // @ts-expect-error a RedisInstance is no Secret, with a key or without
          connectionSecretRef: { ref: cache, key: "password" },
        },
      },
    });
    expect(synthProblems(chart)).toEqual([
      "[platform/reporting] PostgresCluster spec.external.connectionSecretRef: references a Secret: give a construct of that kind, fromName(name, namespace?) or { name } (received the PostgresCluster at platform/db)",
      "[platform/queue] RedisInstance spec.external.connectionSecretRef: references a Secret: give a construct of that kind, fromName(name, namespace?) or { name } (received the RedisInstance at platform/cache)",
    ]);
  });

  it("GIVEN a cdk8s-plus ConfigMap where a Secret is referenced THEN tsc refuses it; an ApiObject of another kind is refused at synth", () => {
    const { chart } = platform();
    const settings = new kplus.ConfigMap(chart, "settings");
    const other = new ApiObject(chart, "not-a-secret", { apiVersion: "v1", kind: "ConfigMap" });
    new PostgresCluster(chart, "db", {
      spec: {
        mode: "external",
        external: {
          // @ts-expect-error a cdk8s-plus ConfigMap is no Secret
          connectionSecretRef: settings,
        },
      },
    });
    // An ApiObject's kind is a string known at synth only: tsc lets it through, synth judges it.
    new PostgresCluster(chart, "other", { spec: { mode: "external", external: { connectionSecretRef: other } } });
    expect(synthProblems(chart)).toEqual([
      "[platform/db] PostgresCluster spec.external.connectionSecretRef: references a Secret: give a construct of that kind, fromName(name, namespace?) or { name } (received the ConfigMap at platform/settings)",
      "[platform/other] PostgresCluster spec.external.connectionSecretRef: references a Secret: give a construct of that kind, fromName(name, namespace?) or { name } (received the ConfigMap at platform/not-a-secret)",
    ]);
  });

  it("GIVEN a Secret of every accepted form THEN each is written as the reference it means", () => {
    const { app, chart } = platform();
    const plus = new kplus.Secret(chart, "plus");
    const imported = kplus.Secret.fromSecretName(chart, "imported", "made-by-hand");
    const kube = new ApiObject(new Chart(app, "vault", { namespace: "vault" }), "kube", {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "kube-secret" },
    });
    const refs = [plus, imported, kube, fromName("by-name", "other"), { name: "plain" }, { ref: plus, key: "uri" }];
    // Each object on its own: six PostgresClusters in one app are beyond the Community cap at synth.
    const written = refs.map(
      (connectionSecretRef, index) =>
        new PostgresCluster(chart, `db-${index}`, {
          spec: { mode: "external", external: { connectionSecretRef } },
          grantedInCluster: true,
        }).apiObject.toJson().spec.external.connectionSecretRef,
    );
    expect(written).toEqual([
      { name: plus.name },
      { name: "made-by-hand" },
      { name: "kube-secret", namespace: "vault" },
      { name: "by-name", namespace: "other" },
      { name: "plain" },
      { name: plus.name, key: "uri" },
    ]);
  });

  it("GIVEN a redis-operator object where a Redis is adopted THEN its kind is written too; another group's is refused", () => {
    const { app, chart } = platform();
    const data = new Chart(app, "data", { namespace: "data" });
    const replication = new ApiObject(data, "shared", {
      apiVersion: "redis.redis.opstreelabs.in/v1beta2",
      kind: "RedisReplication",
      metadata: { name: "shared" },
    });
    const lookalike = new ApiObject(data, "lookalike", { apiVersion: "example.com/v1", kind: "Redis" });
    const password = new ApiObject(data, "password", { apiVersion: "v1", kind: "Secret" });
    const adopting = (id: string, redisRef: ApiObject) =>
      new RedisInstance(chart, id, {
        spec: { mode: "adopt", adopt: { redisRef, credentialsSecretRef: password } },
        grantedInCluster: true,
      });
    const adopted = adopting("adopted", replication);
    expect(adopted.apiObject.toJson().spec.adopt).toEqual({
      redisRef: { kind: "RedisReplication", name: "shared", namespace: "data" },
      credentialsSecretRef: { name: password.name, namespace: "data" },
    });
    adopting("wrong", lookalike);
    expect(synthProblems(chart)).toEqual([
      `[platform/wrong] RedisInstance spec.adopt.redisRef: references a Redis or RedisReplication (redis.redis.opstreelabs.in): give a construct of that kind, fromName(name, namespace?) or { name } (received the Redis (example.com) at data/lookalike)`,
    ]);
  });

  it("GIVEN a construct in a field that is no reference THEN synth refuses it, naming the field", () => {
    const { chart } = platform();
    const secret = new kplus.Secret(chart, "secret");
    new PostgresCluster(chart, "db", {
      spec: {
        // @ts-expect-error a database is no reference
        databases: [secret],
      },
    });
    expect(synthProblems(chart)).toEqual([
      `[platform/db] PostgresCluster spec.databases[0]: is no reference: a construct stands only where the spec names another object; write the value itself (received the Secret at platform/secret)`,
    ]);
  });

  it("a field referencing a kind of the product takes that kind's construct, and no other kind's", () => {
    const { chart } = platform();
    type ToPostgresCluster = Referenceable<{
      readonly group: typeof API_GROUP;
      readonly kinds: readonly ["PostgresCluster"];
    }>;
    const db: ToPostgresCluster = new PostgresCluster(chart, "db", { spec: {} });
    // @ts-expect-error a RedisInstance is no PostgresCluster
    const cache: ToPostgresCluster = new RedisInstance(chart, "cache");
    expect([db.node.path, cache.node.path]).toEqual(["platform/db", "platform/cache"]);
  });

  it("the reference fields are computed from the schema: a spec without references has none", () => {
    const none: [ReferenceTree<typeof SecretsManagementSpec>] extends [never] ? true : false = true;
    const secret: ReferenceTree<typeof PostgresClusterSpec>["external"]["connectionSecretRef"]["kinds"] = ["Secret"];
    expect([none, secret]).toEqual([true, ["Secret"]]);
  });
});

describe("a construct where the reference's own fields belong", () => {
  it("is refused by the schema, naming the construct rather than dumping it", () => {
    const { chart } = platform();
    const secret = new ApiObject(chart, "secret", { apiVersion: "v1", kind: "Secret" });
    new PostgresCluster(chart, "db", {
      // Typed away: tsc would refuse it (a name is a string).
      spec: { mode: "external", external: { connectionSecretRef: { name: secret as never } } },
    });
    expect(synthProblems(chart)).toEqual([
      "[platform/db] PostgresCluster spec.external.connectionSecretRef.name: expected string (received platform/secret)",
    ]);
  });
});

describe("a secretsRef takes a SecretsManagement construct, by the schema's reference tree like any reference", () => {
  /** A Gateway of `chart` whose database is external, its Secret read through `secretsRef`. */
  const gateway = (chart: Chart, id: string, secretsRef: GatewayProps["spec"]["secretsRef"]) =>
    new Gateway(chart, id, {
      spec: {
        database: { mode: "external", external: { connectionSecretRef: { name: "gw-db", key: "url" } } },
        secretsRef,
      },
    });

  it("is declared by the schema: a Gateway's and each datastore block's secretsRef names a SecretsManagement", () => {
    const gateway: ReferenceTree<typeof GatewaySpec>["secretsRef"] = SECRETS_MANAGEMENT_TARGET;
    const external: ReferenceTree<typeof PostgresClusterSpec>["external"]["secretsRef"] = SECRETS_MANAGEMENT_TARGET;
    const adopt: ReferenceTree<typeof PostgresClusterSpec>["adopt"]["secretsRef"] = SECRETS_MANAGEMENT_TARGET;
    expect([gateway, external, adopt].map((target) => target.kinds)).toEqual([
      ["SecretsManagement"],
      ["SecretsManagement"],
      ["SecretsManagement"],
    ]);
  });

  it("GIVEN a SecretsManagement construct as a Gateway's and a PostgresCluster's secretsRef THEN each is written as its name, after it, and synth passes", () => {
    const { app, chart } = platform();
    // The SecretsManagement in a chart made after the referrers': only the dependency writes it first.
    const secrets = new SecretsManagement(new Chart(app, "secrets", { namespace: "apps" }), "secrets", {
      spec: { backend: "sealed-secrets", sealedSecrets: { secrets: [{ name: "gw-db" }, { name: "reporting-db" }] } },
    });
    const gw = gateway(chart, "gw", secrets);
    const reporting = new PostgresCluster(chart, "reporting", {
      spec: { mode: "external", external: { connectionSecretRef: { name: "reporting-db" }, secretsRef: secrets } },
    });
    expect([gw.apiObject.toJson().spec.secretsRef, reporting.apiObject.toJson().spec.external.secretsRef]).toEqual([
      { name: "secrets" },
      { name: "secrets" },
    ]);
    // synthYaml validates every construct first: it throws on any problem.
    const written = parseAllDocuments(app.synthYaml()).map((document) => {
      const { kind, metadata } = document.toJS() as { kind: string; metadata: { name: string } };
      return `${kind}/${metadata.name}`;
    });
    expect(written).toEqual(["SecretsManagement/secrets", "Gateway/gw", "PostgresCluster/reporting"]);
  });

  it("GIVEN fromName(name) or { name } as a secretsRef THEN it is written as that name", () => {
    const written = [fromName("by-name"), { name: "plain" }].flatMap((secretsRef, index) => {
      // Each in an app of its own: a second Gateway is beyond the Community cap at synth.
      const { app, chart } = platform();
      const gw = gateway(chart, `gw-${index}`, secretsRef);
      const reporting = new PostgresCluster(chart, `reporting-${index}`, {
        spec: { mode: "external", external: { connectionSecretRef: { name: "reporting-db" }, secretsRef } },
      });
      const chat = new PostgresCluster(chart, `chat-${index}`, {
        spec: {
          mode: "adopt",
          adopt: { clusterRef: { name: "shared" }, credentialsSecretRef: { name: "shared-app" }, secretsRef },
        },
      });
      app.synthYaml(); // validates every construct: throws on a problem
      return [
        gw.apiObject.toJson().spec.secretsRef,
        reporting.apiObject.toJson().spec.external.secretsRef,
        chat.apiObject.toJson().spec.adopt.secretsRef,
      ];
    });
    expect(written).toEqual([
      { name: "by-name" },
      { name: "by-name" },
      { name: "by-name" },
      { name: "plain" },
      { name: "plain" },
      { name: "plain" },
    ]);
  });

  it("GIVEN a PostgresCluster construct as a secretsRef THEN tsc refuses it, and forced, synth refuses it naming the field", () => {
    const { chart } = platform();
    const db = new PostgresCluster(chart, "db", { spec: {} });
    new Gateway(chart, "gw", {
      spec: {
        database: { mode: "external", external: { connectionSecretRef: { name: "gw-db", key: "url" } } },
        // @ts-expect-error a PostgresCluster is no SecretsManagement
        secretsRef: db,
      },
    });
    new PostgresCluster(chart, "reporting", {
      spec: {
        mode: "external",
        external: {
          connectionSecretRef: { name: "reporting-db" },
          // @ts-expect-error a PostgresCluster is no SecretsManagement
          secretsRef: db,
        },
      },
    });
    expect(synthProblems(chart)).toEqual([
      "[platform/gw] Gateway spec.secretsRef: references a SecretsManagement: give a construct of that kind, fromName(name, namespace?) or { name } (received the PostgresCluster at platform/db)",
      "[platform/reporting] PostgresCluster spec.external.secretsRef: references a SecretsManagement: give a construct of that kind, fromName(name, namespace?) or { name } (received the PostgresCluster at platform/db)",
    ]);
  });

  it("GIVEN a PostgresCluster cast to a SecretsManagement as an adopt block's secretsRef THEN synth refuses it, naming the field", () => {
    const { chart } = platform();
    const db = new PostgresCluster(chart, "db", { spec: {} });
    // What tsc cannot see through: the construct's kind is judged again at synth.
    const cast = db as unknown as SecretsManagement;
    new PostgresCluster(chart, "chat", {
      spec: {
        mode: "adopt",
        adopt: { clusterRef: { name: "shared" }, credentialsSecretRef: { name: "shared-app" }, secretsRef: cast },
      },
    });
    expect(synthProblems(chart)).toEqual([
      "[platform/chat] PostgresCluster spec.adopt.secretsRef: references a SecretsManagement: give a construct of that kind, fromName(name, namespace?) or { name } (received the PostgresCluster at platform/db)",
    ]);
  });
});
