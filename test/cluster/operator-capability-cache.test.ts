import { jest } from "@jest/globals";
import { OWNERSHIP_MARKS } from "../../lib/api/group.js";
import { LITELLM_OPERATOR } from "../../lib/catalog/litellm-operator.js";
import type { HelmCli } from "../../lib/cluster/helm-cli.js";
import type { KubeClient } from "../../lib/cluster/kube-client.js";
import type { ReconcileContext } from "../../lib/engine/context.js";
import { releaseRecords, testClient } from "../support/capabilities.js";
import { capabilitySuite } from "../support/capability-suite.js";
import { condition, eventually } from "../support/cluster.js";
import { playLiteLLMOperator, readLiteLLM } from "../support/litellm.js";
import { inProcessOperator } from "../support/operator.js";
import { createResource, finalizeResources, readStoredResource } from "../support/resources.js";

const { namespace: RELEASE_NAMESPACE, name: RELEASE } = LITELLM_OPERATOR.release;

// The operator keeps capability decisions between watch events of what they are decided from
// (providers/operator/capability-decisions.ts). Its passes must then detect nothing while nothing changed,
// and a release uninstalled by hand must still be seen gone and installed again at once.
describe("the operator's kept capability decisions", () => {
  const suite = capabilitySuite({ capabilities: [LITELLM_OPERATOR] });
  const { namespaces } = suite;
  let client: KubeClient;
  let helm: HelmCli;
  let context: ReconcileContext;
  beforeAll(() => {
    ({ client, helm, context } = suite);
  });

  it("a Gateway's passes detect the LiteLLM operator no more while nothing changed; uninstalled by hand, it is seen gone and installed again", async () => {
    const ns = await namespaces.create("capability-cache");
    await client.core.createNamespacedSecret({
      namespace: ns,
      body: { metadata: { name: "db" }, stringData: { url: "postgresql://u:p@db.example:5432/litellm" } },
    });
    await createResource(client, "Gateway", ns, "llm", {
      models: [{ name: "llama3", provider: "ollama", model: "llama3" }],
      database: { mode: "external", external: { connectionSecretRef: { name: "db", key: "url" } } },
    });
    // The operator's own client: each detection begins with one metadata-only list of the release's helm
    // records (lib/capabilities/observe.ts). The records watch lists every helm record of the namespace
    // (no release name) and an uninstall checks the release with a full list: neither is counted. Not the
    // Deployments list: a detection of a release gone reads no Deployments of the release namespace.
    const operatorClient = testClient();
    const lists = jest.spyOn(operatorClient.core, "listNamespacedSecret");
    const detections = () =>
      lists.mock.calls.filter(
        ([request, options]) =>
          request.namespace === RELEASE_NAMESPACE &&
          request.labelSelector?.split(",").includes(`name=${RELEASE}`) === true &&
          options !== undefined,
      ).length;
    const operator = inProcessOperator(operatorClient, helm);
    await operator.start();
    const ready = (what: string) =>
      eventually(what, async () => {
        await playLiteLLMOperator(client, ns, "llm");
        const now = condition(await readStoredResource(client, "Gateway", ns, "llm"), "Ready");
        if (now?.status !== "True") throw new Error(`Ready is ${now?.status}: ${now?.message}`);
        return true;
      });
    try {
      await ready("the operator to make Gateway llm Ready");
      expect(detections()).toBeGreaterThan(0);

      // WHEN the Gateway changes (a model added): its passes decide from the kept decision.
      const before = detections();
      await client.custom.patchNamespacedCustomObject({
        group: "core.navique.com",
        version: "v1alpha1",
        plural: "gateways",
        namespace: ns,
        name: "llm",
        body: [{ op: "add", path: "/spec/models/-", value: { name: "mistral", provider: "ollama", model: "mistral" } }],
      });
      await eventually("the new model to be emitted", async () =>
        (await readLiteLLM(client, "litellmmodels", ns, "llm-mistral")) ? true : undefined,
      );
      await ready("the Gateway to be Ready with its new model");
      expect(detections()).toBe(before);

      // WHEN the release is uninstalled by hand: its records' watch forgets the decision and re-queues the
      // Gateway, whose pass detects it gone and installs it again.
      const uids = new Set((await releaseRecords(client, RELEASE_NAMESPACE, RELEASE)).map((r) => r.metadata?.uid));
      await helm.uninstall(RELEASE, RELEASE_NAMESPACE);
      const records = await eventually("the LiteLLM operator to be installed again", async () => {
        const found = await releaseRecords(client, RELEASE_NAMESPACE, RELEASE);
        return found.some((r) => !uids.has(r.metadata?.uid)) ? found : undefined;
      });
      expect(records[0]?.metadata?.labels).toMatchObject(OWNERSHIP_MARKS);
      expect(detections()).toBeGreaterThan(before);
      await ready("the Gateway to be Ready again");
    } finally {
      await operator.stop();
      lists.mockRestore();
      await finalizeResources(context, "Gateway", ns);
    }
  }, 240_000);
});
