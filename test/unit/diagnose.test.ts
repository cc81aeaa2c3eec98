import { doctorText } from "../../lib/cli/doctor-text.js";
import { statusText } from "../../lib/cli/status-text.js";
import { DoctorReport, doctorExitCode } from "../../lib/reports/doctor-report.js";
import {
  type CapabilityState,
  NOT_RECONCILED,
  type ResourceState,
  StatusReport,
  statusExitCode,
} from "../../lib/reports/status-report.js";
import { diagnose } from "../../lib/status/diagnose.js";
import { resource } from "../support/status-reports.js";

// Doctor is a reading of a status report: each case below is a report as `navique status -o json` gives
// it, and the findings doctor draws from it. No cluster: the reports are written here; the cluster test
// (test/cluster/status-and-doctor.test.ts) reads real ones.

const condition = (type: string, status: "True" | "False", reason: string, message: string) => ({
  type,
  status,
  reason,
  message,
});

/** Not Ready for `reason`, with its conditions as the engine writes them. */
function notReady(
  kind: string,
  namespace: string,
  name: string,
  reason: string,
  message: string,
  overrides: Partial<ResourceState> = {},
): ResourceState {
  return resource(kind, namespace, name, {
    ready: "False",
    reason,
    message,
    conditions: [condition("Ready", "False", reason, message), ...(overrides.conditions ?? [])],
    ...Object.fromEntries(Object.entries(overrides).filter(([key]) => key !== "conditions")),
  });
}

function capability(name: string, overrides: Partial<CapabilityState> = {}): CapabilityState {
  return {
    name,
    state: "Owned",
    evidence: `release ${name}/${name} (revision 1, chart 1.0.0, deployed) carries the ownership marks`,
    ready: true,
    waitingFor: [],
    unavailable: [],
    release: { namespace: name, name },
    chartVersion: "1.0.0",
    pinnedVersion: "1.0.0",
    usedBy: [],
    ...overrides,
  };
}

/** A healthy cluster: every node Ready, every CRD served, the operator leading, Community in force. */
function report(overrides: Partial<StatusReport> = {}): StatusReport {
  return StatusReport.parse({
    version: 1,
    observedAt: "2027-01-31T00:00:00.000Z",
    namespace: null,
    ready: (overrides.resources ?? []).every((r) => r.ready === "True"),
    cluster: {
      server: "https://127.0.0.1:6443",
      kubernetesVersion: "v1.36.3",
      nodes: { ready: 3, total: 3 },
      crds: { expected: ["licenses.core.navique.com", "postgresclusters.core.navique.com"], missing: [] },
    },
    operator: {
      deployments: [
        { namespace: "navique-system", name: "navique-ai-core-operator", replicas: 2, availableReplicas: 2 },
      ],
      lease: {
        namespace: "navique-system",
        name: "navique-ai-core-operator-leader",
        exists: true,
        holder: "navique-ai-core-operator-7d9f-abcde_1a2b3c4d",
        renewTime: "2027-01-30T23:59:58.000Z",
        leaseDurationSeconds: 15,
        live: true,
      },
    },
    licence: {
      stored: false,
      edition: "Community",
      features: [],
      caps: [{ kind: "PostgresCluster", cap: 2, instances: 0, admitted: 0, refused: [] }],
    },
    capabilities: [],
    resources: [],
    ...overrides,
  });
}

const codes = (r: StatusReport, namespace?: string) =>
  diagnose(r, namespace ? { namespace } : {}).findings.map((f) => [f.code, f.subject]);

describe("navique doctor's findings", () => {
  it("finds nothing in a healthy cluster whose resources are Ready, and exits 0", () => {
    const healthy = report({ resources: [resource("PostgresCluster", "data", "db")] });
    const doctor = diagnose(healthy);
    expect(doctor).toEqual({ version: 1, observedAt: healthy.observedAt, namespace: null, findings: [] });
    expect(doctorExitCode(doctor)).toBe(0);
    expect(statusExitCode(healthy)).toBe(0);
    expect(doctorText(doctor)).toBe(
      "no finding: the cluster serves the product's kinds, the operator leads, and every resource is Ready",
    );
  });

  it("says no node is Ready, and that the operator's Deployment has no replica for it", () => {
    const r = report({
      cluster: { ...report().cluster, nodes: { ready: 0, total: 2 } },
      operator: {
        ...report().operator,
        deployments: [
          { namespace: "navique-system", name: "navique-ai-core-operator", replicas: 2, availableReplicas: 0 },
        ],
      },
    });
    const { findings } = diagnose(r);
    expect(findings).toEqual([
      {
        code: "NoNodeReady",
        subject: "cluster",
        problem: "no node is Ready (0 of 2): no pod of the operator or of a capability's controller can run",
        blockedBy: [],
        blocks: ["operator"],
        fix: "see why with `kubectl get nodes` and `kubectl describe node NAME` (a kubelet stopped, a network lost, a node under pressure), and repair or add a node",
      },
      {
        code: "OperatorDeploymentUnavailable",
        subject: "operator",
        problem:
          "Deployment navique-system/navique-ai-core-operator has no available replica (0 of 2); nothing is reconciled",
        blockedBy: ["cluster"],
        blocks: [],
        fix: "see why with `kubectl -n navique-system describe deployment navique-ai-core-operator` and its pods' events, and `kubectl -n navique-system logs deployment/navique-ai-core-operator`; its readiness probe (GET /readyz) says what it waits for (docs/operator.md)",
      },
    ]);
    expect(doctorExitCode({ findings })).toBe(1);
  });

  it("names the CRDs the API server does not serve", () => {
    const r = report({
      cluster: {
        ...report().cluster,
        crds: { expected: ["a.core.navique.com", "b.core.navique.com"], missing: ["b.core.navique.com"] },
      },
    });
    expect(diagnose(r).findings).toEqual([
      expect.objectContaining({
        code: "CrdsMissing",
        subject: "CRDs",
        problem:
          "the API server does not serve 1 of the product's 2 CRDs: b.core.navique.com; resources of their kinds can be neither created nor read",
        fix: expect.stringContaining("install or upgrade the operator's chart, whose crds/ directory holds them"),
      }),
    ]);
  });

  it("says no operator runs, and links the resources it never reconciled to it", () => {
    const r = report({
      operator: {
        deployments: [],
        lease: { namespace: "navique-system", name: "navique-ai-core-operator-leader", exists: false, live: false },
      },
      resources: [
        resource("PostgresCluster", "data", "db", {
          ready: "Unknown",
          reason: NOT_RECONCILED,
          message: "it has no Ready condition yet",
          conditions: [],
          current: false,
        }),
      ],
    });
    const { findings } = diagnose(r);
    expect(findings.map((f) => [f.code, f.subject, f.blockedBy, f.blocks])).toEqual([
      ["OperatorNotRunning", "operator", [], ["PostgresCluster data/db"]],
      ["NotReconciled", "PostgresCluster data/db", ["operator"], []],
    ]);
    expect(findings[0]?.problem).toBe(
      "no operator runs: no Deployment labelled app.kubernetes.io/name=navique-ai-core-operator, and the leader Lease navique-system/navique-ai-core-operator-leader does not exist; nothing is reconciled",
    );
    expect(findings[0]?.fix).toContain(
      "helm install navique-operator node_modules/@navique/ai-core/charts/navique-ai-core-operator -n navique-system --create-namespace",
    );
  });

  it("says the replicas run without a leader, with the holder last seen", () => {
    const r = report({ operator: { ...report().operator, lease: { ...report().operator.lease, live: false } } });
    expect(diagnose(r).findings).toEqual([
      expect.objectContaining({
        code: "NoLeader",
        problem:
          "its replicas run, but the leader Lease navique-system/navique-ai-core-operator-leader was last renewed by navique-ai-core-operator-7d9f-abcde_1a2b3c4d at 2027-01-30T23:59:58.000Z, longer ago than its 15 s: none of them reconciles",
      }),
    ]);
    // An operator outside the cluster that leads (no Deployment, a live Lease) is no finding.
    expect(diagnose(report({ operator: { ...report().operator, deployments: [] } })).findings).toEqual([]);
  });

  it("says an expired licence does not apply, and a cap refusing resources, linked to it; a refused resource has no finding of its own", () => {
    const refusal = "PostgresCluster data/c is refused: the Community edition allows 2 PostgresCluster instance(s) …";
    const r = report({
      licence: {
        stored: true,
        edition: "Community",
        reason: "expired: licence lic-1 expired at 2027-01-01T00:00:00Z",
        features: [],
        caps: [
          {
            kind: "PostgresCluster",
            cap: 2,
            instances: 3,
            admitted: 2,
            refused: [{ kind: "PostgresCluster", namespace: "data", name: "c" }],
          },
        ],
      },
      resources: [
        resource("PostgresCluster", "data", "a"),
        resource("PostgresCluster", "data", "b"),
        notReady("PostgresCluster", "data", "c", "InstanceCapExceeded", refusal, {
          stalled: true,
          conditions: [condition("Licensed", "False", "InstanceCapExceeded", refusal)],
        }),
      ],
    });
    const { findings } = diagnose(r);
    expect(findings).toEqual([
      {
        code: "LicenceNotInForce",
        subject: "licence",
        problem:
          "the License navique does not apply (expired: licence lic-1 expired at 2027-01-01T00:00:00Z): the Community edition does, without paid features and with its caps",
        blockedBy: [],
        blocks: ["cap PostgresCluster"],
        fix: "renew it: ask your navique account contact for a licence that includes it, then apply it as the License named `navique`",
      },
      {
        code: "CapExceeded",
        subject: "cap PostgresCluster",
        problem:
          "3 PostgresCluster instance(s) for a cap of 2 under the Community edition: PostgresCluster data/c is refused, nothing created for it",
        blockedBy: ["licence"],
        blocks: ["PostgresCluster data/c"],
        fix: "delete an unused PostgresCluster, or ask your navique account contact for a licence that includes it, then apply it as the License named `navique`",
      },
    ]);
  });

  it("links a resource waiting for a capability to it, with what to do for an adopted one", () => {
    const needs =
      "cloudnative-pg: Deployment cnpg-system/cnpg has no available replica; adopted: the product leaves it to whoever installed it";
    const r = report({
      capabilities: [
        // Needed by a resource that waits for a dependency first: nothing waits for it yet.
        capability("cert-manager", {
          state: "Absent",
          ready: false,
          waitingFor: ["install cert-manager"],
          usedBy: [{ kind: "Gateway", namespace: "data", name: "gw" }],
        }),
        capability("cloudnative-pg", {
          state: "Adopted",
          ready: false,
          evidence:
            "no release cnpg-system/cloudnative-pg; CRDs present and controller Deployment cnpg-system/cnpg matched by label app.kubernetes.io/name=cloudnative-pg",
          unavailable: ["Deployment cnpg-system/cnpg has no available replica"],
          waitingFor: ["Deployment cnpg-system/cnpg has no available replica"],
          usedBy: [{ kind: "PostgresCluster", namespace: "data", name: "db" }],
        }),
      ],
      resources: [
        notReady("PostgresCluster", "data", "db", "OperatorUnavailable", needs, {
          needs: ["cloudnative-pg"],
          conditions: [condition("OperatorsReady", "False", "OperatorUnavailable", needs)],
        }),
        notReady("Gateway", "data", "gw", "DependencyNotReady", "waiting for what it depends on: …", {
          needs: ["cert-manager"],
          dependsOn: [{ kind: "PostgresCluster", namespace: "data", name: "db", field: "spec.ref" }],
          conditions: [
            condition("DependenciesReady", "False", "DependencyNotReady", "waiting for what it depends on: …"),
            condition("OperatorsReady", "False", "Installing", "cert-manager: install cert-manager"),
          ],
        }),
      ],
    });
    const { findings } = diagnose(r);
    // A capability not Ready that no resource waits for yet (the Gateway waits for its dependency first) is no finding.
    expect(findings.map((f) => [f.code, f.subject, f.blockedBy, f.blocks])).toEqual([
      ["CapabilityNotReady", "capability cloudnative-pg", [], ["PostgresCluster data/db"]],
      ["WaitingForCapability", "PostgresCluster data/db", ["capability cloudnative-pg"], ["Gateway data/gw"]],
      ["WaitingForDependency", "Gateway data/gw", ["PostgresCluster data/db"], []],
    ]);
    expect(findings[0]?.problem).toBe(
      "cloudnative-pg is Adopted and not Ready: Deployment cnpg-system/cnpg has no available replica (no release cnpg-system/cloudnative-pg; CRDs present and controller Deployment cnpg-system/cnpg matched by label app.kubernetes.io/name=cloudnative-pg)",
    );
    expect(findings[0]?.fix).toBe(
      "it was installed by someone else, and the product repairs nothing of it: repair that installation (its Deployments' events and logs say why), or uninstall it and the product installs its own",
    );
    expect(findings[1]).toMatchObject({
      problem: `not Ready (OperatorUnavailable): ${needs}`,
      fix: `capability cloudnative-pg: ${findings[0]?.fix}`,
    });
  });

  it("follows a chain of dependencies down to the resource that holds it up, causes first", () => {
    const waiting = (target: string) =>
      `waiting for what it depends on: spec.ref: ${target} is not Ready (…). Nothing of it is applied until then`;
    const r = report({
      resources: [
        notReady(
          "PostgresCluster",
          "data",
          "db",
          "ConnectionSecretMissing",
          "Secret data/pg does not exist: create it",
        ),
        notReady("Gateway", "apps", "llm", "DependencyNotReady", waiting("PostgresCluster data/db"), {
          dependsOn: [
            { kind: "PostgresCluster", namespace: "data", name: "db", field: "spec.database.postgresClusterRef" },
          ],
          conditions: [
            condition("DependenciesReady", "False", "DependencyNotReady", waiting("PostgresCluster data/db")),
          ],
        }),
        notReady("ChatUI", "apps", "chat", "DependencyNotReady", waiting("Gateway apps/llm"), {
          dependsOn: [
            { kind: "Gateway", namespace: "apps", name: "llm", field: "spec.gatewayRef" },
            { kind: "MongoCluster", namespace: "apps", name: "docs", field: "spec.mongoClusterRef" },
          ],
          conditions: [condition("DependenciesReady", "False", "DependencyMissing", waiting("Gateway apps/llm"))],
        }),
        resource("PostgresCluster", "other", "fine"),
        notReady(
          "PostgresCluster",
          "other",
          "elsewhere",
          "Provisioning",
          "CNPG Cluster other/elsewhere is being created",
        ),
      ],
    });
    const { findings } = diagnose(r);
    expect(findings.map((f) => [f.code, f.subject, f.blockedBy, f.blocks])).toEqual([
      ["ResourceNotReady", "PostgresCluster data/db", [], ["Gateway apps/llm"]],
      ["ResourceNotReady", "PostgresCluster other/elsewhere", [], []],
      ["WaitingForDependency", "Gateway apps/llm", ["PostgresCluster data/db"], ["ChatUI apps/chat"]],
      ["WaitingForDependency", "ChatUI apps/chat", ["Gateway apps/llm", "MongoCluster apps/docs"], []],
    ]);
    expect(findings[0]).toMatchObject({
      problem: "not Ready (ConnectionSecretMissing)",
      fix: "Secret data/pg does not exist: create it",
    });
    expect(findings[3]?.fix).toBe(
      "make PostgresCluster data/db Ready — ConnectionSecretMissing: Secret data/pg does not exist: create it; MongoCluster apps/docs does not exist: create it, or point spec.mongoClusterRef at one that does",
    );
    // The namespace asked for, and what its resources wait on elsewhere; not the other namespace's.
    expect(codes(r, "apps")).toEqual([
      ["ResourceNotReady", "PostgresCluster data/db"],
      ["WaitingForDependency", "Gateway apps/llm"],
      ["WaitingForDependency", "ChatUI apps/chat"],
    ]);
    expect(diagnose(r, { namespace: "other" }).namespace).toBe("other");
    expect(codes(r, "other")).toEqual([["ResourceNotReady", "PostgresCluster other/elsewhere"]]);
  });

  it("says a stalled resource's cause is for someone to change, in the condition's own words", () => {
    const message = "spec.type zalando is not implemented yet; use type: cnpg (CloudNativePG)";
    const r = report({
      resources: [
        notReady("PostgresCluster", "data", "z", "NotImplemented", message, { stalled: true, current: false }),
      ],
    });
    expect(diagnose(r).findings).toEqual([
      {
        code: "ResourceStalled",
        subject: "PostgresCluster data/z",
        problem: `not Ready (NotImplemented), and waiting will not clear it: ${message} (its status is for an earlier spec: the operator has not caught up with it)`,
        blockedBy: [],
        blocks: [],
        fix: message,
      },
    ]);
  });

  it("gives documents that parse by their exported schemas, and texts that say the same", () => {
    const r = report({
      resources: [notReady("PostgresCluster", "data", "db", "Provisioning", "CNPG Cluster data/db is being created")],
      capabilities: [
        capability("cloudnative-pg", { usedBy: [{ kind: "PostgresCluster", namespace: "data", name: "db" }] }),
      ],
    });
    const doctor = diagnose(r);
    expect(DoctorReport.parse(JSON.parse(JSON.stringify(doctor)))).toEqual(doctor);
    expect(statusExitCode(r)).toBe(1);
    const text = statusText(r);
    expect(text).toContain(
      "cluster:   https://127.0.0.1:6443, Kubernetes v1.36.3, 3/3 nodes Ready, 2/2 CRDs served\n" +
        "operator:  Deployment navique-system/navique-ai-core-operator 2/2 available; leader navique-ai-core-operator-7d9f-abcde_1a2b3c4d (Lease navique-system/navique-ai-core-operator-leader)\n" +
        "licence:   Community (no licence stored); features: none",
    );
    expect(text).toContain(
      "KIND             NAMESPACE  NAME  READY  REASON\nPostgresCluster  data       db    False  Provisioning\n    CNPG Cluster data/db is being created",
    );
    expect(text).toContain(
      "NAME            STATE  READY  CHART  USED BY\ncloudnative-pg  Owned  True   1.0.0  PostgresCluster data/db\n    release cloudnative-pg/cloudnative-pg (revision 1, chart 1.0.0, deployed) carries the ownership\n    marks",
    );
    expect(text.endsWith("1 resource(s), 1 not Ready: exit 1 (docs/status-and-doctor.md)")).toBe(true);
    expect(doctorText(doctor)).toBe(
      [
        "1 finding(s), causes first (docs/status-and-doctor.md):",
        "",
        "PostgresCluster data/db [ResourceNotReady]",
        "  problem:    not Ready (Provisioning)",
        "  fix:        CNPG Cluster data/db is being created",
      ].join("\n"),
    );
  });
});
