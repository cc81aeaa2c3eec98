import { Testing } from "cdk8s";
import { NaviqueOperator } from "../../constructs/navique-operator.js";
import { operatorChartFiles } from "../../constructs/operator-chart.js";
import { API_GROUP } from "../../lib/api/group.js";
import { CATALOG } from "../../lib/catalog/catalog.js";
import { allDefinitions } from "../../lib/kinds/registry.js";
import {
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

describe("the operator's permissions", () => {
  it("grant no wildcard: no `*` verb, resource or API group, in the ClusterRole and the Role the construct renders", () => {
    const roles = synthesized().filter((o) => o.kind === "ClusterRole" || o.kind === "Role");
    expect(roles.map((o) => `${o.kind}/${o.metadata.namespace ?? ""}/${o.metadata.name}`)).toEqual([
      "ClusterRole//navique-ai-core-operator",
      "Role/navique-system/navique-ai-core-operator",
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
    const template = operatorChartFiles("0.0.0").get("templates/operator.yaml") ?? "";
    for (const rule of rules) {
      expect(rule.why.length).toBeGreaterThan(40);
      expect(template).toContain(`  # ${rule.why}\n  - apiGroups:\n`);
    }
    // One comment per rule, no more: a rule without its reason would leave the counts apart.
    expect(template.match(/^ {2}# /gm)?.length).toBe(rules.length);
  });

  it("keep the broad verbs, escalate and bind, to roles alone; leases only in the system namespace", () => {
    const broad = operatorClusterRules().filter((r) => r.verbs.includes("escalate") || r.verbs.includes("bind"));
    expect(broad.map(({ why: _why, ...rule }) => rule)).toEqual([
      { apiGroups: ["rbac.authorization.k8s.io"], resources: ["clusterroles", "roles"], verbs: ["escalate", "bind"] },
    ]);
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
