import { API_GROUP, API_VERSION } from "../../lib/api/group.js";
import { parseInput, ValidationError } from "../../lib/api/validation.js";
import { ensureNaviqueCrds } from "../../lib/apply/navique-crds.js";
import { statusOf } from "../../lib/cluster/kube-client.js";
import { POSTGRES_CLUSTER_PLURAL, PostgresClusterSpec } from "../../lib/kinds/postgres-cluster/schema.js";
import { CAPABILITY_SUITE_SETUP_MS, lockCapabilities, testClient } from "../support/capabilities.js";
import { createTestNamespace } from "../support/cluster.js";
import { discardNamespace } from "../support/namespace-content.js";

interface Cause {
  field: string;
  message: string;
}

/** The same bad spec, refused by zod and by the apiserver (the CRD generated from the same schema). */
const BAD_SPECS: {
  what: string;
  spec: Record<string, unknown>;
  field: string;
  zodMessage: RegExp;
  apiserverMessage: RegExp;
}[] = [
  {
    what: "an unknown mode",
    spec: { mode: "adopted" },
    field: "spec.mode",
    zodMessage: /expected one of "managed", "adopt", "external"/,
    apiserverMessage: /supported values: "managed", "adopt", "external"/,
  },
  {
    what: "too few instances",
    spec: { managed: { instances: 0 } },
    field: "spec.managed.instances",
    zodMessage: /must be >= 1/,
    apiserverMessage: /should be greater than or equal to 1/,
  },
  {
    what: "an invalid database name",
    spec: { databases: [{ name: "Bad-Name" }] },
    field: "spec.databases[0].name",
    zodMessage: /PostgreSQL identifier/,
    apiserverMessage: /should match/,
  },
  {
    what: "mode adopt without its block",
    spec: { mode: "adopt" },
    field: "spec",
    zodMessage:
      /^spec\.adopt is required when spec\.mode is adopt: set spec\.adopt\.clusterRef and spec\.adopt\.credentialsSecretRef$/,
    apiserverMessage:
      /^Invalid value: spec\.adopt is required when spec\.mode is adopt: set spec\.adopt\.clusterRef and spec\.adopt\.credentialsSecretRef$/,
  },
];

describe("the PostgresCluster CRD on the apiserver", () => {
  const client = testClient();
  let namespace: Awaited<ReturnType<typeof createTestNamespace>>;
  let unlock: () => Promise<void>;

  // A managed PostgresCluster anywhere counts as a consumer of cloudnative-pg: hold the capabilities
  // lock so that suites testing reference counts never see this one.
  beforeAll(async () => {
    unlock = await lockCapabilities();
    await ensureNaviqueCrds(client);
    namespace = await createTestNamespace("pgc-crd");
  }, CAPABILITY_SUITE_SETUP_MS);
  afterAll(async () => {
    if (namespace) await discardNamespace(client, namespace.name);
    await unlock?.();
  });

  const create = (name: string, spec: Record<string, unknown>) =>
    client.custom.createNamespacedCustomObject({
      group: API_GROUP,
      version: API_VERSION,
      plural: POSTGRES_CLUSTER_PLURAL,
      namespace: namespace.name,
      body: { apiVersion: `${API_GROUP}/${API_VERSION}`, kind: "PostgresCluster", metadata: { name }, spec },
    });

  it("stores a minimal PostgresCluster with the schema's defaults filled in by the apiserver", async () => {
    const stored = (await create("minimal", {})) as { spec: unknown };
    expect(stored.spec).toEqual({ type: "cnpg", mode: "managed", databases: [] });
    expect(stored.spec).toEqual(parseInput(PostgresClusterSpec, {}, "minimal"));
  });

  it.each(BAD_SPECS)(
    "refuses $what in zod and in the apiserver, naming the field",
    async ({ spec, field, zodMessage, apiserverMessage }) => {
      let zodProblems: readonly { path: string; message: string }[] = [];
      try {
        parseInput(PostgresClusterSpec, spec, "PostgresCluster", "spec");
      } catch (error) {
        if (!(error instanceof ValidationError)) throw error;
        zodProblems = error.problems;
      }
      const zodField = field === "spec" ? "spec.adopt" : field;
      expect(zodProblems).toEqual([
        expect.objectContaining({ path: zodField, message: expect.stringMatching(zodMessage) }),
      ]);

      const rejection = await create("bad", spec).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(statusOf(rejection)).toBe(422);
      const causes = (JSON.parse(String((rejection as { body: unknown }).body)) as { details: { causes: Cause[] } })
        .details.causes;
      // The apiserver may add a note that rules were skipped after a schema error; the field's own cause is there.
      expect(causes).toEqual(
        expect.arrayContaining([expect.objectContaining({ field, message: expect.stringMatching(apiserverMessage) })]),
      );
    },
  );
});
