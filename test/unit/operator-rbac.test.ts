import { Testing } from "cdk8s";
import { NaviqueOperator } from "../../constructs/navique-operator.js";
import { operatorChartFiles } from "../../constructs/operator-chart.js";
import { API_GROUP } from "../../lib/api/group.js";
import { CATALOG } from "../../lib/catalog/catalog.js";
import { CHART_KINDS, type ChartKind } from "../../lib/catalog/chart-objects.js";
import { allDefinitions } from "../../lib/kinds/registry.js";
import {
  type OperatorRule,
  operatorClusterRules,
  operatorSystemNamespaceRules,
  type PolicyRule,
  policyRules,
} from "../../lib/package/operator-rbac.js";

interface RbacObject {
  readonly kind: string;
  readonly metadata: { readonly name: string; readonly namespace?: string };
  readonly rules?: readonly PolicyRule[];
}

function synthesized(): RbacObject[] {
  const chart = Testing.chart();
  new NaviqueOperator(chart, "operator");
  return Testing.synth(chart) as RbacObject[];
}

const RBAC = "rbac.authorization.k8s.io";

/** The names every capability chart of the catalog renders of a kind. */
function renderedNames(kind: ChartKind): string[] {
  return [...new Set([...CATALOG.values()].flatMap((entry) => entry.renders[kind] ?? []))].sort();
}

/** The rules granting `verb` on `resource` of `group`: RBAC's own matching, names aside. */
function granting(rules: readonly OperatorRule[], group: string, resource: string, verb: string): OperatorRule[] {
  return rules.filter((r) => r.apiGroups.includes(group) && r.resources.includes(resource) && r.verbs.includes(verb));
}

describe("the operator's permissions", () => {
  it("grant no wildcard: no `*` verb, resource or API group, in the ClusterRoles and the Role the construct renders", () => {
    const roles = synthesized().filter((o) => o.kind === "ClusterRole" || o.kind === "Role");
    expect(roles.map((o) => `${o.kind}/${o.metadata.namespace ?? ""}/${o.metadata.name}`)).toEqual([
      "ClusterRole//navique-ai-core-operator",
      "Role/navique-system/navique-ai-core-operator",
      // The console reader's: one get of the ManagementPlane, bound by the user to whoever may read the console.
      "ClusterRole//navique-ai-core-operator-console-viewer",
    ]);
    const rules = roles.flatMap((o) => o.rules ?? []);
    expect(rules.length).toBeGreaterThan(5);
    for (const field of ["verbs", "resources", "apiGroups"] as const) {
      expect(rules.filter((rule) => rule[field].some((value) => value.includes("*")))).toEqual([]);
    }
    expect(roles[0]?.rules).toEqual(policyRules(operatorClusterRules()));
    expect(roles[1]?.rules).toEqual(policyRules(operatorSystemNamespaceRules()));
  });

  it("explain every rule: a reason in lib/package/operator-rbac.ts, printed above the rule in the chart", () => {
    const rules = [...operatorClusterRules(), ...operatorSystemNamespaceRules()];
    // The chart's templates that hold its roles, wherever the chart puts them.
    const template = [...operatorChartFiles("0.0.0")]
      .filter(([path, text]) => path.startsWith("templates/") && /^kind: (Cluster)?Role$/m.test(text))
      .map(([, text]) => text)
      .join("\n");
    for (const rule of rules) {
      expect(rule.why.length).toBeGreaterThan(40);
      expect(template).toContain(`  # ${rule.why}\n  - apiGroups:\n`);
    }
    // One comment per rule, no more: a rule without its reason would leave the counts apart.
    expect(template.match(/^ {2}# /gm)?.length).toBe(rules.length);
  });

  // The same verb on the same kind granted twice (the core kinds were, three times) says nothing more and
  // hides which reason holds: each is granted once, the rule's reason naming every part that needs it.
  it("grant each verb on each kind in one rule only, whatever needs it", () => {
    const rules = operatorClusterRules();
    const twice = rules.flatMap((rule) =>
      rule.apiGroups.flatMap((group) =>
        rule.resources.flatMap((resource) =>
          rule.verbs
            .filter((verb) => granting(rules, group, resource, verb).length > 1)
            .map((verb) => `${verb} ${group}/${resource}`),
        ),
      ),
    );
    expect([...new Set(twice)]).toEqual([]);
    // Secrets, which every part of the operator touches, in one rule of their own.
    const secrets = granting(rules, "", "secrets", "get");
    expect(secrets.map((r) => r.resources)).toEqual([["secrets"]]);
    for (const part of ["emitted by", "references", "metadata only", "release records", "workload charts"]) {
      expect(secrets[0]?.why).toContain(part);
    }
  });

  it("write webhook configurations, ClusterRoles and ClusterRoleBindings only under the names the catalog's charts render", () => {
    const rules = operatorClusterRules();
    const named: [string, string, ChartKind][] = [
      ["admissionregistration.k8s.io", "mutatingwebhookconfigurations", "MutatingWebhookConfiguration"],
      ["admissionregistration.k8s.io", "validatingwebhookconfigurations", "ValidatingWebhookConfiguration"],
      [RBAC, "clusterroles", "ClusterRole"],
      [RBAC, "clusterrolebindings", "ClusterRoleBinding"],
      ["batch", "jobs", "Job"],
      ["cert-manager.io", "certificates", "Certificate"],
      ["cert-manager.io", "issuers", "Issuer"],
    ];
    for (const [group, resource, kind] of named) {
      expect(CHART_KINDS[kind]).toEqual({ group, plural: resource });
      for (const verb of ["get", "create", "patch", "delete"]) {
        const found = granting(rules, group, resource, verb);
        expect(found.map((r) => [...(r.resourceNames ?? [])].sort())).toEqual([renderedNames(kind)]);
      }
      // Listing and watching cannot name an object: helm's wait does both, nothing else.
      expect(granting(rules, group, resource, "list").map((r) => r.resourceNames)).toEqual([undefined]);
      expect(granting(rules, group, resource, "update")).toEqual([]);
    }
    expect(renderedNames("ValidatingWebhookConfiguration")).toEqual([
      "cert-manager-webhook",
      "clickhouse-operator-validating-webhook-configuration",
      "cnpg-validating-webhook-configuration",
      "externalsecret-validate",
      "secretstore-validate",
    ]);
  });

  it("escalate and bind ClusterRoles only under the charts' names; Roles unnamed, for MongoCluster's; leases only in the system namespace", () => {
    const broad = operatorClusterRules().filter((r) => r.verbs.includes("escalate") || r.verbs.includes("bind"));
    expect(broad.map(({ why: _why, ...rule }) => rule)).toEqual([
      {
        apiGroups: [RBAC],
        resources: ["clusterroles"],
        verbs: ["escalate", "bind"],
        resourceNames: renderedNames("ClusterRole"),
      },
      { apiGroups: [RBAC], resources: ["roles"], verbs: ["escalate", "bind"] },
    ]);
    expect(broad[1]?.why).toContain("MongoCluster");
    expect(operatorClusterRules().filter((r) => r.apiGroups.includes("coordination.k8s.io"))).toEqual([]);
    expect(policyRules(operatorSystemNamespaceRules())).toEqual([
      { apiGroups: ["coordination.k8s.io"], resources: ["leases"], verbs: ["get", "create", "update", "delete"] },
    ]);
  });

  it("write CRDs by name only: the product's own and the catalog's, and delete none", () => {
    const crdRules = operatorClusterRules().filter((r) => r.resources.includes("customresourcedefinitions"));
    expect(crdRules.flatMap((r) => r.verbs)).not.toContain("delete");
    const named = crdRules.filter((r) => r.resourceNames);
    expect(named.map((r) => r.verbs)).toEqual([["create", "update", "patch"]]);
    expect([...(named[0]?.resourceNames ?? [])].sort()).toEqual(
      [
        ...allDefinitions().map((d) => `${d.plural}.${API_GROUP}`),
        ...[...CATALOG.values()].flatMap((entry) => entry.crds.names),
      ].sort(),
    );
    // Unnamed, a write could rewrite any other operator's CRD: only reads are.
    expect(crdRules.filter((r) => !r.resourceNames).flatMap((r) => r.verbs)).toEqual(["get", "list", "watch"]);
  });
});
