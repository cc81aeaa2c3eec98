import type { KubernetesObject } from "@kubernetes/client-node";
import type { KubeObject } from "../../lib/engine/objects.js";
import { type SecretMetadata, UserSecrets } from "../../providers/operator/user-secrets.js";

const KEY = { apiVersion: "v1", kind: "Secret", namespace: "apps", name: "search" };

function secret(resourceVersion: string): KubeObject {
  return { apiVersion: "v1", kind: "Secret", metadata: { name: "search", namespace: "apps", resourceVersion } };
}

/** What the metadata-only watch holds: here, a map the test sets, as the watch's events would. */
function watched(synced = true) {
  const versions = new Map<string, string>();
  const metadata: SecretMetadata = {
    synced,
    get: (name, namespace): KubernetesObject | undefined => {
      const resourceVersion = versions.get(`${namespace}/${name}`);
      return resourceVersion ? { metadata: { name, namespace, resourceVersion } } : undefined;
    },
  };
  return { versions, metadata };
}

describe("the operator's copies of users' Secrets", () => {
  it("serves the copy a pass read while the metadata watch shows the Secret at its resourceVersion, and reads it again once changed", async () => {
    const { versions, metadata } = watched();
    const secrets = new UserSecrets(() => metadata);
    let reads = 0;
    let stored = secret("10");
    const read = async () => {
      reads += 1;
      return stored;
    };
    versions.set("apps/search", "10");
    expect(await secrets.read(KEY, "MeilisearchInstance/apps/remote", read)).toEqual(stored);
    expect(await secrets.read(KEY, "MeilisearchInstance/apps/remote", read)).toEqual(stored);
    expect(reads).toBe(1);

    stored = secret("11");
    versions.set("apps/search", "11");
    expect(await secrets.read(KEY, "MeilisearchInstance/apps/remote", read)).toEqual(stored);
    expect(reads).toBe(2);
  });

  it("keeps a copy without its managedFields: the passes read a Secret's keys, not who wrote them", async () => {
    const { versions, metadata } = watched();
    versions.set("apps/search", "10");
    const secrets = new UserSecrets(() => metadata);
    const stored = secret("10");
    const read = async () => ({ ...stored, metadata: { ...stored.metadata, managedFields: [{ manager: "kubectl" }] } });
    expect(await secrets.read(KEY, "R/apps/a", read)).toEqual(stored);
    expect(await secrets.read(KEY, "R/apps/a", read)).toEqual(stored);
  });

  it("reads every time while the watch is not complete, or does not hold the Secret", async () => {
    const incomplete = watched(false);
    incomplete.versions.set("apps/search", "10");
    let reads = 0;
    const read = async () => {
      reads += 1;
      return secret("10");
    };
    const notListed = new UserSecrets(() => incomplete.metadata);
    await notListed.read(KEY, "R/apps/a", read);
    await notListed.read(KEY, "R/apps/a", read);
    expect(reads).toBe(2);

    const absent = new UserSecrets(() => watched().metadata);
    await absent.read(KEY, "R/apps/a", read);
    await absent.read(KEY, "R/apps/a", read);
    expect(reads).toBe(4);

    const noWatch = new UserSecrets(() => undefined);
    await noWatch.read(KEY, "R/apps/a", read);
    expect(reads).toBe(5);
  });

  it("re-queues the resources that read a Secret when it is created, changed or deleted — not when the watch only catches up with their read", async () => {
    const { versions, metadata } = watched();
    const secrets = new UserSecrets(() => metadata);
    // Read while missing: its creation must tell the reader.
    await secrets.read(KEY, "MeilisearchInstance/apps/remote", async () => undefined);
    await secrets.read(KEY, "Gateway/apps/llm", async () => undefined);
    const created = { metadata: { name: "search", namespace: "apps", resourceVersion: "10" } };
    expect([...secrets.changed(created, "add")].sort()).toEqual([
      "Gateway/apps/llm",
      "MeilisearchInstance/apps/remote",
    ]);

    versions.set("apps/search", "10");
    await secrets.read(KEY, "Gateway/apps/llm", async () => secret("10"));
    expect(secrets.changed(created, "update")).toEqual([]);
    const changed = { metadata: { ...created.metadata, resourceVersion: "11" } };
    expect(secrets.changed(changed, "update")).toHaveLength(2);
    expect(secrets.changed(changed, "delete")).toHaveLength(2);
    // Another Secret's events tell nobody.
    expect(secrets.changed({ metadata: { name: "other", namespace: "apps", resourceVersion: "3" } }, "add")).toEqual(
      [],
    );
  });

  it("forgets a resource gone, and the copy once nobody reads it", async () => {
    const { versions, metadata } = watched();
    versions.set("apps/search", "10");
    const secrets = new UserSecrets(() => metadata);
    let reads = 0;
    const read = async () => {
      reads += 1;
      return secret("10");
    };
    await secrets.read(KEY, "Gateway/apps/llm", read);
    secrets.forget("Gateway/apps/llm");
    expect(
      secrets.changed({ metadata: { name: "search", namespace: "apps", resourceVersion: "11" } }, "update"),
    ).toEqual([]);
    await secrets.read(KEY, "Gateway/apps/llm", read);
    expect(reads).toBe(2);
  });
});
