import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseAllDocuments } from "yaml";
import { buildApp } from "../../examples/cdk8s/app.js";
import { buildStackApp } from "../../examples/cdk8s/stack.js";
import { ChatUISpec } from "../../lib/kinds/chat-ui/schema.js";
import { StackChatUI } from "../../lib/kinds/stack/schema.js";
import { TEST_TRUSTED_KEYS, testLicenceToken } from "../support/licence.js";

// The example platform given as one Stack (examples/cdk8s/stack.ts): what it synthesizes, beside the
// per-kind example it restates, and what synth says under a licence that lacks what a Stack needs.

async function synthesized(build: (outdir: string) => { synth(): void }, file: string) {
  const out = await mkdtemp(join(tmpdir(), "navique-stack-example-"));
  try {
    build(out).synth();
    return parseAllDocuments(await readFile(join(out, file), "utf8")).map(
      (d) =>
        d.toJS() as { kind: string; metadata: { name: string; namespace?: string }; spec?: Record<string, unknown> },
    );
  } finally {
    await rm(out, { recursive: true, force: true });
  }
}

describe("the example platform as one Stack", () => {
  const token = testLicenceToken({ features: ["stack", "auto-wiring"], caps: { Stack: 1 } });

  it("synthesizes one Stack declaring the gateway, Langfuse and LibreChat of the per-kind example", async () => {
    const objects = await synthesized(
      (out) => buildStackApp(out, { licenseToken: token, trustedKeys: TEST_TRUSTED_KEYS }),
      "navique-example-stack.yaml",
    );
    const product = objects.filter((o) => !["CustomResourceDefinition"].includes(o.kind));
    const stacks = product.filter((o) => o.kind === "Stack");
    expect(stacks.map((s) => `${s.metadata.namespace}/${s.metadata.name}`)).toEqual([
      "navique-example-platform/platform",
    ]);
    // No resource of a member's kind is written: the operator makes them from the Stack.
    for (const kind of ["PostgresCluster", "Gateway", "Observability", "ChatUI", "MongoCluster"])
      expect(product.filter((o) => o.kind === kind)).toEqual([]);

    const perKind = await synthesized((out) => buildApp(out, { autoWiring: true }), "navique-example.yaml");
    const one = (kind: string) => perKind.find((o) => o.kind === kind)?.spec ?? {};
    const spec = stacks[0]?.spec as Record<string, Record<string, unknown>>;
    expect(spec.gateway?.models).toEqual(one("Gateway").models);
    expect(spec.observability?.s3).toEqual(one("Observability").s3);
    expect(spec.clickhouse?.managed).toEqual(one("ClickHouseCluster").managed);
    expect(spec.mongo?.managed).toEqual(one("MongoCluster").managed);
    // Neither writes the endpoint's name: both take the schema's default, the same one.
    expect(StackChatUI.parse(spec.chatUI).endpointName).toBe(ChatUISpec.parse(one("ChatUI")).endpointName);
  });

  it("under a licence without auto-wiring, synth fails naming the consumers and the feature", async () => {
    const without = testLicenceToken({ features: ["stack"], caps: { Stack: 1 } });
    await expect(
      synthesized((out) => buildStackApp(out, { licenseToken: without, trustedKeys: TEST_TRUSTED_KEYS }), "x.yaml"),
    ).rejects.toThrow(
      /spec\.observability, spec\.gateway, spec\.chatUI are not created: .*does not include auto-wiring/,
    );
  });
});
