import { VersionApi } from "@kubernetes/client-node";
import pMap from "p-map";
import * as z from "zod";
import { Condition, READY, stalledOf } from "../api/conditions.js";
import { API_GROUP, API_VERSION } from "../api/group.js";
import { CapabilityStatus } from "../api/resource-status.js";
import { observeCapability } from "../capabilities/observe.js";
import { decideCapability } from "../capabilities/provenance.js";
import type { CapabilityEntry } from "../catalog/capability.js";
import { CATALOG, withPrerequisites } from "../catalog/catalog.js";
import { type KubeClient, statusOf } from "../cluster/kube-client.js";
import { nodeReadiness } from "../cluster/node-readiness.js";
import { servedResources } from "../cluster/served-resources.js";
import { cappedKind, wasAdmitted } from "../engine/admission.js";
import { neededNow } from "../engine/capabilities.js";
import { dependenciesOf } from "../engine/dependencies.js";
import type { EngineResource, KindModule } from "../engine/kind-module.js";
import { listResources } from "../engine/observe.js";
import { allDefinitions, REGISTRY, type Registry } from "../kinds/registry.js";
import { LICENSED, type LicenceRefusal } from "../licence/enforce.js";
import type { Entitlements } from "../licence/entitlements.js";
import { resolveEntitlements } from "../licence/resolve.js";
import { readLicense } from "../observe/license.js";
import {
  type CapabilityState,
  type CapUse,
  type ClusterState,
  type LicenceState,
  NOT_RECONCILED,
  type ResourceReference,
  type ResourceState,
  STATUS_REPORT_VERSION,
  type StatusReport,
} from "../reports/status-report.js";
import { readOperator } from "./read-operator.js";

/** What a status report is read with. */
export interface StatusOptions {
  /** Only the resources of this namespace; undefined: every one. Capabilities, caps and the licence are the cluster's. */
  readonly namespace?: string;
  /** The moment the licence is judged at, and the report says it was read. */
  readonly now: Date;
  /** The keys a licence may be signed with. @default the product's (TRUSTED_KEYS) */
  readonly trustedKeys?: ReadonlyMap<string, string>;
  /** @default REGISTRY */
  readonly registry?: Registry;
  /** @default CATALOG */
  readonly catalog?: ReadonlyMap<string, CapabilityEntry>;
}

/** The reason of a resource the cap refused, as the licence's refusal says it (lib/licence/enforce.ts). */
const CAP_REFUSAL: LicenceRefusal["reason"] = "InstanceCapExceeded";

/**
 * What the report reads of a stored resource of the product, whatever its spec holds: the metadata that
 * names it and the status the engine wrote. Its spec is judged by its kind's schema, apart: a resource
 * the schema refuses is still reported, with the condition that says why.
 */
const StoredResource = z
  .object({
    metadata: z
      .object({
        name: z.string(),
        namespace: z.string(),
        generation: z.number().optional(),
        deletionTimestamp: z.string().optional(),
      })
      .loose(),
    status: z
      .object({
        observedGeneration: z.number().optional(),
        conditions: z.array(z.unknown()).optional(),
        capabilities: z.array(z.unknown()).optional(),
      })
      .loose()
      .optional(),
  })
  .loose();

/** Every resource of one kind as stored, every namespace; none while the kind is not served (its CRD missing). */
async function listStoredObjects(client: KubeClient, module: KindModule): Promise<unknown[]> {
  try {
    const list = (await client.custom.listClusterCustomObject({
      group: API_GROUP,
      version: API_VERSION,
      plural: module.definition.plural,
    })) as { items?: unknown[] };
    return list.items ?? [];
  } catch (error) {
    if (statusOf(error) === 404) return [];
    throw error;
  }
}

/** The items of `list` that `schema` accepts; the others left out. */
function valid<T>(schema: z.ZodType<T>, list: readonly unknown[] | undefined): T[] {
  return (list ?? []).flatMap((item) => {
    const parsed = schema.safeParse(item);
    return parsed.success ? [parsed.data] : [];
  });
}

/** One stored resource as the report says it: its Ready condition, and what its kind says it depends on and needs. */
function resourceState(
  module: KindModule,
  raw: unknown,
  catalog: ReadonlyMap<string, CapabilityEntry>,
): ResourceState | undefined {
  const stored = StoredResource.safeParse(raw);
  if (!stored.success) return undefined;
  const { metadata, status } = stored.data;
  const conditions = valid(Condition, status?.conditions);
  const ready = conditions.find((c) => c.type === READY);
  const resource = module.schema.safeParse(raw);
  const engineResource: EngineResource | undefined = resource.success ? resource.data : undefined;
  return {
    kind: module.definition.kind,
    namespace: metadata.namespace,
    name: metadata.name,
    ready: ready?.status ?? "Unknown",
    reason: ready?.reason ?? NOT_RECONCILED,
    message:
      ready?.message ??
      "it has no Ready condition yet: no pass of the operator has written its status (is the operator running? navique doctor says)",
    stalled: stalledOf(conditions) !== undefined,
    current: (status?.observedGeneration ?? 0) === (metadata.generation ?? 0),
    deleting: metadata.deletionTimestamp !== undefined,
    conditions,
    dependsOn: engineResource
      ? dependenciesOf(module, engineResource).map((d) => ({
          kind: d.kind,
          namespace: d.namespace,
          name: d.name,
          field: d.field,
        }))
      : [],
    needs: engineResource
      ? neededNow(module, engineResource, { withPrerequisites: (name) => withPrerequisites(name, catalog) })
      : [],
    capabilities: valid(CapabilityStatus, status?.capabilities),
  };
}

/** One capability as the engine detects it, installing nothing: the very functions a reconcile and a plan call. */
async function capabilityState(
  client: KubeClient,
  entry: CapabilityEntry,
  resources: readonly ResourceState[],
): Promise<CapabilityState> {
  const decision = decideCapability(entry, await observeCapability(client, entry));
  return {
    name: entry.name,
    state: decision.state,
    evidence: decision.evidence,
    ready: decision.state !== "Absent" && decision.ready,
    waitingFor: [...decision.waitingFor],
    unavailable: [...decision.unavailable],
    release: { namespace: entry.release.namespace, name: entry.release.name },
    ...(decision.chartVersion ? { chartVersion: decision.chartVersion } : {}),
    pinnedVersion: entry.chart.version,
    usedBy: resources.filter((r) => r.needs.includes(entry.name)).map(reference),
  };
}

function reference(resource: ResourceReference): ResourceReference {
  return { kind: resource.kind, namespace: resource.namespace, name: resource.name };
}

const DAY_MS = 86_400_000;

/** The licence in force and each kind's instances against its cap, counted as the cap counts them. */
async function licenceState(
  client: KubeClient,
  registry: Registry,
  resources: readonly ResourceState[],
  options: StatusOptions,
): Promise<LicenceState> {
  const stored = await readLicense(client);
  const entitlements: Entitlements = resolveEntitlements(stored?.spec?.token, {
    now: options.now,
    ...(options.trustedKeys ? { trustedKeys: options.trustedKeys } : {}),
  });
  const caps: CapUse[] = await Promise.all(
    registry.kinds.map(async (module) => {
      const kind = module.definition.kind;
      // The cap's own count: the kind's resources as the engine lists them (lib/engine/observe.ts).
      const instances = await listResources(client, module);
      return {
        kind,
        cap: entitlements.caps[cappedKind(kind)],
        instances: instances.length,
        admitted: instances.filter(wasAdmitted).length,
        refused: resources
          .filter((r) => r.kind === kind)
          .filter((r) =>
            r.conditions.some((c) => c.type === LICENSED && c.status === "False" && c.reason === CAP_REFUSAL),
          )
          .map(reference),
      };
    }),
  );
  const expiresAt = entitlements.expiresAt;
  return {
    stored: stored !== undefined,
    edition: entitlements.edition,
    ...(entitlements.licenseId ? { licenseId: entitlements.licenseId } : {}),
    ...(expiresAt
      ? {
          expiresAt: expiresAt.toISOString(),
          daysLeft: Math.floor((expiresAt.getTime() - options.now.getTime()) / DAY_MS),
        }
      : {}),
    ...(entitlements.reason ? { reason: entitlements.reason } : {}),
    features: [...entitlements.features],
    caps,
  };
}

/** The cluster: its API server, version, Ready nodes, and which of the product's CRDs it serves. */
async function clusterState(client: KubeClient, registry: Registry): Promise<ClusterState> {
  const expected = allDefinitions(registry).map((d) => `${d.plural}.${API_GROUP}`);
  const [version, nodes, served] = await Promise.all([
    client.kubeconfig
      .makeApiClient(VersionApi)
      .getCode()
      .then(
        (v) => v.gitVersion,
        () => undefined,
      ),
    nodeReadiness(client.core),
    servedResources(client, [API_GROUP]),
  ]);
  return {
    server: client.kubeconfig.getCurrentCluster()?.server ?? "",
    ...(version ? { kubernetesVersion: version } : {}),
    nodes,
    crds: { expected, missing: expected.filter((name) => !served.has(name)) },
  };
}

/** How resources are listed: by kind in the registry's order, then namespace and name. */
function byKindThenName(order: readonly string[]) {
  return (a: ResourceState, b: ResourceState) =>
    order.indexOf(a.kind) - order.indexOf(b.kind) ||
    a.namespace.localeCompare(b.namespace) ||
    a.name.localeCompare(b.name);
}

/** How many capabilities are detected at once: each is a few requests. */
const DETECTION_CONCURRENCY = 4;

/**
 * Reads `navique status`'s report from the cluster, changing nothing: the cluster and the operator, every
 * resource of the registry's kinds with its Ready condition, every capability of the catalog as the
 * engine detects it (observeCapability, decideCapability: what a reconcile and a plan run), and the
 * licence resolved as the operator resolves it, with each kind's instances against its cap. Give it a
 * client that reads each thing once (`readOnce`): the caps' count and the report's listing are then one
 * request per kind.
 */
export async function readStatus(client: KubeClient, options: StatusOptions): Promise<StatusReport> {
  const registry = options.registry ?? REGISTRY;
  const catalog = options.catalog ?? CATALOG;
  const [cluster, operator, stored] = await Promise.all([
    clusterState(client, registry),
    readOperator(client, options.now),
    Promise.all(
      registry.kinds.map(async (module) =>
        (await listStoredObjects(client, module)).flatMap((raw) => resourceState(module, raw, catalog) ?? []),
      ),
    ),
  ]);
  const everywhere = stored.flat().sort(byKindThenName(registry.kinds.map((m) => m.definition.kind)));
  const resources = options.namespace ? everywhere.filter((r) => r.namespace === options.namespace) : everywhere;
  const [licence, capabilities] = await Promise.all([
    licenceState(client, registry, everywhere, options),
    pMap([...catalog.values()], (entry) => capabilityState(client, entry, resources), {
      concurrency: DETECTION_CONCURRENCY,
    }),
  ]);
  return {
    version: STATUS_REPORT_VERSION,
    observedAt: options.now.toISOString(),
    namespace: options.namespace ?? null,
    ready: resources.every((r) => r.ready === "True"),
    cluster,
    operator,
    licence,
    capabilities,
    resources,
  };
}
