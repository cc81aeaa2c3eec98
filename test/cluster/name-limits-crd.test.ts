import { API_GROUP, API_VERSION } from "../../lib/api/group.js";
import { ensureNaviqueCrds } from "../../lib/apply/navique-crds.js";
import { statusOf } from "../../lib/cluster/kube-client.js";
import { MAX_POSTGRES_CLUSTER_NAME, POSTGRES_CLUSTER_PLURAL } from "../../lib/kinds/postgres-cluster/schema.js";
import { MAX_STACK_NAME, STACK_PLURAL } from "../../lib/kinds/stack/schema.js";
import { testClient } from "../support/capabilities.js";

/** Where the dry runs are sent: every namespace has one; nothing is stored. */
const NAMESPACE = "default";

// The name rules as the apiserver enforces them (a CEL rule and a pattern on the generated CRDs); zod's
// side is test/unit/name-limits.test.ts. Every create is a dry run: the apiserver validates it in full and stores nothing, so no operator
// of another suite ever sees these objects.
describe("the name limits on the apiserver", () => {
  const client = testClient();

  beforeAll(async () => {
    await ensureNaviqueCrds(client);
  });

  const dryRunCreate = (plural: string, kind: string, name: string) =>
    client.custom
      .createNamespacedCustomObject({
        group: API_GROUP,
        version: API_VERSION,
        plural,
        namespace: NAMESPACE,
        dryRun: "All",
        body: { apiVersion: `${API_GROUP}/${API_VERSION}`, kind, metadata: { name }, spec: {} },
      })
      .then(
        () => ({ status: 201, causes: [] as string[] }),
        (error: unknown) => ({
          status: statusOf(error),
          causes: (
            JSON.parse(String((error as { body: unknown }).body)) as { details: { causes: { message: string }[] } }
          ).details.causes.map((c) => c.message),
        }),
      );

  it("refuses a 253-character PostgresCluster name, saying the field, the limit and what to do", async () => {
    const name = "a".repeat(253);
    const refused = await dryRunCreate(POSTGRES_CLUSTER_PLURAL, "PostgresCluster", name);
    expect(refused.status).toBe(422);
    // CEL cannot say the length received within its cost budget (metadata.name is unbounded to it); zod does.
    expect(refused.causes).toEqual([
      "Invalid value: metadata.name: a PostgresCluster name has at most 50 characters, received more: its CNPG Cluster, and the Services CloudNativePG derives from it (<name>-rw), are named after it. Choose a shorter name",
    ]);
  });

  it("refuses a PostgresCluster name that is no DNS-1035 label, as CloudNativePG would refuse its Cluster", async () => {
    const refused = await dryRunCreate(POSTGRES_CLUSTER_PLURAL, "PostgresCluster", "main.db");
    expect(refused.status).toBe(422);
    expect(refused.causes).toEqual([expect.stringMatching(/should match '\^\[a-z\]\(\[-a-z0-9\]\*\[a-z0-9\]\)\?\$'/)]);
  });

  it("accepts the longest PostgresCluster name", async () => {
    const accepted = await dryRunCreate(
      POSTGRES_CLUSTER_PLURAL,
      "PostgresCluster",
      `p${"a".repeat(MAX_POSTGRES_CLUSTER_NAME - 1)}`,
    );
    expect(accepted).toEqual({ status: 201, causes: [] });
  });

  it("refuses a Stack name whose member would not fit, and accepts the longest that does", async () => {
    const name = `s${"a".repeat(MAX_STACK_NAME)}`;
    const refused = await dryRunCreate(STACK_PLURAL, "Stack", name);
    expect(refused.status).toBe(422);
    expect(refused.causes).toEqual([
      "Invalid value: metadata.name: a Stack name has at most 41 characters, received more: its member PostgresCluster <stack>-postgres is named after it, and a PostgresCluster name (a CNPG Cluster's) has at most 50 characters. Choose a shorter name",
    ]);
    expect(await dryRunCreate(STACK_PLURAL, "Stack", name.slice(1))).toEqual({ status: 201, causes: [] });
  });
});
