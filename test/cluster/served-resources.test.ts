import { randomBytes } from "node:crypto";
import type { V1CustomResourceDefinition } from "@kubernetes/client-node";
import type { KubeClient } from "../../lib/cluster/kube-client.js";
import { objectNames } from "../../lib/cluster/object-names.js";
import { servedResources } from "../../lib/cluster/served-resources.js";
import { testClient } from "../support/capabilities.js";
import { eventually } from "../support/cluster.js";

const GROUP = `served-${randomBytes(3).toString("hex")}.test.navique.com`;

function crd(plural: string, kind: string, served: boolean): V1CustomResourceDefinition {
  return {
    metadata: { name: `${plural}.${GROUP}` },
    spec: {
      group: GROUP,
      scope: "Namespaced",
      names: { plural, kind, singular: plural.replace(/s$/, ""), listKind: `${kind}List` },
      versions: [
        {
          name: "v1",
          served,
          storage: true,
          schema: { openAPIV3Schema: { type: "object", x_kubernetes_preserve_unknown_fields: true } },
        },
      ],
    },
  };
}

async function requestsOf<T>(client: KubeClient, call: () => Promise<T>): Promise<{ value: T; requests: number }> {
  const before = client.requests;
  const value = await call();
  return { value, requests: client.requests - before };
}

// Discovery is how detection learns which CRDs are usable; the legacy fallback (apiservers before 1.30)
// is asked for explicitly here, so that both answers are compared on the same real apiserver.
describe("served resources and object names on the local control plane", () => {
  let client: KubeClient;
  const created = [crd("widgets", "Widget", true), crd("drafts", "Draft", false)];

  beforeAll(async () => {
    client = testClient();
    for (const body of created) await client.extensions.createCustomResourceDefinition({ body });
    await eventually("widgets to be served", async () =>
      (await servedResources(client, [GROUP])).has(`widgets.${GROUP}`) ? true : undefined,
    );
  });
  afterAll(async () => {
    for (const body of created)
      await client.extensions
        .deleteCustomResourceDefinition({ name: body.metadata?.name ?? "" })
        .catch(() => undefined);
  });

  it("lists a served CRD as <plural>.<group> in one request, and never a CRD that serves no version", async () => {
    const { value, requests } = await requestsOf(client, () => servedResources(client, [GROUP]));
    expect(requests).toBe(1);
    expect(value.has(`widgets.${GROUP}`)).toBe(true);
    expect(value.has(`drafts.${GROUP}`)).toBe(false);
    // Built-in groups are there too, resources only (no subresources).
    expect(value.has("deployments.apps")).toBe(true);
    expect(value.has("deployments/status.apps")).toBe(false);
  });

  it("reuses the last answer while the apiserver says nothing changed (ETag), and sees a change at once", async () => {
    const first = await servedResources(client, [GROUP]);
    const { value: again, requests } = await requestsOf(client, () => servedResources(client, [GROUP]));
    expect(requests).toBe(1);
    expect(again).toBe(first);

    const extra = crd("sprockets", "Sprocket", true);
    created.push(extra);
    await client.extensions.createCustomResourceDefinition({ body: extra });
    const changed = await eventually("sprockets to be served", async () => {
      const current = await servedResources(client, [GROUP]);
      return current.has(`sprockets.${GROUP}`) ? current : undefined;
    });
    expect(changed).not.toBe(first);
    expect(changed.has(`widgets.${GROUP}`)).toBe(true);
  });

  it("the legacy discovery of the asked groups agrees with the aggregated one", async () => {
    const aggregated = await servedResources(client, [GROUP, "apps"]);
    const { value: legacy, requests } = await requestsOf(client, () =>
      servedResources(client, [GROUP, "apps"], { discovery: "legacy" }),
    );
    // The group list, then one resource list per version of each asked group (apps/v1, <group>/v1).
    expect(requests).toBe(3);
    const asked = (resource: string) => [GROUP, "apps"].includes(resource.slice(resource.indexOf(".") + 1));
    expect([...legacy].sort()).toEqual([...aggregated].filter(asked).sort());
    expect(legacy.has(`widgets.${GROUP}`)).toBe(true);
  });

  it("names every CRD in one request, served or not", async () => {
    const { value, requests } = await requestsOf(client, () =>
      objectNames(client, "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"),
    );
    expect(requests).toBe(1);
    expect(value.has(`widgets.${GROUP}`)).toBe(true);
    expect(value.has(`drafts.${GROUP}`)).toBe(true);
    expect(value.has(`missing.${GROUP}`)).toBe(false);
  });

  it("fails naming the request when the collection does not exist", async () => {
    await expect(objectNames(client, "/apis/apiextensions.k8s.io/v1/nothings")).rejects.toThrow(
      "GET /apis/apiextensions.k8s.io/v1/nothings failed",
    );
  });
});
