import { API_GROUP, API_VERSION } from "../../lib/api/group.js";
import { parseInput } from "../../lib/api/validation.js";
import { ensureNaviqueCrds } from "../../lib/apply/navique-crds.js";
import { statusOf } from "../../lib/cluster/kube-client.js";
import { STACK_PLURAL, StackSpec } from "../../lib/kinds/stack/schema.js";
import { CAPABILITY_SUITE_SETUP_MS, lockCapabilities, testClient } from "../support/capabilities.js";
import { createTestNamespace } from "../support/cluster.js";
import { discardNamespace } from "../support/namespace-content.js";

describe("the Stack CRD on the apiserver", () => {
  const client = testClient();
  let namespace: Awaited<ReturnType<typeof createTestNamespace>>;
  let unlock: () => Promise<void>;

  // A Stack is something an operator of another suite would reconcile: hold the capabilities lock.
  beforeAll(async () => {
    unlock = await lockCapabilities();
    await ensureNaviqueCrds(client);
    namespace = await createTestNamespace("stack-crd");
  }, CAPABILITY_SUITE_SETUP_MS);
  afterAll(async () => {
    if (namespace) await discardNamespace(client, namespace.name);
    await unlock?.();
  });

  const create = (name: string, spec: Record<string, unknown>) =>
    client.custom.createNamespacedCustomObject({
      group: API_GROUP,
      version: API_VERSION,
      plural: STACK_PLURAL,
      namespace: namespace.name,
      body: { apiVersion: `${API_GROUP}/${API_VERSION}`, kind: "Stack", metadata: { name }, spec },
    });

  const rejectionOf = async (name: string, spec: Record<string, unknown>) => {
    const rejection = await create(name, spec).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(statusOf(rejection)).toBe(422);
    return JSON.parse(String((rejection as { body: unknown }).body)) as {
      details: { causes: { field: string; message: string }[] };
    };
  };

  it("stores an empty Stack with the curated defaults filled in by the apiserver, as zod fills them", async () => {
    const stored = (await create("defaults", {})) as { spec: unknown };
    expect(stored.spec).toEqual({
      postgres: {
        managed: { instances: 1, storage: { size: "10Gi" }, deletionPolicy: "Retain" },
        databases: [{ name: "litellm" }, { name: "langfuse" }],
      },
    });
    expect(stored.spec).toEqual(parseInput(StackSpec, {}, "defaults"));
  });

  it("refuses a name longer than its members can be named after, with the reason", async () => {
    const body = await rejectionOf("a".repeat(42), {});
    expect(body.details.causes).toEqual([
      expect.objectContaining({
        message:
          "Invalid value: metadata.name: a Stack name has at most 41 characters, received more: its member PostgresCluster <stack>-postgres is named after it, and a PostgresCluster name (a CNPG Cluster's) has at most 50 characters. Choose a shorter name",
      }),
    ]);
  });

  it("refuses a bad member setting, naming the field", async () => {
    const body = await rejectionOf("bad", { postgres: { managed: { instances: 0 } } });
    expect(body.details.causes).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          field: "spec.postgres.managed.instances",
          message: expect.stringMatching(/should be greater than or equal to 1/),
        }),
      ]),
    );
  });
});
