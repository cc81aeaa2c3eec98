import { API_GROUP, API_VERSION } from "../../lib/api/group.js";
import { ensureNaviqueCrds } from "../../lib/apply/navique-crds.js";
import { statusOf } from "../../lib/cluster/kube-client.js";
import { LICENSE_PLURAL } from "../../lib/kinds/license/schema.js";
import { REGISTRY } from "../../lib/kinds/registry.js";
import { testClient } from "../support/capabilities.js";
import { createTestNamespace } from "../support/cluster.js";
import { KIND_SAMPLES } from "../support/kind-samples.js";

/** Where the dry runs are sent: every namespace has one; nothing is stored. */
const NAMESPACE = "default";

interface Refusal {
  readonly status: number;
  /** Each cause the apiserver gives: the field it names, and its message. */
  readonly causes: readonly (readonly [string, string])[];
}

const pluralOf = (kind: string) =>
  kind === REGISTRY.grants.kind
    ? REGISTRY.grants.plural
    : (REGISTRY.kinds.find((m) => m.definition.kind === kind)?.definition.plural ?? "");

// The rules as the apiserver enforces them, from the CRDs generated from the schemas; zod's side, and the
// other front ends, are test/unit/{gateway-model,quantity,duration,reference-grants,license-name}.test.ts.
// Every create is a dry run with kubectl's strictness: validated in full, nothing stored, nothing seen by
// an operator of another suite.
describe("inputs judged by the apiserver, each refusal naming its field", () => {
  const client = testClient();

  beforeAll(async () => {
    await ensureNaviqueCrds(client);
  });

  const dryRunCreate = (kind: string, spec: unknown, name = "judged"): Promise<Refusal> => {
    const cluster = kind === REGISTRY.singleton.definition.kind;
    const common = {
      group: API_GROUP,
      version: API_VERSION,
      plural: cluster ? LICENSE_PLURAL : pluralOf(kind),
      dryRun: "All",
      fieldValidation: "Strict",
      body: {
        apiVersion: `${API_GROUP}/${API_VERSION}`,
        kind,
        metadata: { name, ...(cluster ? {} : { namespace: NAMESPACE }) },
        spec,
      },
    };
    return (
      cluster
        ? client.custom.createClusterCustomObject(common)
        : client.custom.createNamespacedCustomObject({ ...common, namespace: NAMESPACE })
    ).then(
      () => ({ status: 201, causes: [] }),
      (error: unknown) => ({
        status: statusOf(error) ?? 0,
        causes: (
          JSON.parse(String((error as { body: unknown }).body)) as {
            details: { causes: { field: string; message: string }[] };
          }
        ).details.causes.map((c) => [c.field, c.message] as const),
      }),
    );
  };

  it("refuses shell text in a Gateway's model strings and apiBase, and takes LiteLLM's forms", async () => {
    const gateway = (model: Record<string, unknown>) => ({
      ...KIND_SAMPLES.Gateway[1],
      models: [{ name: "chat", provider: "bedrock", model: "anthropic.claude-3-5-sonnet-20240620-v1:0", ...model }],
    });
    const refused = await dryRunCreate(
      "Gateway",
      gateway({ name: "$(id)", model: "gpt-4o`id`", apiBase: "http://ollama:11434;reboot" }),
    );
    expect(refused.status).toBe(422);
    expect(refused.causes.map(([field]) => field).sort()).toEqual([
      "spec.models[0].apiBase",
      "spec.models[0].model",
      "spec.models[0].name",
    ]);
    expect(refused.causes).toContainEqual([
      "spec.models[0].model",
      expect.stringMatching(/^Invalid value: "gpt-4o`id`": spec\.models\[0\]\.model in body should match/),
    ]);
    expect(await dryRunCreate("Gateway", gateway({ apiBase: "https://bedrock.example.com/v1" }))).toEqual({
      status: 201,
      causes: [],
    });
  });

  it("refuses a size beyond 1Pi with the value received, and takes 1Pi", async () => {
    const refused = await dryRunCreate("PostgresCluster", {
      managed: { storage: { size: "10000000000000000000000000Ei" } },
    });
    expect(refused).toEqual({
      status: 422,
      causes: [
        [
          "spec.managed.storage.size",
          'Invalid value: "10000000000000000000000000Ei": must be at most 1Pi (1125899906842624 bytes), far beyond any one volume a storage class provisions: write a size such as "10Gi"',
        ],
      ],
    });
    expect(await dryRunCreate("PostgresCluster", { managed: { storage: { size: "1Pi" } } })).toEqual({
      status: 201,
      causes: [],
    });
    // A string of another form is the pattern's to refuse: the rule over the quantity does not fail on it.
    const malformed = await dryRunCreate("Stack", { postgres: { managed: { storage: { size: "1 Pi" } } } });
    expect(malformed.causes.map(([field, message]) => [field, message.replace(/: spec.*$/, "")])).toEqual([
      ["spec.postgres.managed.storage.size", 'Invalid value: "1 Pi"'],
    ]);
  });

  it("refuses a refreshInterval ESO cannot hold, and takes a Go duration", async () => {
    const withInterval = (refreshInterval: string) => ({
      ...KIND_SAMPLES.SecretsManagement[0],
      eso: { ...KIND_SAMPLES.SecretsManagement[0].eso, refreshInterval },
    });
    const refused = await dryRunCreate("SecretsManagement", withInterval("2562048h"));
    expect(refused.status).toBe(422);
    expect(refused.causes).toEqual([
      [
        "spec.eso.refreshInterval",
        expect.stringMatching(/^Invalid value: "2562048h": spec\.eso\.refreshInterval in body should match/),
      ],
    ]);
    expect(await dryRunCreate("SecretsManagement", withInterval("1h30m"))).toEqual({ status: 201, causes: [] });
  });

  it("refuses a ReferenceGrant entry that could never match at its index, and an entry written twice on its list", async () => {
    const fromApps = { group: "core.navique.com", kind: "PostgresCluster", namespace: "apps" };
    const refused = await dryRunCreate("ReferenceGrant", {
      from: [fromApps, { ...fromApps, group: "", kind: "Secret" }, fromApps],
      to: [
        { group: "", kind: "Secret" },
        { group: "", kind: "Secret" },
      ],
    });
    expect(refused.status).toBe(422);
    expect([...refused.causes].sort()).toEqual(
      [
        [
          "spec.from",
          expect.stringMatching(/an entry is written twice: each entry is written once; remove the repetition$/),
        ],
        [
          "spec.to",
          expect.stringMatching(/an entry is written twice: each entry is written once; remove the repetition$/),
        ],
        [
          "spec.from[1].group",
          'Invalid value: "": must be core.navique.com: only resources of the product hold the references a grant opens, so an entry of another group would never match',
        ],
        [
          "spec.from[1].kind",
          'Invalid value: "Secret": must be a kind of the product that holds references (ChatUI, ClickHouseCluster, Gateway, MeilisearchInstance, MongoCluster, Observability, Organization, PostgresCluster, RedisInstance, Team, User): an entry of another kind would never match',
        ],
      ].sort(),
    );
    expect(await dryRunCreate("ReferenceGrant", KIND_SAMPLES.ReferenceGrant[0])).toEqual({ status: 201, causes: [] });
    // Applied server-side, as the product and `kubectl apply --server-side` write it: a list of objects
    // typed `set` could not be (the reason its lists are atomic).
    const { name: ns, cleanup } = await createTestNamespace("grant-apply");
    const grant = {
      apiVersion: "core.navique.com/v1alpha1",
      kind: "ReferenceGrant",
      metadata: { name: "applied", namespace: ns },
      spec: KIND_SAMPLES.ReferenceGrant[0],
    };
    try {
      expect((await client.apply(grant)).metadata?.name).toBe("applied");
    } finally {
      await cleanup();
    }
  });

  it("refuses a License of another name on metadata.name, saying the name received and what to do", async () => {
    expect(await dryRunCreate("License", KIND_SAMPLES.License[0], "ours")).toEqual({
      status: 422,
      causes: [
        [
          "metadata.name",
          'Invalid value: must be navique: the License is the one licence of a cluster, and the product reads no License of another name. Rename it to navique (received "ours")',
        ],
      ],
    });
  });
});
