import { API_GROUP } from "../api/group.js";
import type { CapabilityEntry } from "../catalog/capability.js";
import { CATALOG, WORKLOADS } from "../catalog/catalog.js";
import { CHART_KINDS, type ChartKind } from "../catalog/chart-objects.js";
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
/**
 * What helm v4 does to an object it names: reads it before writing, applies it server-side — a PATCH to the
 * object's path, which the apiserver authorizes as `create` with the object's name when it does not exist
 * yet (pkg/kube/client.go `makeCreateApplyFunc`, hooks included) — and deletes it at uninstall.
 */
const NAMED_WRITE = ["get", "create", "patch", "delete"] as const;
/**
 * What helm v4's wait needs of every kind of a release: its status watcher (fluxcd cli-utils, kstatus)
 * lists and watches each kind without naming an object, and gives up on a Forbidden list.
 */
const WAITED = ["list", "watch"] as const;

/**
 * The kinds the workload charts of the catalog render with the values the kinds set, by API group:
 * meilisearch 0.34.0, a StatefulSet, its Service, ServiceAccount and environment ConfigMap
 * (docs/meilisearch.md); langfuse 2.0.0, the web and worker Deployments with a PodDisruptionBudget each,
 * the web Service, a ServiceAccount and the Secret of its session secret (docs/observability.md); librechat
 * 2.0.8, a Deployment, its Service and ServiceAccount, two ConfigMaps and the claim of its images
 * (docs/chat-ui.md). Their objects are named after the resource: no rule can name them.
 */
export const WORKLOAD_CHART_RESOURCES: ReadonlyMap<string, readonly string[]> = new Map([
  ["", ["configmaps", "persistentvolumeclaims", "secrets", "serviceaccounts", "services"]],
  ["apps", ["deployments", "statefulsets"]],
  ["policy", ["poddisruptionbudgets"]],
]);

/**
 * What capability detection reads besides the release records (lib/capabilities/observe.ts), by API group:
 * the Deployments and StatefulSets of the cluster, listed by label and by image to find a controller
 * installed by someone else; a managed RedisInstance's readiness is also its StatefulSet's.
 */
const DETECTION_RESOURCES: ReadonlyMap<string, readonly string[]> = new Map([
  ["apps", ["deployments", "statefulsets"]],
]);

/** Kubernetes' privilege escalation prevention, which `escalate` and `bind` answer. */
const ESCALATION_CHECK =
  "Kubernetes lets a subject write a role only if it holds every permission the role grants or may escalate that role, and bind a role only if it holds them or may bind that role.";

/** By API group, by plural: who needs the kind (kinds or charts, in the order met). */
type Needs = Map<string, Map<string, string[]>>;

function need(needs: Needs, group: string, plural: string, who: string): void {
  const plurals = needs.get(group) ?? new Map<string, string[]>();
  const by = plurals.get(plural) ?? [];
  if (!by.includes(who)) by.push(who);
  plurals.set(plural, by);
  needs.set(group, plurals);
}

/** `group/version` → group ("" for the core group). */
function groupOf(apiVersion: string): string {
  return apiVersion.includes("/") ? (apiVersion.split("/")[0] ?? "") : "";
}

/**
 * The objects the kinds emit: every one is written by server-side apply, read back, watched (every one,
 * by the owned-by label) and deleted when no longer desired. Who: the emitting kinds.
 */
function emittedResources(registry: Registry): Needs {
  const needs: Needs = new Map();
  const reconciled = registry.kinds.map((m) => m.definition.plural);
  for (const module of registry.kinds) {
    for (const emitted of module.emits) {
      const group = groupOf(emitted.apiVersion);
      // A workload release is no API object: what its chart renders has a rule of its own. A Stack's
      // members are the product's own kinds, which the rules of its kinds already let it apply and delete.
      if (isWorkloadRelease(emitted) || (group === API_GROUP && reconciled.includes(emitted.plural))) continue;
      need(needs, group, emitted.plural, module.definition.kind);
    }
  }
  return needs;
}

/** The kinds the kinds read but never emit (`readsKinds`). Who: the reading kinds. */
function readResources(registry: Registry): Needs {
  const needs: Needs = new Map();
  for (const module of registry.kinds) {
    for (const read of module.readsKinds ?? [])
      need(needs, groupOf(read.apiVersion), read.plural, module.definition.kind);
  }
  return needs;
}

/** By API group, by plural: the objects' names the capability charts render, and the charts rendering them. */
type ChartedObjects = ReadonlyMap<string, ReadonlyMap<string, { names: string[]; charts: string[] }>>;

/** What the capability charts render (`renders` of each entry). */
function capabilityChartObjects(catalog: ReadonlyMap<string, CapabilityEntry>): ChartedObjects {
  const objects = new Map<string, Map<string, { names: string[]; charts: string[] }>>();
  for (const entry of catalog.values()) {
    for (const [kind, names] of Object.entries(entry.renders) as [ChartKind, string[]][]) {
      const { group, plural } = CHART_KINDS[kind];
      const plurals = objects.get(group) ?? new Map<string, { names: string[]; charts: string[] }>();
      const found = plurals.get(plural) ?? { names: [], charts: [] };
      for (const name of names) if (!found.names.includes(name)) found.names.push(name);
      if (!found.charts.includes(entry.name)) found.charts.push(entry.name);
      plurals.set(plural, found);
      objects.set(group, plurals);
    }
  }
  return objects;
}

function sortedGroups<T>(map: ReadonlyMap<string, T>): [string, T][] {
  return [...map].sort(([a], [b]) => a.localeCompare(b));
}

/** `plural, plural by Kind, Kind` for each set of emitting kinds, in the order met. */
function byEmitters(emitted: readonly (readonly [string, readonly string[]])[]): string[] {
  const plurals = new Map<string, string[]>();
  for (const [plural, kinds] of emitted) plurals.set(list(kinds), [...(plurals.get(list(kinds)) ?? []), plural]);
  return [...plurals].map(([kinds, emittedPlurals]) => `${list(emittedPlurals)} by ${kinds}`);
}

/** `text` with its first letter capitalised: a reason assembled from clauses reads as a sentence. */
function sentence(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function list(items: readonly string[]): string {
  return items.join(", ");
}

/** What the rules are derived from: what the kinds emit, what the capability charts render. */
interface Sources {
  readonly emitted: Needs;
  readonly charted: ChartedObjects;
  readonly workloadCharts: string;
}

/**
 * Whether objects of a kind are written under names the users choose — a resource emits it, or a workload
 * chart renders it, named after the resource — rather than only under the capability charts' names.
 */
function isShared(sources: Sources, group: string, plural: string): boolean {
  return (
    sources.emitted.get(group)?.has(plural) === true || (WORKLOAD_CHART_RESOURCES.get(group) ?? []).includes(plural)
  );
}

/**
 * The written kinds of one API group, in one rule: what the kinds emit, what the workload charts render and
 * what the capability charts render of the same kinds; undefined when the group has none.
 */
function writtenRule(sources: Sources, group: string): OperatorRule | undefined {
  const emitters = [...(sources.emitted.get(group) ?? [])];
  const workload = [...(WORKLOAD_CHART_RESOURCES.get(group) ?? [])];
  const charted = [...(sources.charted.get(group) ?? [])].filter(([plural]) => isShared(sources, group, plural));
  const charts = [...new Set(charted.flatMap(([, { charts: c }]) => c))];
  const detected = (DETECTION_RESOURCES.get(group) ?? []).filter((plural) => isShared(sources, group, plural));
  const plurals = new Set([...emitters.map(([plural]) => plural), ...workload, ...charted.map(([p]) => p)]);
  // Secrets have a rule of their own, with every reason the operator touches them.
  if (group === "") plurals.delete("secrets");
  if (plurals.size === 0) return undefined;
  const only = (items: readonly string[]) => items.filter((p) => plurals.has(p)).sort();
  const emittedHere = emitters.filter(([plural]) => plurals.has(plural)).sort(([a], [b]) => a.localeCompare(b));
  const reasons = [
    emittedHere.length > 0
      ? `emitted in the resources' namespaces — ${list(byEmitters(emittedHere))} — server-side applied, read back, watched by the owned-by label, deleted when no longer desired`
      : "",
    only(workload).length > 0
      ? `${list(only(workload))} rendered by the workload charts (${sources.workloadCharts}) in the resources' namespaces, one helm release per resource, installed, upgraded and uninstalled`
      : "",
    charted.length > 0
      ? `${list(only(charted.map(([p]) => p)))} rendered by the capability charts (${list(charts)}) in their release namespaces, read and dry-run applied first, then installed, upgraded, waited on and uninstalled by helm`
      : "",
    detected.length > 0
      ? `${list(detected)} listed cluster-wide by capability detection, to find a controller installed by someone else, and a managed RedisInstance's StatefulSet read for its readiness`
      : "",
  ].filter((reason) => reason !== "");
  return {
    apiGroups: [group],
    resources: [...plurals].sort(),
    verbs: [...WRITE],
    why: `${sentence(reasons.join("; "))}.`,
  };
}

/** What detection reads that nothing writes under a user's names (none today: both are written). */
function detectionOnlyRules(sources: Sources): OperatorRule[] {
  return sortedGroups(DETECTION_RESOURCES)
    .map(([group, plurals]) => [group, plurals.filter((plural) => !isShared(sources, group, plural))] as const)
    .filter(([, plurals]) => plurals.length > 0)
    .map(([group, plurals]) => ({
      apiGroups: [group],
      resources: [...plurals],
      verbs: [...READ],
      why: "Listed cluster-wide by capability detection, to find a controller installed by someone else.",
    }));
}

/**
 * Secrets, in a rule of their own: every part of the operator touches them, in every namespace a resource
 * may be in, which is why the rule cannot be narrower (docs/adr/0024-operator-rbac.md).
 */
function secretsRule(sources: Sources): OperatorRule {
  const emitters = [...(sources.emitted.get("")?.get("secrets") ?? [])];
  const charts = sources.charted.get("")?.get("secrets")?.charts ?? [];
  return {
    apiGroups: [""],
    resources: ["secrets"],
    verbs: [...WRITE],
    why: [
      `In every namespace a resource may be in (every namespace unless --watch-namespaces) and in the capabilities' release namespaces: the Secrets emitted by ${list(emitters)} (generated credentials created once, connection Secrets applied, watched by the owned-by label, deleted when no longer desired)`,
      "a Secret a resource references read (an external datastore's connection, an adopted one's credentials, the Secret a claim copies from)",
      "every Secret of the namespaces served watched in metadata only, to tell when one a pass read changed",
      `helm's release records: those of the capabilities listed and watched (metadata only) in their release namespaces, those of the workload releases (${sources.workloadCharts}) watched by the owned-by label in the resources' namespaces, written by helm (created, updated, deleted) wherever it installs, and those of the release an existing object names listed to tell whether it lives`,
      ...(charts.length > 0 ? [`rendered by the capability charts (${list(charts)})`] : []),
      `rendered by the workload charts (${sources.workloadCharts}), and those a chart keeps after uninstall deleted with the release.`,
    ].join("; "),
  };
}

/** The kinds the kinds only read, each got by the name a spec gives. */
function readRules(registry: Registry): OperatorRule[] {
  return sortedGroups(readResources(registry)).map(([group, plurals]) => ({
    apiGroups: [group],
    resources: [...plurals.keys()].sort(),
    verbs: ["get"],
    why: `Read by ${list([...new Set([...plurals.values()].flat())])}, named in their specs and never written: only got, by name.`,
  }));
}

/**
 * The kinds only the capability charts render (webhook configurations, ClusterRoles and their bindings, a
 * hook's Job, cert-manager objects): written only under the names the charts give them, and listed and
 * watched, which RBAC cannot limit by name, for helm's wait.
 */
function namedRules(sources: Sources): OperatorRule[] {
  return sortedGroups(sources.charted).flatMap(([group, plurals]): OperatorRule[] => {
    const onlyCharted = [...plurals]
      .filter(([plural]) => !isShared(sources, group, plural))
      .sort(([a], [b]) => a.localeCompare(b));
    if (onlyCharted.length === 0) return [];
    return [
      {
        apiGroups: [group],
        resources: onlyCharted.map(([plural]) => plural),
        verbs: [...WAITED],
        why: "Listed and watched by helm's wait on the capability charts' releases (install and uninstall), which cannot name an object; nothing else lists them.",
      },
      ...onlyCharted.map(([plural, { names, charts }]) => ({
        apiGroups: [group],
        resources: [plural],
        verbs: [...NAMED_WRITE],
        resourceNames: [...names].sort(),
        why: `Only those the capability charts render, by name (${list(charts)}): read and dry-run applied first, then applied server-side by helm, which names the object even when it creates it, and deleted at uninstall.`,
      })),
    ];
  });
}

/**
 * The operator's ClusterRole, rule by rule, derived from the registry (its own kinds, what they emit and
 * read) and the catalog (its CRD names, what its capability charts render). The one place both the
 * NaviqueOperator construct and the chart render. One rule per API group and verb set: a kind several
 * parts need is granted once, its reason naming each of them.
 */
export function operatorClusterRules(
  registry: Registry = REGISTRY,
  catalog: ReadonlyMap<string, CapabilityEntry> = CATALOG,
): OperatorRule[] {
  const definitions = allDefinitions(registry);
  const reconciled = registry.kinds.map((m) => m.definition.plural);
  const sources: Sources = {
    emitted: emittedResources(registry),
    charted: capabilityChartObjects(catalog),
    workloadCharts: list([...WORKLOADS.keys()]),
  };
  const groups = new Set([...sources.emitted.keys(), ...WORKLOAD_CHART_RESOURCES.keys(), ...sources.charted.keys()]);
  const written = [...groups]
    .sort((a, b) => a.localeCompare(b))
    .map((group) => writtenRule(sources, group))
    .filter((rule): rule is OperatorRule => rule !== undefined);
  return [
    {
      apiGroups: [API_GROUP],
      resources: [
        ...reconciled,
        registry.grants.plural,
        registry.singleton.definition.plural,
        registry.managementPlane.definition.plural,
      ],
      verbs: [...READ],
      why: "Its own kinds: watched (one informer per kind) and read at the start of each pass; ReferenceGrants, the License and the ManagementPlane are only read (the console reads them all).",
    },
    {
      apiGroups: [API_GROUP],
      resources: reconciled,
      verbs: ["create", "patch", "delete"],
      why: "Its finalizer, added and removed by patch; a Stack's members, applied (PATCH, creating them) and deleted when no longer desired.",
    },
    {
      apiGroups: [API_GROUP],
      resources: [...reconciled, registry.singleton.definition.plural, registry.managementPlane.definition.plural].map(
        (p) => `${p}/status`,
      ),
      verbs: ["patch"],
      why: "The status (conditions, capabilities, emitted objects) each pass writes, the License's, and the ManagementPlane's (whether the console is served).",
    },
    {
      apiGroups: [API_GROUP],
      resources: reconciled.map((p) => `${p}/finalizers`),
      verbs: ["update"],
      why: "Emitted objects name their resource as owner with blockOwnerDeletion, which a cluster enforcing the OwnerReferencesPermissionEnforcement admission plugin allows only to whoever may update the owner's finalizers.",
    },
    ...written,
    secretsRule(sources),
    ...detectionOnlyRules(sources),
    ...readRules(registry),
    ...namedRules(sources),
    ...escalateAndBind(sources),
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
      resourceNames: [...new Set([...catalog.values()].map((entry) => entry.release.namespace))],
      why: "Only the capabilities' release namespaces: helm's --create-namespace applies the namespace server-side even when it exists.",
    },
    {
      apiGroups: ["events.k8s.io"],
      resources: ["events"],
      verbs: ["create", "list"],
      why: "Events about its resources, as kubectl describe shows them; each is created once, never updated. Listed by the console's Events page, which shows those the operator recorded.",
    },
    {
      apiGroups: [""],
      resources: ["nodes"],
      verbs: ["list"],
      why: "The console's overview says how many of the cluster's nodes are Ready, as navique status does.",
    },
    {
      apiGroups: ["authentication.k8s.io"],
      resources: ["tokenreviews"],
      verbs: ["create"],
      why: "The console authenticates each bearer token it is given by a TokenReview, as kube-rbac-proxy and metrics-server do (system:auth-delegator's first rule).",
    },
    {
      apiGroups: ["authorization.k8s.io"],
      resources: ["subjectaccessreviews"],
      verbs: ["create"],
      why: "The console asks, by a SubjectAccessReview, whether the token's user may get the ManagementPlane before it shows a page (system:auth-delegator's second rule).",
    },
    {
      apiGroups: ["apiextensions.k8s.io"],
      resources: ["customresourcedefinitions"],
      verbs: [...READ],
      why: "Which CRDs exist (capability detection lists their names) and whether they are Established; helm's wait lists and watches the charts' CRDs too.",
    },
    {
      apiGroups: ["apiextensions.k8s.io"],
      resources: ["customresourcedefinitions"],
      verbs: ["create", "update", "patch"],
      resourceNames: [
        ...definitions.map((d) => `${d.plural}.${API_GROUP}`),
        ...[...catalog.values()].flatMap((entry) => entry.crds.names),
      ],
      why: "Only the CRDs it owns, each by name: its own (applied at start) and the catalog's capability CRDs (server-side applied by helm, which names the object even when it creates it; orphans stamped with helm's marks). It deletes none.",
    },
  ];
}

/**
 * `escalate` and `bind` on the roles the charts render, and on those a kind emits: by name where only the
 * charts make them, unnamed where a kind makes them under its resource's name.
 */
function escalateAndBind({ emitted, charted }: Sources): OperatorRule[] {
  const group = "rbac.authorization.k8s.io";
  return ["clusterroles", "roles"].flatMap((plural): OperatorRule[] => {
    const emitters = emitted.get(group)?.get(plural);
    const fromCharts = charted.get(group)?.get(plural);
    if (emitters) {
      return [
        {
          apiGroups: [group],
          resources: [plural],
          verbs: ["escalate", "bind"],
          why: `The broad part (docs/adr/0024-operator-rbac.md): the ${plural} ${list(emitters)} emits, named after its resource (so by no name a rule could list), and those the capability charts render grant permissions the operator does not hold; ${ESCALATION_CHECK}`,
        },
      ];
    }
    if (!fromCharts) return [];
    return [
      {
        apiGroups: [group],
        resources: [plural],
        verbs: ["escalate", "bind"],
        resourceNames: [...fromCharts.names].sort(),
        why: `The broad part, by name (docs/adr/0024-operator-rbac.md): the ${plural} the capability charts render (${list(fromCharts.charts)}) grant their controllers permissions the operator does not hold; ${ESCALATION_CHECK}`,
      },
    ];
  });
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
