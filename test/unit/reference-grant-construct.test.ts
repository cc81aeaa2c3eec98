import { Chart, Testing } from "cdk8s";
import { parseAllDocuments } from "yaml";
import { PostgresCluster, ReferenceGrant } from "../../constructs/index.js";
import { operatorChartFiles } from "../../constructs/operator-chart.js";
import { synthProblems } from "../support/synth-problems.js";

const adoptFromData = {
  mode: "adopt" as const,
  adopt: {
    clusterRef: { name: "shared", namespace: "data" },
    credentialsSecretRef: { name: "shared-app", namespace: "data" },
  },
};
const grantForApps = {
  from: [{ group: "core.navique.com", kind: "PostgresCluster", namespace: "apps" }],
  to: [
    { group: "postgresql.cnpg.io", kind: "Cluster", name: "shared" },
    { group: "", kind: "Secret", name: "shared-app" },
  ],
};

describe("synth-time ReferenceGrant checks", () => {
  it("GIVEN an adoption from another namespace and no grant WHEN synthesized THEN it fails naming the grant to declare and the waiver", () => {
    const app = Testing.app();
    const chart = new Chart(app, "platform");
    new PostgresCluster(chart, "chat-db", { namespace: "apps", spec: adoptFromData });
    expect(() => app.synth()).toThrow(
      '[platform/chat-db] PostgresCluster spec.adopt.clusterRef (namespace data) and spec.adopt.credentialsSecretRef (namespace data) point into another namespace, and no ReferenceGrant of this app grants it: the operator would refuse it (ReferenceNotPermitted). Declare a ReferenceGrant in namespace data from group core.navique.com kind PostgresCluster namespace apps to group postgresql.cnpg.io kind Cluster name shared, and to group "" kind Secret name shared-app, with the ReferenceGrant construct; or, when that grant already exists in the cluster, set grantedInCluster: true on this PostgresCluster',
    );
  });

  it("GIVEN a grant of the app that covers only the Secret WHEN synthesized THEN only the Cluster reference is reported", () => {
    const app = Testing.app();
    const chart = new Chart(app, "platform");
    new ReferenceGrant(chart, "secret-only", {
      namespace: "data",
      spec: { from: grantForApps.from, to: [{ group: "", kind: "Secret" }] },
    });
    new PostgresCluster(chart, "chat-db", { namespace: "apps", spec: adoptFromData });
    expect(() => app.synth()).toThrow(
      /^Validation failed with the following errors:\n {2}\[platform\/chat-db\] PostgresCluster spec\.adopt\.clusterRef \(namespace data\) points into another namespace/,
    );
  });

  it("GIVEN the grant declared in the app, in another chart WHEN synthesized THEN both objects are emitted", () => {
    const app = Testing.app();
    const chart = new Chart(app, "platform");
    new PostgresCluster(chart, "chat-db", { namespace: "apps", spec: adoptFromData });
    new ReferenceGrant(new Chart(app, "data-team"), "apps-may-adopt", { namespace: "data", spec: grantForApps });
    expect(() => app.synth()).not.toThrow();
    const grant = Testing.synth(app.charts[1] as Chart)[0] as unknown;
    expect(grant).toEqual({
      apiVersion: "core.navique.com/v1alpha1",
      kind: "ReferenceGrant",
      metadata: { name: "apps-may-adopt", namespace: "data" },
      spec: grantForApps,
    });
  });

  it("GIVEN grantedInCluster WHEN synthesized THEN the check is waived; a same-namespace adoption never needs one", () => {
    const app = Testing.app();
    const chart = new Chart(app, "platform");
    new PostgresCluster(chart, "chat-db", { namespace: "apps", spec: adoptFromData, grantedInCluster: true });
    new PostgresCluster(chart, "local-db", {
      namespace: "apps",
      spec: { mode: "adopt", adopt: { clusterRef: { name: "shared" }, credentialsSecretRef: { name: "shared-app" } } },
    });
    expect(() => app.synth()).not.toThrow();
  });

  it("refuses, at synth, a grant with a bad entry, naming each field; a grant with problems grants nothing", () => {
    const app = Testing.app();
    const chart = new Chart(app, "data");
    new ReferenceGrant(chart, "bad", {
      namespace: "data",
      spec: { from: [{ group: "core.navique.com", kind: "PostgresCluster", namespace: "Apps" }], to: [] },
    });
    new PostgresCluster(new Chart(app, "platform"), "chat-db", { namespace: "apps", spec: adoptFromData });
    expect(synthProblems(app)).toEqual([
      expect.stringMatching(
        /^\[data\/bad\] ReferenceGrant spec\.from\[0\]\.namespace: must be a lowercase RFC 1123 label.*\(received "Apps"\)$/,
      ),
      "[data/bad] ReferenceGrant spec.to: number of items must be >= 1 (received [])",
      expect.stringMatching(/^\[platform\/chat-db\] PostgresCluster spec\.adopt\.clusterRef \(namespace data\) and /),
    ]);
  });
});

describe("the operator's chart", () => {
  it("lets the operator list and watch ReferenceGrants, and installs their CRD", () => {
    const files = operatorChartFiles("0.0.0");
    expect(files.has("crds/referencegrants.core.navique.com.yaml")).toBe(true);
    const role = parseAllDocuments(files.get("templates/rbac.yaml") ?? "")
      .map(
        (d) => d.toJS() as { kind?: string; rules?: { apiGroups: string[]; resources: string[]; verbs: string[] }[] },
      )
      .find((o) => o.kind === "ClusterRole");
    const allows = (verb: string) =>
      (role?.rules ?? []).some(
        (r) =>
          (r.apiGroups.includes("*") || r.apiGroups.includes("core.navique.com")) &&
          (r.resources.includes("*") || r.resources.includes("referencegrants")) &&
          (r.verbs.includes("*") || r.verbs.includes(verb)),
      );
    expect(["get", "list", "watch"].filter((verb) => !allows(verb))).toEqual([]);
  });
});
