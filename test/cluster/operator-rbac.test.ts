import { join } from "node:path";
import { AuthorizationV1Api } from "@kubernetes/client-node";
import pMap from "p-map";
import { parseAllDocuments } from "yaml";
import { API_GROUP, OPERATOR_NAME, SYSTEM_NAMESPACE } from "../../lib/api/group.js";
import type { CapabilityEntry } from "../../lib/catalog/capability.js";
import { CATALOG } from "../../lib/catalog/catalog.js";
import { CHART_KINDS, type ChartKind } from "../../lib/catalog/chart-objects.js";
import type { HelmCli } from "../../lib/cluster/helm-cli.js";
import type { KubeClient } from "../../lib/cluster/kube-client.js";
import { isWorkloadRelease } from "../../lib/engine/workload-release.js";
import { allDefinitions, REGISTRY } from "../../lib/kinds/registry.js";
import {
  operatorClusterRules,
  operatorSystemNamespaceRules,
  type PolicyRule,
  policyRules,
  WORKLOAD_CHART_RESOURCES,
} from "../../lib/package/operator-rbac.js";
import {
  CAPABILITY_SUITE_SETUP_MS,
  FIXTURE_CHARTS,
  lockCapabilities,
  testClient,
  testHelm,
} from "../support/capabilities.js";
import { removeConsoleObjectsOutsideReleases } from "../support/console-leftovers.js";

const RELEASE = "navique-rbac-check";
const RBAC = "rbac.authorization.k8s.io";
const CRDS = { group: "apiextensions.k8s.io", plural: "customresourcedefinitions" };

/** One object a capability chart renders, as RBAC sees it. */
interface ChartObject {
  readonly capability: string;
  readonly kind: string;
  readonly group: string;
  readonly plural: string;
  readonly name: string;
  /** Undefined for a cluster-scoped object. */
  readonly namespace: string | undefined;
  /** A binding's role, which `bind` is checked on. */
  readonly roleRef?: { readonly kind: string; readonly name: string };
}

interface Rendered {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: { readonly name: string; readonly namespace?: string };
  readonly roleRef?: { readonly kind: string; readonly name: string };
}

const CLUSTER_SCOPED: ReadonlySet<string> = new Set([
  "ClusterRole",
  "ClusterRoleBinding",
  "MutatingWebhookConfiguration",
  "ValidatingWebhookConfiguration",
  "CustomResourceDefinition",
]);

function groupOf(apiVersion: string): string {
  return apiVersion.includes("/") ? (apiVersion.split("/")[0] ?? "") : "";
}

function served(kind: string, apiVersion: string): { group: string; plural: string } {
  if (kind === "CustomResourceDefinition") return CRDS;
  const known = CHART_KINDS[kind as ChartKind] as { group: string; plural: string } | undefined;
  if (!known || known.group !== groupOf(apiVersion)) {
    throw new Error(`${apiVersion} ${kind} is no kind of lib/catalog/chart-objects.ts: add it there first`);
  }
  return known;
}

/**
 * What a capability's chart renders, as the installer renders it: the fixture chart with the catalog's
 * values (`helm template`, hooks included), and the upstream chart's objects its entry records — the
 * fixtures render a part of them (test/cluster/catalog-fixtures.test.ts) — and the CRDs it ships.
 */
async function chartObjects(helm: HelmCli, entry: CapabilityEntry): Promise<ChartObject[]> {
  const { name: capability, release } = entry;
  const rendered = await helm.template(release.name, join(FIXTURE_CHARTS, entry.chart.name), {
    namespace: release.namespace,
    values: entry.values,
  });
  const fromFixture = parseAllDocuments(rendered)
    .map((d) => d.toJS() as Rendered | null)
    .filter((o): o is Rendered => Boolean(o?.kind))
    .map((o) => ({
      capability,
      kind: o.kind,
      ...served(o.kind, o.apiVersion),
      name: o.metadata.name,
      namespace: CLUSTER_SCOPED.has(o.kind) ? undefined : (o.metadata.namespace ?? release.namespace),
      ...(o.roleRef ? { roleRef: o.roleRef } : {}),
    }));
  const recorded = (Object.entries(entry.renders) as [ChartKind, string[]][]).flatMap(([kind, names]) =>
    names.map((name) => ({
      capability,
      kind,
      ...CHART_KINDS[kind],
      name,
      namespace: CLUSTER_SCOPED.has(kind) ? undefined : release.namespace,
    })),
  );
  const crds = entry.crds.names.map((name) => ({
    capability,
    kind: "CustomResourceDefinition",
    ...CRDS,
    name,
    namespace: undefined,
  }));
  return [...fromFixture, ...recorded, ...crds];
}

type Attributes = { group: string; resource: string; verb: string; name?: string; namespace?: string };

/**
 * What helm and the installer ask of the apiserver for an object of a chart (docs/adr/0024-operator-rbac.md):
 * read it, apply it server-side (a PATCH naming it, authorized as create when it does not exist), delete it
 * at uninstall — not a CRD, which is kept — and, for the wait, list and watch its kind without a name;
 * write a role it may grant more than the operator holds (escalate), bind a role (bind).
 */
function helmRequests(object: ChartObject): Attributes[] {
  const { group, plural: resource, name, namespace } = object;
  const inNamespace = namespace ? { namespace } : {};
  const named =
    object.kind === "CustomResourceDefinition" ? ["get", "create", "patch"] : ["get", "create", "patch", "delete"];
  const requests: Attributes[] = [
    ...named.map((verb) => ({ group, resource, verb, name, ...inNamespace })),
    ...["list", "watch"].map((verb) => ({ group, resource, verb, ...inNamespace })),
  ];
  // A role the charts render may be written beyond what the operator holds, and bound by a binding of theirs.
  if (object.kind === "ClusterRole" || object.kind === "Role") {
    for (const verb of ["escalate", "bind"]) requests.push({ group, resource, verb, name, ...inNamespace });
  }
  if (object.roleRef) {
    const roles = object.roleRef.kind === "ClusterRole" ? "clusterroles" : "roles";
    requests.push({ group: RBAC, resource: roles, verb: "bind", name: object.roleRef.name, ...inNamespace });
  }
  return requests;
}

/** Whether the apiserver's authorizer lets the operator's ServiceAccount do this (a SubjectAccessReview). */
async function operatorMay(authorization: AuthorizationV1Api, resourceAttributes: Attributes): Promise<boolean> {
  const review = await authorization.createSubjectAccessReview({
    body: {
      spec: {
        user: `system:serviceaccount:${SYSTEM_NAMESPACE}:${OPERATOR_NAME}`,
        groups: ["system:serviceaccounts", `system:serviceaccounts:${SYSTEM_NAMESPACE}`, "system:authenticated"],
        resourceAttributes,
      },
    },
  });
  return review.status?.allowed === true;
}

/** The requests among `requests` the operator's ServiceAccount may not make, as `verb group/resource name`. */
async function refused(authorization: AuthorizationV1Api, requests: readonly Attributes[]): Promise<string[]> {
  const answers = await pMap(requests, async (r) => ((await operatorMay(authorization, r)) ? "" : requestText(r)), {
    concurrency: 8,
  });
  return [...new Set(answers.filter((a) => a !== ""))].sort();
}

function requestText(r: Attributes): string {
  return `${r.verb} ${r.group}/${r.resource}${r.namespace ? ` in ${r.namespace}` : ""}${r.name ? ` ${r.name}` : ""}`;
}

/** `group/resource` → who needs it: every part of the operator the ClusterRole serves, each named. */
function consumers(objects: readonly ChartObject[]): Map<string, string[]> {
  const needs = new Map<string, string[]>();
  const need = (group: string, resource: string, who: string) =>
    needs.set(`${group}/${resource}`, [...new Set([...(needs.get(`${group}/${resource}`) ?? []), who])]);
  for (const object of objects) need(object.group, object.plural, `the ${object.capability} chart`);
  for (const module of REGISTRY.kinds) {
    const { kind, plural } = module.definition;
    for (const p of [plural, `${plural}/status`, `${plural}/finalizers`]) need(API_GROUP, p, kind);
    for (const emitted of module.emits.filter((e) => !isWorkloadRelease(e))) {
      need(groupOf(emitted.apiVersion), emitted.plural, `${kind}'s emitted objects`);
    }
    for (const read of module.readsKinds ?? []) need(groupOf(read.apiVersion), read.plural, `${kind}'s reads`);
  }
  need(API_GROUP, REGISTRY.grants.plural, "reference grants");
  for (const p of [REGISTRY.singleton.definition.plural, `${REGISTRY.singleton.definition.plural}/status`])
    need(API_GROUP, p, "the licence");
  for (const [group, plurals] of WORKLOAD_CHART_RESOURCES)
    for (const p of plurals) need(group, p, "the workload charts");
  // The operator's own: its CRDs, detection, the namespaces it creates, its Events, helm's release records.
  need(CRDS.group, CRDS.plural, "its CRDs and detection");
  need("apps", "deployments", "detection");
  need("apps", "statefulsets", "detection");
  need("", "namespaces", "the system and release namespaces");
  need("events.k8s.io", "events", "its Events");
  need("", "secrets", "helm's release records");
  // The console it serves (docs/console.md): its settings, the nodes the overview counts, the reviews of
  // each reader's token.
  for (const p of [REGISTRY.managementPlane.definition.plural, `${REGISTRY.managementPlane.definition.plural}/status`])
    need(API_GROUP, p, "the console");
  need("", "nodes", "the console");
  need("authentication.k8s.io", "tokenreviews", "the console");
  need("authorization.k8s.io", "subjectaccessreviews", "the console");
  return needs;
}

// The operator's chart, installed by the real helm, against what each capability chart renders: every
// object is checked with the apiserver's own authorizer (a SubjectAccessReview for the chart's
// ServiceAccount), for every request helm and the installer make of it, names included; then the other
// way round, every rule of the installed ClusterRole has a part of the operator that needs it. The
// ClusterRole is cluster-wide, like that of the other suites installing the chart: the suite holds the
// capability lock.
describe("the operator chart's permissions, against what each capability chart renders", () => {
  let unlock: (() => Promise<void>) | undefined;
  let client: KubeClient;
  let helm: HelmCli;
  let authorization: AuthorizationV1Api;
  let objects: ChartObject[] = [];
  let installed: PolicyRule[] = [];

  beforeAll(async () => {
    unlock = await lockCapabilities();
    client = testClient();
    helm = await testHelm();
    authorization = client.kubeconfig.makeApiClient(AuthorizationV1Api);
    // A run killed before its cleanup left its release behind (or the console suite its objects): the next
    // run starts from none.
    await helm.uninstall(RELEASE, SYSTEM_NAMESPACE);
    await removeConsoleObjectsOutsideReleases(client);
    await helm.install(RELEASE, join(process.cwd(), "charts", OPERATOR_NAME), {
      namespace: SYSTEM_NAMESPACE,
      createNamespace: true,
      wait: false,
    });
    const role = (await client.read({
      apiVersion: `${RBAC}/v1`,
      kind: "ClusterRole",
      metadata: { name: OPERATOR_NAME },
    })) as { rules?: PolicyRule[] } | undefined;
    installed = role?.rules ?? [];
    objects = (await Promise.all([...CATALOG.values()].map((entry) => chartObjects(helm, entry)))).flat();
  }, CAPABILITY_SUITE_SETUP_MS);

  afterAll(async () => {
    try {
      if (helm) expect(await helm.uninstall(RELEASE, SYSTEM_NAMESPACE)).toBe(true);
    } finally {
      await unlock?.();
    }
  }, CAPABILITY_SUITE_SETUP_MS);

  it("installs the rules lib/package/operator-rbac.ts writes, as the chart renders them", async () => {
    const rendered = parseAllDocuments(
      await helm.template(RELEASE, join(process.cwd(), "charts", OPERATOR_NAME), { namespace: SYSTEM_NAMESPACE }),
    )
      .map((d) => d.toJS() as { kind?: string; metadata?: { name?: string }; rules?: PolicyRule[] } | null)
      .filter((o) => (o?.kind === "ClusterRole" || o?.kind === "Role") && o.metadata?.name === OPERATOR_NAME);
    expect(rendered.map((o) => o?.rules)).toEqual([
      policyRules(operatorClusterRules()),
      policyRules(operatorSystemNamespaceRules()),
    ]);
    // As stored: the apiserver keeps a rule as written (empty lists dropped).
    expect(installed).toEqual(policyRules(operatorClusterRules()));
  });

  it("lets it make every request helm and the installer make of every object each capability chart renders", async () => {
    const requests = objects.flatMap(helmRequests);
    // The release namespaces too: helm's --create-namespace applies each server-side.
    for (const entry of CATALOG.values()) {
      requests.push({ group: "", resource: "namespaces", verb: "patch", name: entry.release.namespace });
    }
    expect(await refused(authorization, requests)).toEqual([]);
    // Every capability and every named kind was looked at, and webhook configurations, roles and hooks among them.
    expect(new Set(objects.map((o) => o.capability))).toEqual(new Set(CATALOG.keys()));
    for (const kind of [...Object.keys(CHART_KINDS), "CustomResourceDefinition"]) {
      expect(objects.some((o) => o.kind === kind)).toBe(true);
    }
    expect(requests.length).toBeGreaterThan(1000);
  });

  it("refuses those requests on any name no chart renders, and a create that names nothing", async () => {
    const named = installed.filter((rule) => rule.resourceNames);
    expect(named.length).toBeGreaterThan(8);
    const elsewhere = named.flatMap((rule) =>
      rule.resources.flatMap((resource) =>
        rule.verbs.map((verb) => ({ group: rule.apiGroups[0] ?? "", resource, verb, name: "navique-not-rendered" })),
      ),
    );
    // A POST create names no object: a rule limited to names never matches it.
    const unnamedCreates = named.map((rule) => ({
      group: rule.apiGroups[0] ?? "",
      resource: rule.resources[0] ?? "",
      verb: "create",
    }));
    const asked = [...elsewhere, ...unnamedCreates.filter((r) => r.resource !== "namespaces")];
    expect(await refused(authorization, asked)).toEqual([...new Set(asked.map(requestText))].sort());
    // Nor does the operator hold what the charts' roles grant: only escalate lets it write them.
    for (const request of [
      { group: "", resource: "pods", verb: "list" },
      { group: "", resource: "pods", verb: "create", namespace: "kube-system" },
      { group: "certificates.k8s.io", resource: "signers", verb: "approve" },
      { group: RBAC, resource: "clusterroles", verb: "escalate", name: "cluster-admin" },
      { group: RBAC, resource: "clusterroles", verb: "bind", name: "cluster-admin" },
      {
        group: "admissionregistration.k8s.io",
        resource: "validatingwebhookconfigurations",
        verb: "delete",
        name: "kyverno-resource-validating-webhook-cfg",
      },
    ]) {
      expect([requestText(request), await operatorMay(authorization, request)]).toEqual([requestText(request), false]);
    }
  });

  it("grants nothing no part of the operator needs: each rule's kind has a user, each name a chart that renders it", () => {
    const needs = consumers(objects);
    const unused = installed.flatMap((rule) =>
      rule.apiGroups.flatMap((group) =>
        rule.resources.filter((resource) => !needs.has(`${group}/${resource}`)).map((r) => `${group}/${r}`),
      ),
    );
    expect(unused).toEqual([]);
    // A rule limited to names lists exactly what something names: the charts' objects of its kind, the
    // CRDs the product and the catalog ship, the catalog's release namespaces.
    const expectedNames = (group: string, resource: string): string[] => {
      if (group === CRDS.group && resource === CRDS.plural)
        return [
          ...allDefinitions().map((d) => `${d.plural}.${API_GROUP}`),
          ...[...CATALOG.values()].flatMap((entry) => entry.crds.names),
        ];
      if (resource === "namespaces") return [...CATALOG.values()].map((entry) => entry.release.namespace);
      return objects.filter((o) => o.group === group && o.plural === resource).map((o) => o.name);
    };
    for (const rule of installed.filter((r) => r.resourceNames)) {
      const [group = "", resource = ""] = [rule.apiGroups[0], rule.resources[0]];
      expect([`${group}/${resource}`, [...(rule.resourceNames ?? [])].sort()]).toEqual([
        `${group}/${resource}`,
        [...new Set(expectedNames(group, resource))].sort(),
      ]);
    }
    // And every kind the charts render is granted: the first test asked for each object.
    expect(installed.filter((r) => r.resourceNames).length).toBeGreaterThan(8);
  });
});
