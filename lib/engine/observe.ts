import type { KubernetesObject } from "@kubernetes/client-node";
import { API_GROUP, API_GROUP_VERSION, API_VERSION } from "../api/group.js";
import type { CapabilityInstaller } from "../capabilities/installer.js";
import type { CapabilityDecision } from "../capabilities/provenance.js";
import type { KubeClient } from "../cluster/kube-client.js";
import { orUndefined } from "../cluster/kube-client.js";
import type { Instance } from "../licence/enforce.js";
import type { Entitlements } from "../licence/entitlements.js";
import { capInstances, observeEntitlements } from "../observe/license.js";
import { listStored } from "../observe/stored.js";
import { instanceOf } from "./admission.js";
import { type CapabilityCatalog, expandNeeds, mayRelease, neededBefore, neededNow } from "./capabilities.js";
import {
  type Claim,
  type ClaimedView,
  claimantKey,
  claimantKinds,
  claimedFromElsewhere,
  claimsOn,
  publishedClaim,
} from "./claims.js";
import { resourceLabel } from "./conditions.js";
import { allReferences, dependenciesOf, wiringOf } from "./dependencies.js";
import { referrerOf } from "./gates.js";
import type { Desired, EngineResource, KindModule, ObservedRead } from "./kind-module.js";
import { type Credentials, decodeCredentials, type KubeObject, keyOf, objectKey } from "./objects.js";
import { observeNamespace } from "./observe-namespace.js";
import { type CachedGrants, observeReferenceGrants } from "./observe-reference-grants.js";
import { observeWorkloadRelease } from "./observe-workload-release.js";
import { grantNamespaces, type ObservedGrant, type Reference, ungrantedReferences } from "./reference-grants.js";
import type { Consumer, EngineView, ObservedView } from "./view.js";
import { isWorkloadRelease } from "./workload-release.js";

/** What observing needs beyond the client: the catalog, the registry (for cross-kind counts), the clock and the keys. */
export interface ObserveOptions extends Pick<CapabilityCatalog, "withPrerequisites"> {
  /** Every kind the engine reconciles: capability consumers are counted over all of them. */
  readonly registry: readonly KindModule[];
  readonly now: Date;
  readonly trustedKeys?: ReadonlyMap<string, string>;
  /**
   * Grants about to be applied together with the resource (`navique plan -f` of a file that declares
   * them), counted as if they were in the cluster already. The operator never passes any.
   */
  readonly pendingGrants?: readonly ObservedGrant[];
  /**
   * Every resource of a kind as the cap sees it, from a cache kept current by watches (the operator's),
   * or undefined when there is none complete: then the kind is listed. Saves a list per decision, which
   * at every resync made the operator's work grow with the square of the number of resources.
   */
  readonly instances?: (kind: string) => CachedInstances | undefined;
  /**
   * Every resource of a kind as stored, from a watch cache kept current (the operator's), or undefined
   * when there is none complete: then the kind is listed. Read for the claims on a resource.
   */
  readonly resources?: (kind: string) => readonly KubernetesObject[] | undefined;
  /** The licence singleton's objects from a watch cache, when one is complete: saves a read per decision. */
  readonly licences?: () => readonly KubernetesObject[] | undefined;
  /**
   * One capability's decision, when something keeps them for a while (a plan run detects each
   * capability once for all its resources); undefined: each resource's observation detects it.
   */
  readonly detect?: (capability: string) => Promise<CapabilityDecision>;
  /**
   * An object as a watch cache kept current holds it (the operator's: every registered kind, and the
   * objects of each emitted kind that carry the owned-by label), or undefined when no complete cache holds
   * it — then it is read. Never taken as proof that an object is absent: an object under a name the
   * product would emit, without its marks, is in no such cache and must still be seen (NameTaken).
   */
  readonly cached?: (key: ObjectKey) => KubeObject | undefined;
  /**
   * A user's Secret the kind reads (`observes`): it carries no mark of the product, so no watch cache holds
   * it. When given, the read goes through it: the operator serves again the copy an earlier pass read while
   * a metadata-only watch shows the Secret unchanged, and re-queues `reader` (the resource's key) when it
   * changes (providers/operator/user-secrets.ts). Without it, the Secret is read.
   */
  readonly userSecret?: (
    key: ObjectKey,
    reader: string,
    read: () => Promise<KubeObject | undefined>,
  ) => Promise<KubeObject | undefined>;
  /**
   * The ReferenceGrants of a namespace as stored, from a watch cache kept current (the operator's), or
   * undefined when none complete holds that namespace: then they are listed. Read for the references a
   * resource holds into other namespaces and for the claims made on it from others. A grant removed
   * leaves the cache before its watch event re-queues the resources it concerned, so the passes that
   * event brings judge without it.
   */
  readonly grants?: CachedGrants;
}

/** Which object: enough to look it up in a cache or read it. */
export interface ObjectKey {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly namespace: string;
}

/** A kind's instances from a watch cache, with their cap order computed once per change (capOrder). */
export interface CachedInstances {
  readonly list: readonly Instance[];
  readonly ahead: (subject: Instance) => number | undefined;
}

/** The cached instances of a kind, this resource's own as it is now (a preview's, not created yet, the newest). */
function withSelf(cached: readonly Instance[], resource: EngineResource, now: Date): Instance[] {
  const self = instanceOf(resource, now.toISOString());
  const others = cached.filter((i) => i.namespace !== self.namespace || i.name !== self.name);
  return [...others, self];
}

/** The cached order for this resource, unless the cache's copy of it differs in what the cap reads (admitted or not). */
function cachedAhead(cached: CachedInstances, resource: EngineResource, now: Date): CachedInstances["ahead"] {
  const self = instanceOf(resource, now.toISOString());
  const known = cached.list.find((i) => i.namespace === self.namespace && i.name === self.name);
  const same = known?.admitted === self.admitted && known.creationTimestamp === self.creationTimestamp;
  return (subject) => (same ? cached.ahead(subject) : undefined);
}

/** A kind's resources, as stored; the listing of every front end and count (caps, consumers). */
export function listResources(client: KubeClient, module: KindModule): Promise<EngineResource[]> {
  return listStored(client, module.definition.plural, module.schema);
}

/** The decisions for every needed capability and its prerequisites, each once, prerequisites first. */
async function capabilityDecisions(
  installer: CapabilityInstaller,
  roots: readonly string[],
  detect: ObserveOptions["detect"],
): Promise<CapabilityDecision[]> {
  const decisions: CapabilityDecision[] = [];
  for (const root of roots) {
    for (const decision of await installer.preview(root, detect)) {
      if (!decisions.some((d) => d.capability === decision.capability)) decisions.push(decision);
    }
  }
  return decisions;
}

/** Every resource of every registered kind with the capabilities it needs now. */
async function consumersOf(client: KubeClient, options: ObserveOptions): Promise<Consumer[]> {
  const lists = await Promise.all(
    options.registry.map(async (module) =>
      (await listResources(client, module)).map((other) => ({
        key: resourceLabel(other),
        needs: neededNow(module, other, options),
      })),
    ),
  );
  return lists.flat().filter((c) => c.needs.length > 0);
}

/** The resources of a kind that parse, from the cache when complete, else listed. */
async function resourcesOf(client: KubeClient, module: KindModule, options: ObserveOptions): Promise<EngineResource[]> {
  const cached = options.resources?.(module.definition.kind);
  if (!cached) return listResources(client, module);
  return cached.flatMap((raw) => {
    const parsed = module.schema.safeParse(raw);
    return parsed.success ? [parsed.data] : [];
  });
}

/**
 * The claims made on a resource whose kind takes them: its referrers' resources read (from a cache when
 * there is one), and the grants of its namespace when a referrer is in another.
 */
async function observeClaims(
  client: KubeClient,
  module: KindModule,
  resource: EngineResource,
  entitlements: Entitlements,
  options: ObserveOptions,
): Promise<Claim[] | undefined> {
  // Read while it is deleted too: who still claims something of it is said before it goes.
  if (!module.takesClaims?.(resource)) return undefined;
  const referrers = await Promise.all(
    claimantKinds(module, options.registry).map(async (referrer) => ({
      module: referrer,
      resources: await resourcesOf(client, referrer, options),
    })),
  );
  // A claim from another namespace stands only by a grant in this one: read (from the watch cache when
  // there is one) only when some resource elsewhere claims on this one.
  const grants = claimedFromElsewhere(resource, referrers)
    ? await observeReferenceGrants(client, [resource.metadata.namespace], options.grants)
    : [];
  return claimsOn(resource, referrers, entitlements, grants);
}

/**
 * A Secret a target made and marked (a claim's credentials, a datastore's connection Secret), decoded:
 * from a watch cache when one holds it, else read; undefined when there is none.
 */
async function readTargetSecret(
  client: KubeClient,
  name: string,
  namespace: string,
  cached: ObserveOptions["cached"],
): Promise<Credentials | undefined> {
  const secret = (cached?.({ apiVersion: "v1", kind: "Secret", name, namespace }) ??
    (await orUndefined(client.core.readNamespacedSecret({ name, namespace })))) as
    | { readonly data?: Readonly<Record<string, string>> }
    | undefined;
  return decodeCredentials(secret);
}

/**
 * A claimant's own claims, as their targets published them, with their credentials: read in the
 * target's namespace only when the dependency itself may be followed (`permitted`) — a grant that lets
 * the claimant reference the target lets it read the credentials made for it there, and nothing else.
 */
async function observeClaimed(
  client: KubeClient,
  module: KindModule,
  resource: EngineResource,
  dependencies: Readonly<Record<string, KubeObject>>,
  cached: ObserveOptions["cached"],
): Promise<Record<string, ClaimedView>> {
  const claimed: Record<string, ClaimedView> = {};
  await Promise.all(
    dependenciesOf(module, resource)
      .filter((d) => d.claim)
      .map(async (d) => {
        const claim = publishedClaim(dependencies[d.field], claimantKey(resource));
        if (!claim || claim.credentialsSecret.namespace !== d.namespace) return;
        const credentials = await readTargetSecret(client, claim.credentialsSecret.name, d.namespace, cached);
        claimed[d.field] = { claim, credentials };
      }),
  );
  return claimed;
}

/**
 * The credentials its dependencies' targets publish, for those that pass them on (`credentials`) and are
 * auto-wired (wired by hand, the user brings them): the Secret each target's `status.connection` names,
 * in the target's namespace only — followed, like the target itself, only when a grant allows it (the
 * target was read: `dependencies`).
 */
async function observeConnectionCredentials(
  client: KubeClient,
  module: KindModule,
  resource: EngineResource,
  dependencies: Readonly<Record<string, KubeObject>>,
  entitlements: Entitlements,
  cached: ObserveOptions["cached"],
): Promise<Record<string, Credentials>> {
  const found: Record<string, Credentials> = {};
  await Promise.all(
    dependenciesOf(module, resource)
      .filter((d) => d.credentials && wiringOf(d, entitlements).mode === "auto")
      .map(async (d) => {
        const status = dependencies[d.field]?.status as
          | { connection?: { credentialsSecret?: { name?: string; namespace?: string } } }
          | undefined;
        const secret = status?.connection?.credentialsSecret;
        if (!secret?.name || (secret.namespace ?? d.namespace) !== d.namespace) return;
        const credentials = await readTargetSecret(client, secret.name, d.namespace, cached);
        if (credentials) found[d.field] = credentials;
      }),
  );
  return found;
}

/**
 * An object, or undefined when it or its kind does not exist (before an operator's CRDs, its kinds are not
 * even served): from a watch cache when one holds it, else read.
 */
async function readObject(
  client: KubeClient,
  key: ObjectKey,
  cached: ObserveOptions["cached"],
): Promise<KubeObject | undefined> {
  // A workload release is read from helm's records, never from the apiserver (lib/engine/workload-release.ts).
  if (isWorkloadRelease(key)) return observeWorkloadRelease(client, key.name, key.namespace);
  const held = cached?.(key);
  if (held) return held;
  try {
    const found = await client.read({
      apiVersion: key.apiVersion,
      kind: key.kind,
      metadata: { name: key.name, namespace: key.namespace },
    });
    return found as unknown as KubeObject | undefined;
  } catch (error) {
    if (error instanceof Error && /Unrecognized API version and kind/.test(error.message)) return undefined;
    throw error;
  }
}

/** Whether a read may be followed: it stays in the resource's namespace, or it is a reference every grant allows. */
function followed(
  read: ObservedRead,
  namespace: string,
  references: readonly Reference[],
  permitted: boolean,
): boolean {
  if (read.namespace === namespace) return true;
  return (
    permitted && references.some((r) => r.kind === read.kind && r.name === read.name && r.namespace === read.namespace)
  );
}

/** The kind's own reads (`observes`), by id: only those that stay in the namespace or are granted. */
async function observeReads(
  client: KubeClient,
  module: KindModule,
  resource: EngineResource,
  references: readonly Reference[],
  permitted: boolean,
  userSecret: ObserveOptions["userSecret"],
): Promise<Record<string, KubeObject | ReturnType<typeof decodeCredentials>>> {
  const reads: Record<string, KubeObject | ReturnType<typeof decodeCredentials>> = {};
  const reader = objectKey({ kind: resource.kind, ...resource.metadata });
  await Promise.all(
    module
      .observes(resource)
      .filter((read) => followed(read, resource.metadata.namespace, references, permitted))
      .map(async (read) => {
        // The kind's own reads are the user's objects, which no watch cache of the operator holds.
        const fromApiserver = () => readObject(client, read, undefined);
        const found =
          userSecret && read.apiVersion === "v1" && read.kind === "Secret"
            ? await userSecret(read, reader, fromApiserver)
            : await fromApiserver();
        if (!found) return;
        reads[read.id] =
          read.as === "credentials" ? decodeCredentials(found as { readonly data?: Record<string, string> }) : found;
      }),
  );
  return reads;
}

/** The resources its dependencies name, as stored, by the referring field: only those in its namespace or granted. */
async function observeDependencies(
  client: KubeClient,
  module: KindModule,
  resource: EngineResource,
  permitted: boolean,
  options: ObserveOptions,
): Promise<Record<string, KubeObject>> {
  const { registry, cached } = options;
  const dependencies: Record<string, KubeObject> = {};
  await Promise.all(
    dependenciesOf(module, resource)
      .filter((d) => d.namespace === resource.metadata.namespace || permitted)
      .map(async (d) => {
        const target = registry.find((m) => m.definition.kind === d.kind);
        if (!target) throw new Error(`${module.definition.kind} depends on ${d.kind}, which no registered kind is`);
        const held = cached?.({ apiVersion: API_GROUP_VERSION, kind: d.kind, name: d.name, namespace: d.namespace });
        if (held) {
          dependencies[d.field] = held;
          return;
        }
        const found = await orUndefined(
          client.custom.getNamespacedCustomObject({
            group: API_GROUP,
            version: API_VERSION,
            plural: target.definition.plural,
            namespace: d.namespace,
            name: d.name,
          }),
        );
        if (found) dependencies[d.field] = found as KubeObject;
      }),
  );
  return dependencies;
}

/**
 * Reads what planning one resource of any kind needs, with a bounded number of requests: the needed
 * capabilities' decisions, the licence and the kind's instances (for the cap), the consumers of every
 * kind when a capability may be released, the grants its references need (first: nothing of another
 * namespace is read before a grant there allows it), the kind's own reads, and the current state of
 * everything it emitted or would emit.
 */
export async function observeResource(
  client: KubeClient,
  installer: CapabilityInstaller,
  module: KindModule,
  resource: EngineResource,
  options: ObserveOptions,
): Promise<ObservedView> {
  const needed = module.needs(resource);
  const now = resource.metadata.deletionTimestamp ? [] : needed;
  const mayReleaseSome = mayRelease(neededBefore(module, resource, options), expandNeeds(now, options));
  const cached = options.instances?.(module.definition.kind);
  const [capabilities, all, entitlements, consumers] = await Promise.all([
    capabilityDecisions(installer, now, options.detect),
    cached ? Promise.resolve([]) : listResources(client, module),
    observeEntitlements(client, options),
    mayReleaseSome ? consumersOf(client, options) : Promise.resolve([]),
  ]);
  const instances = cached
    ? withSelf(cached.list, resource, options.now)
    : capInstances(all, resource, instanceOf, options.now);

  const referrer = referrerOf(resource);
  const references = allReferences(module, resource);
  const foreign = grantNamespaces(referrer, references);
  const pending = (options.pendingGrants ?? []).filter((g) => foreign.includes(g.namespace));
  const grants =
    foreign.length > 0 ? [...(await observeReferenceGrants(client, foreign, options.grants)), ...pending] : [];
  // All or nothing: the planner refuses the resource if any reference is not granted, so none is followed.
  const permitted = ungrantedReferences(referrer, references, grants).length === 0;
  // The kind's own reads and its dependencies' targets, together: neither depends on the other.
  const [reads, dependencies, claims, namespace] = await Promise.all([
    observeReads(client, module, resource, references, permitted, options.userSecret),
    observeDependencies(client, module, resource, permitted, options),
    observeClaims(client, module, resource, entitlements, options),
    observeNamespace(client, module, resource),
  ]);
  const [claimed, connectionCredentials] = await Promise.all([
    observeClaimed(client, module, resource, dependencies, options.cached),
    observeConnectionCredentials(client, module, resource, dependencies, entitlements, options.cached),
  ]);
  const view: EngineView = {
    capabilities,
    consumers,
    objects: new Map(),
    reads,
    ...(Object.keys(dependencies).length > 0 ? { dependencies } : {}),
    ...(claims ? { claims } : {}),
    ...(Object.keys(claimed).length > 0 ? { claimed } : {}),
    ...(Object.keys(connectionCredentials).length > 0 ? { connectionCredentials } : {}),
    ...(foreign.length > 0 ? { referenceGrants: grants } : {}),
    ...(namespace ? { namespace } : {}),
    // The cached order holds for the resource when the cache knows it as it is: admitted or not alike.
    licence: { entitlements, instances, ...(cached ? { ahead: cachedAhead(cached, resource, options.now) } : {}) },
  };
  const { objects, desired } = await observeObjects(client, module, resource, view, options.cached);
  return { ...view, objects, desired };
}

/**
 * The current state of what the resource emitted and of what it would emit now, with the desired state
 * decided from it: asked once per pass in the steady state (lib/engine/plan.ts uses that answer).
 *
 * What it emitted (its status) is read first; the desired state is asked with it, and what it names that
 * the status does not is read then — for its plan to see a name taken before it applies there. Only when
 * one of those turns out to exist (a status lost or written behind, a name taken) is the desired state
 * asked again with it, until it names nothing unread: so what it judged from equals what the plan sees.
 *
 * A Secret the status names outside the resource's namespace (a claim's password copied beside an
 * adopted CNPG Cluster, where CNPG reads it) is shown to the desired state by its marks only — the status
 * is no proof of what another namespace's Secret holds — and stays so in the view unless the desired
 * state names it: enough to collect it as the resource's own, never its data.
 */
async function observeObjects(
  client: KubeClient,
  module: KindModule,
  resource: EngineResource,
  view: EngineView,
  cached: ObserveOptions["cached"],
): Promise<{ readonly objects: ReadonlyMap<string, KubeObject>; readonly desired: Desired<unknown> }> {
  const { namespace } = resource.metadata;
  // By the key the plan looks each up with; a header says where to read it.
  const read = new Map<string, KubeObject | undefined>();
  const readAll = (headers: ReadonlyMap<string, ObjectKey>) =>
    Promise.all(
      [...headers].map(async ([key, header]) => {
        read.set(key, await readObject(client, header, cached));
      }),
    );
  const foreignSecrets = new Set<string>();
  const emitted = new Map<string, ObjectKey>();
  for (const e of resource.status?.emitted ?? []) {
    emitted.set(objectKey(e), e);
    if (e.kind === "Secret" && e.namespace !== namespace) foreignSecrets.add(objectKey(e));
  }
  await readAll(emitted);
  const shown = () => {
    const objects = new Map<string, KubeObject>();
    for (const [key, object] of read) {
      if (object) objects.set(key, foreignSecrets.has(key) ? marksOf(object) : object);
    }
    return objects;
  };
  for (;;) {
    const desired = module.desired(resource, { ...view, objects: shown() });
    const unread = new Map<string, ObjectKey>();
    for (const step of desired.steps) {
      const key = keyOf(step.object);
      if (!read.has(key)) unread.set(key, headerOf(step.object, namespace));
    }
    await readAll(unread);
    if ([...unread.keys()].some((key) => read.get(key) !== undefined)) continue;
    for (const step of desired.steps) foreignSecrets.delete(keyOf(step.object));
    return { objects: shown(), desired };
  }
}

/** The identity of an object the desired state makes, in the resource's namespace unless it names another. */
function headerOf(object: KubeObject, namespace: string): ObjectKey {
  const { apiVersion, kind, metadata } = object;
  return { apiVersion, kind, name: metadata.name, namespace: metadata.namespace ?? namespace };
}

/** An object reduced to what garbage collection judges ownership by: its identity and its labels. */
function marksOf(object: KubeObject): KubeObject {
  const { name, namespace, uid, resourceVersion, labels, deletionTimestamp } = object.metadata;
  return {
    apiVersion: object.apiVersion,
    kind: object.kind,
    metadata: {
      name,
      ...(namespace ? { namespace } : {}),
      ...(uid ? { uid } : {}),
      ...(resourceVersion ? { resourceVersion } : {}),
      ...(labels ? { labels } : {}),
      ...(deletionTimestamp ? { deletionTimestamp } : {}),
    },
  };
}
