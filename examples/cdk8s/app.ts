/**
 * The same two PostgreSQL datastores as examples/pulumi, for GitOps: the operator's install, the two
 * PostgresClusters and the ReferenceGrant that lets the adopting one reach into the data namespace,
 * synthesized as YAML for Argo CD or Flux to apply. The operator in the cluster then
 * makes the same decisions `pulumi preview` shows (check them with `navique plan -f <file>`).
 */
import { ApiObject, App, Chart } from "cdk8s";
import { NaviqueOperator, PostgresCluster, ReferenceGrant } from "../../constructs/index.js";

export function buildApp(outdir: string): App {
  const app = new App({ outdir, outputFileExtension: ".yaml" });
  const chart = new Chart(app, "navique-example", { disableResourceNameHashes: true });
  new NaviqueOperator(chart, "operator");
  for (const namespace of ["navique-example-platform", "navique-example-apps"]) {
    new ApiObject(chart, namespace, { apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } });
  }
  new PostgresCluster(chart, "platform-db", {
    namespace: "navique-example-platform",
    spec: { databases: [{ name: "litellm" }, { name: "langfuse" }] },
  });
  new PostgresCluster(chart, "chat-db", {
    namespace: "navique-example-apps",
    spec: {
      mode: "adopt",
      adopt: {
        clusterRef: { name: "shared", namespace: "navique-example-data" },
        credentialsSecretRef: { name: "shared-app", namespace: "navique-example-data" },
      },
      databases: [{ name: "librechat" }],
    },
  });
  // chat-db adopts from another namespace: that namespace must grant it, or the operator refuses
  // (ReferenceNotPermitted) and synth fails (docs/reference-grants.md).
  new ReferenceGrant(chart, "chat-db-may-adopt", {
    name: "navique-example-apps",
    namespace: "navique-example-data",
    spec: {
      from: [{ group: "core.navique.com", kind: "PostgresCluster", namespace: "navique-example-apps" }],
      to: [
        { group: "postgresql.cnpg.io", kind: "Cluster", name: "shared" },
        { group: "", kind: "Secret", name: "shared-app" },
      ],
    },
  });
  return app;
}
