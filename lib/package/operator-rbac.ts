import { API_GROUP } from "../api/group.js";
import { CATALOG } from "../catalog/catalog.js";
import { isWorkloadRelease } from "../engine/workload-release.js";
import { allDefinitions, REGISTRY, type Registry } from "../kinds/registry.js";

/**
 * One rule of the operator's permissions, with why the operator needs it: the chart prints `why` as a
 * comment above the rule, and docs/adr/0024-operator-rbac.md groups them.
 */
export interface OperatorRule {
  readonly apiGroups: readonly string[];
  readonly resources: readonly string[];
  readonly verbs: readonly string[];
  /** Limits the rule to these objects; only for requests that name the object (never a POST create, list or watch). */
  readonly resourceNames?: readonly string[];
  readonly why: string;
}

/** A rule as RBAC stores it: the same fields, without the reason. */
export interface PolicyRule {
  readonly apiGroups: readonly string[];
  readonly resources: readonly string[];
  readonly verbs: readonly string[];
  readonly resourceNames?: readonly string[];
}

const READ = ["get", "list", "watch"] as const;
/** What server-side apply (create or update by PATCH), the garbage collection of emitted objects and helm need. */
const WRITE = ["get", "list", "watch", "create", "update", "patch", "delete"] as const;

/** `group/version` → group ("" for the core group). */
function groupOf(apiVersion: string): string {
  return apiVersion.includes("/") ? (apiVersion.split("/")[0] ?? "") : "";
}

/**
 * The objects the kinds emit, by API group: their plurals and the kinds emitting them. Every one is
 * written by server-side apply, read back, watched (every one, by the owned-by label) and deleted when no
 * longer desired.
 */
function emittedResources(registry: Registry): Map<string, { plurals: string[]; by: string[] }> {
  const byGroup = new Map<string, { plurals: string[]; by: string[] }>();
  for (const module of registry.kinds) {
    // A workload release is no API object: what its chart renders has a rule of its own.
    for (const emitted of module.emits.filter((e) => !isWorkloadRelease(e))) {
      const group = groupOf(emitted.apiVersion);
      const entry = byGroup.get(group) ?? { plurals: [], by: [] };
      if (!entry.plurals.includes(emitted.plural)) entry.plurals.push(emitted.plural);
      if (!entry.by.includes(module.definition.kind)) entry.by.push(module.definition.kind);
      byGroup.set(group, entry);
    }
  }
  return byGroup;
}

/** The kinds the kinds read but never emit (`readsKinds`), by API group: their plurals and the kinds reading them. */
function readResources(registry: Registry): Map<string, { plurals: string[]; by: string[] }> {
  const byGroup = new Map<string, { plurals: string[]; by: string[] }>();
  for (const module of registry.kinds) {
    for (const read of module.readsKinds ?? []) {
      const group = groupOf(read.apiVersion);
      const entry = byGroup.get(group) ?? { plurals: [], by: [] };
      if (!entry.plurals.includes(read.plural)) entry.plurals.push(read.plural);
      if (!entry.by.includes(module.definition.kind)) entry.by.push(module.definition.kind);
      byGroup.set(group, entry);
    }
  }
  return byGroup;
}

/**
 * The kinds the capability charts of the catalog render with the catalog's values (cert-manager
 * v1.21.1, cloudnative-pg 0.29.0, redis-operator 0.26.1, litellm-operator 0.23.0, clickhouse-operator-helm 0.0.7,
 * mongodb-kubernetes 1.9.1, external-secrets 2.9.0, sealed-secrets 2.18.5: docs/adr/0024-operator-rbac.md), by API group,
 * except CRDs and RBAC objects, which have rules of their own. helm creates, reads, patches and deletes
 * them, waits on them (list and watch) and the installer dry-runs each one first.
 */
export const CAPABILITY_CHART_RESOURCES: ReadonlyMap<string, readonly string[]> = new Map([
  ["", ["configmaps", "secrets", "serviceaccounts", "services"]],
  ["apps", ["deployments"]],
  // cert-manager's startupapicheck: a post-install hook Job.
  ["batch", ["jobs"]],
  ["admissionregistration.k8s.io", ["mutatingwebhookconfigurations", "validatingwebhookconfigurations"]],
  // The ClickHouse operator's chart: the self-signed Issuer and the Certificates of its webhook and metrics servers.
  ["cert-manager.io", ["certificates", "issuers"]],
]);

/**
 * The kinds the workload charts of the catalog render with the values the kinds set, by API group:
 * meilisearch 0.34.0, a StatefulSet, its Service, ServiceAccount and environment ConfigMap
 * (docs/meilisearch.md); langfuse 2.0.0, the web and worker Deployments with a PodDisruptionBudget each,
 * the web Service, a ServiceAccount and the Secret of its session secret (docs/observability.md); librechat
 * 2.0.8, a Deployment, its Service and ServiceAccount, two ConfigMaps and the claim of its images
 * (docs/chat-ui.md).
 */
export const WORKLOAD_CHART_RESOURCES: ReadonlyMap<string, readonly string[]> = new Map([
  ["", ["configmaps", "persistentvolumeclaims", "secrets", "serviceaccounts", "services"]],
  ["apps", ["deployments", "statefulsets"]],
  ["policy", ["poddisruptionbudgets"]],
]);

/** The RBAC kinds the capability charts render: the controllers' own roles and their bindings. */
const RBAC_RESOURCES = ["clusterroles", "clusterrolebindings", "roles", "rolebindings"] as const;

/**
 * The operator's ClusterRole, rule by rule, derived from the registry (its own kinds, what they emit)
 * and the capability catalog. The one place both the NaviqueOperator construct and the chart render.
 */
export function operatorClusterRules(registry: Registry = REGISTRY): OperatorRule[] {
  const definitions = allDefinitions(registry);
  const reconciled = registry.kinds.map((m) => m.definition.plural);
  const emitted = [...emittedResources(registry)].sort(([a], [b]) => a.localeCompare(b));
  const read = [...readResources(registry)].sort(([a], [b]) => a.localeCompare(b));
  return [
    {
      apiGroups: [API_GROUP],
      resources: [...reconciled, registry.grants.plural, registry.singleton.definition.plural],
      verbs: [...READ],
      why: "Its own kinds: watched (one informer per kind) and read at the start of each pass; ReferenceGrants and the License are only read.",
    },
    {
      apiGroups: [API_GROUP],
      resources: reconciled,
      verbs: ["create", "patch", "delete"],
      why: "Its finalizer, added and removed by patch; a Stack's members, applied (PATCH, creating them) and deleted when no longer desired.",
    },
    {
      apiGroups: [API_GROUP],
      resources: [...reconciled, registry.singleton.definition.plural].map((p) => `${p}/status`),
      verbs: ["patch"],
      why: "The status (conditions, capabilities, emitted objects) each pass writes, and the License's.",
    },
    {
      apiGroups: [API_GROUP],
      resources: reconciled.map((p) => `${p}/finalizers`),
      verbs: ["update"],
      why: "Emitted objects name their resource as owner with blockOwnerDeletion, which a cluster enforcing the OwnerReferencesPermissionEnforcement admission plugin allows only to whoever may update the owner's finalizers.",
    },
    ...emitted.map(([group, { plurals, by }]) => ({
      apiGroups: [group],
      resources: [...plurals].sort(),
      verbs: [...WRITE],
      why: `Emitted by ${by.join(", ")} in their namespaces: server-side applied, read back, watched, deleted when no longer desired${group === "" ? "; a Secret a resource references (connection, adopted credentials) is read" : ""}.`,
    })),
    ...read.map(([group, { plurals, by }]) => ({
      apiGroups: [group],
      resources: [...plurals].sort(),
      verbs: ["get"],
      why: `Read by ${by.join(", ")}, named in their specs and never written: only got, by name.`,
    })),
    ...[...CAPABILITY_CHART_RESOURCES].map(([group, plurals]) => ({
      apiGroups: [group],
      resources: [...plurals],
      verbs: [...WRITE],
      why: "What the capability charts render (and helm's release records, Secrets in the release namespace): dry-run applied, then installed, upgraded, waited on and uninstalled by helm; Deployments are also listed cluster-wide to find a controller installed by someone else.",
    })),
    ...[...WORKLOAD_CHART_RESOURCES].map(([group, plurals]) => ({
      apiGroups: [group],
      resources: [...plurals],
      verbs: [...WRITE],
      why: "What the workload charts render in the resources' namespaces (and helm's release records there): installed, upgraded and uninstalled by helm, one release per resource; the rendered Deployments and StatefulSets are read for readiness.",
    })),
    {
      apiGroups: ["apps"],
      resources: ["statefulsets"],
      verbs: [...READ],
      why: "A managed RedisInstance's readiness is its StatefulSet's (written by the redis operator); a capability controller may be a StatefulSet.",
    },
    {
      apiGroups: [""],
      resources: ["namespaces"],
      verbs: ["get", "create"],
      why: "The system namespace (its install locks) and each capability's release namespace, created when missing.",
    },
    {
      apiGroups: [""],
      resources: ["namespaces"],
      verbs: ["patch"],
      resourceNames: [...new Set([...CATALOG.values()].map((entry) => entry.release.namespace))],
      why: "Only the capabilities' release namespaces: helm's --create-namespace applies the namespace server-side even when it exists.",
    },
    {
      apiGroups: ["events.k8s.io"],
      resources: ["events"],
      verbs: ["create"],
      why: "Events about its resources, as kubectl describe shows them; each is created once, never updated.",
    },
    {
      apiGroups: ["apiextensions.k8s.io"],
      resources: ["customresourcedefinitions"],
      verbs: [...READ],
      why: "Which CRDs exist (capability detection lists their names) and whether they are Established.",
    },
    {
      apiGroups: ["apiextensions.k8s.io"],
      resources: ["customresourcedefinitions"],
      verbs: ["create", "update", "patch"],
      resourceNames: [...definitions.map((d) => `${d.plural}.${API_GROUP}`), ...catalogCrdNames()],
      why: "Only the CRDs it owns, each by name: its own (applied at start) and the catalog's capability CRDs (server-side applied by helm, which names the object even when it creates it; orphans stamped with helm's marks). It deletes none.",
    },
    {
      apiGroups: ["rbac.authorization.k8s.io"],
      resources: [...RBAC_RESOURCES],
      verbs: [...WRITE],
      why: "The capability controllers' own ClusterRoles, Roles and their bindings, installed, upgraded and uninstalled by helm.",
    },
    {
      apiGroups: ["rbac.authorization.k8s.io"],
      resources: ["clusterroles", "roles"],
      verbs: ["escalate", "bind"],
      why: "The broad part (docs/adr/0024-operator-rbac.md): the charts grant their controllers permissions the operator does not hold (pods, pods/exec, leases, webhooks' own rules…), which Kubernetes allows only a subject that holds them all or may escalate and bind.",
    },
  ];
}

/** The system namespace's rules: the install locks, one Lease per capability, and the leader Lease. */
export function operatorSystemNamespaceRules(): OperatorRule[] {
  return [
    {
      apiGroups: ["coordination.k8s.io"],
      resources: ["leases"],
      verbs: ["get", "create", "update", "delete"],
      why: "The capability install locks (docs/adr/0007-install-lock.md): a Lease per capability, taken, renewed and released; and the leader Lease the replicas elect their leader on (docs/adr/0027-leader-election.md): created, read, renewed and released by update.",
    },
  ];
}

/** The rules as RBAC stores them. */
export function policyRules(rules: readonly OperatorRule[]): PolicyRule[] {
  return rules.map(({ why: _why, ...rule }) => rule);
}

/** Every CRD the catalog's charts ship. */
function catalogCrdNames(): string[] {
  return [...CATALOG.values()].flatMap((entry) => entry.crds.names);
}
