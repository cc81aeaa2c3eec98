import { randomBytes } from "node:crypto";
import type { KubeClient } from "../../lib/cluster/kube-client.js";
import { NAMESPACE_TERMINATING, stepFailureOf } from "../../lib/engine/failure.js";
import { testClient } from "../support/capabilities.js";
import { eventually } from "../support/cluster.js";

/** Holds the namespace in Terminating until the test lets it go: the namespace controller waits for it. */
const HOLD = "test.navique.com/hold";

// A write into a namespace being deleted is refused by the apiserver's NamespaceLifecycle admission with a
// 403 that is no missing permission: the failure says the namespace is going, not "grant this permission".
// The namespace is kept in Terminating by a finalizer of the test's, so that the refusal is the real one.
describe("a write into a namespace being deleted", () => {
  let client: KubeClient;
  const name = `terminating-${randomBytes(3).toString("hex")}`;

  beforeAll(async () => {
    client = testClient();
    await client.core.createNamespace({ body: { metadata: { name, finalizers: [HOLD] } } });
    await client.core.deleteNamespace({ name });
    await eventually(
      `namespace ${name} to be Terminating`,
      async () => ((await client.core.readNamespace({ name })).status?.phase === "Terminating" ? true : undefined),
      { timeoutMs: 30_000 },
    );
  });

  afterAll(async () => {
    // Let it go: without the test's finalizer the namespace controller finishes the deletion.
    await client.core
      .replaceNamespace({
        name,
        body: { ...(await client.core.readNamespace({ name })), metadata: { name, finalizers: [] } },
      })
      .catch(() => undefined);
  });

  it("is named as such, with nothing to grant, and is retried, not stalled", async () => {
    const object = { apiVersion: "v1", kind: "Secret", metadata: { name: "late", namespace: name } };
    const error = await client.apply(object).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeDefined();
    const failure = stepFailureOf({ kind: "apply", description: `apply Secret ${name}/late`, object }, error);
    expect(failure.reason).toBe(NAMESPACE_TERMINATING);
    expect(failure.stalled).toBe(false);
    expect(failure.message).toMatch(
      new RegExp(
        `^the apply of Secret ${name}/late was refused because its namespace is being deleted \\(403\\): .*unable to create new content in namespace ${name} because it is being terminated.*\\. Nothing to grant: what the namespace held goes with it; if it should stay, recreate the namespace once it is gone and the next pass writes this again$`,
      ),
    );
    expect(failure.message).not.toContain("Grant the operator's service account");
  });
});
