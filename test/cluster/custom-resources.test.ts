import { ApiextensionsV1Api, CustomObjectsApi, type V1CustomResourceDefinition } from "@kubernetes/client-node";
import { apiStatus, createTestNamespace, eventually, testKubeConfig } from "../support/cluster.js";

const GROUP = "smoke.test.navique.com";
const PLURAL = "gadgets";

/** A CRD with a structural schema, so that the apiserver itself validates custom resources. */
const gadgetCrd: V1CustomResourceDefinition = {
  metadata: { name: `${PLURAL}.${GROUP}` },
  spec: {
    group: GROUP,
    scope: "Namespaced",
    names: { plural: PLURAL, singular: "gadget", kind: "Gadget", listKind: "GadgetList" },
    versions: [
      {
        name: "v1",
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: "object",
            properties: {
              spec: {
                type: "object",
                required: ["size"],
                properties: {
                  size: { type: "integer", minimum: 1 },
                  color: { type: "string", _enum: ["red", "green"] },
                },
              },
            },
          },
        },
      },
    ],
  },
};

describe("custom resources on the local control plane", () => {
  const kubeconfig = testKubeConfig();
  const extensions = kubeconfig.makeApiClient(ApiextensionsV1Api);
  const objects = kubeconfig.makeApiClient(CustomObjectsApi);
  let namespace: Awaited<ReturnType<typeof createTestNamespace>>;

  beforeAll(async () => {
    namespace = await createTestNamespace("smoke-crd");
    await extensions.createCustomResourceDefinition({ body: gadgetCrd }).catch((error: unknown) => {
      if (apiStatus(error) !== 409) throw error;
    });
  });
  afterAll(async () => {
    await namespace?.cleanup();
  });

  it("becomes Established", async () => {
    const established = await eventually("the CRD to be Established", async () => {
      const crd = await extensions.readCustomResourceDefinition({ name: `${PLURAL}.${GROUP}` });
      return crd.status?.conditions?.find((c) => c.type === "Established" && c.status === "True");
    });
    expect(established.reason).toBe("InitialNamesAccepted");
  });

  it("round-trips a valid custom resource", async () => {
    const body = {
      apiVersion: `${GROUP}/v1`,
      kind: "Gadget",
      metadata: { name: "ok" },
      spec: { size: 3, color: "red" },
    };
    await eventually("the new kind to be served", () =>
      objects.createNamespacedCustomObject({
        group: GROUP,
        version: "v1",
        namespace: namespace.name,
        plural: PLURAL,
        body,
      }),
    );
    const read = (await objects.getNamespacedCustomObject({
      group: GROUP,
      version: "v1",
      namespace: namespace.name,
      plural: PLURAL,
      name: "ok",
    })) as { spec: unknown; metadata: { uid?: string } };
    expect(read.spec).toEqual({ size: 3, color: "red" });
    expect(read.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("rejects an invalid custom resource, naming the offending fields", async () => {
    const body = {
      apiVersion: `${GROUP}/v1`,
      kind: "Gadget",
      metadata: { name: "bad" },
      spec: { size: 0, color: "blue" },
    };
    const rejection = await objects
      .createNamespacedCustomObject({ group: GROUP, version: "v1", namespace: namespace.name, plural: PLURAL, body })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(apiStatus(rejection)).toBe(422);
    const status = JSON.parse(String((rejection as { body?: unknown }).body)) as {
      reason: string;
      details: { causes: { field: string; message: string }[] };
    };
    expect(status.reason).toBe("Invalid");
    expect(status.details.causes).toHaveLength(2);
    expect(status.details.causes).toEqual(
      expect.arrayContaining([
        {
          reason: "FieldValueInvalid",
          field: "spec.size",
          message: expect.stringContaining("greater than or equal to 1"),
        },
        {
          reason: "FieldValueNotSupported",
          field: "spec.color",
          message: expect.stringContaining('supported values: "red", "green"'),
        },
      ]),
    );
  });
});
