import { KubernetesObjectApi, PatchStrategy } from "@kubernetes/client-node";
import { API_GROUP, API_GROUP_VERSION, API_VERSION } from "../../lib/api/group.js";
import {
  REFERENCE_GRANT_KIND,
  REFERENCE_GRANT_PLURAL,
  type ReferenceGrantSpec,
} from "../../lib/api/reference-grant.js";
import { type KubeClient, orUndefined } from "../../lib/cluster/kube-client.js";
import { moduleOf, type ReconcileContext } from "../../lib/engine/context.js";
import type { EngineResource, KindModule } from "../../lib/engine/kind-module.js";
import { reconcileWithMembers } from "../../lib/engine/members.js";
import { listResources } from "../../lib/engine/observe.js";
import { type ReconcileOutcome, readResource, reconcileResource } from "../../lib/engine/reconcile.js";
import { REGISTRY } from "../../lib/kinds/registry.js";
import { eventually } from "./cluster.js";

/** Generic test support over the registry: create, read, reconcile-until and finalize a resource of any kind. */
export function registered(kind: string): KindModule {
  return moduleOf({ registry: REGISTRY.kinds }, kind);
}

function crd(kind: string) {
  return { group: API_GROUP, version: API_VERSION, plural: registered(kind).definition.plural };
}

export async function createResource(client: KubeClient, kind: string, namespace: string, name: string, spec: unknown) {
  await client.custom.createNamespacedCustomObject({
    ...crd(kind),
    namespace,
    body: { apiVersion: API_GROUP_VERSION, kind, metadata: { name }, spec },
  });
}

/**
 * The grant by which the owner of `namespace` lets resources of another namespace refer to objects in
 * it (docs/reference-grants.md), created as a user's kubectl would.
 */
export async function createReferenceGrant(
  client: KubeClient,
  namespace: string,
  name: string,
  spec: ReferenceGrantSpec,
) {
  await client.custom.createNamespacedCustomObject({
    group: API_GROUP,
    version: API_VERSION,
    plural: REFERENCE_GRANT_PLURAL,
    namespace,
    body: { apiVersion: API_GROUP_VERSION, kind: REFERENCE_GRANT_KIND, metadata: { name }, spec },
  });
}

/**
 * A PostgresCluster `shared` in `data`, a grant there to the Gateways of `apps`, and a Gateway `llm` in
 * `apps` whose database is a claim on it: the cross-namespace claim the claim suites start from.
 */
export async function gatewayClaimingAcross(client: KubeClient, data: string, apps: string): Promise<void> {
  await createResource(client, "PostgresCluster", data, "shared", {});
  await createReferenceGrant(client, data, "gateways", {
    from: [{ group: "core.navique.com", kind: "Gateway", namespace: apps }],
    to: [{ group: "core.navique.com", kind: "PostgresCluster", name: "shared" }],
  });
  await createResource(client, "Gateway", apps, "llm", {
    database: { mode: "postgresCluster", postgresClusterRef: { name: "shared", namespace: data } },
  });
}

export function readStoredResource(client: KubeClient, kind: string, namespace: string, name: string) {
  return readResource({ client }, registered(kind), namespace, name);
}

export async function deleteResource(client: KubeClient, kind: string, namespace: string, name: string) {
  await orUndefined(client.custom.deleteNamespacedCustomObject({ ...crd(kind), namespace, name }));
}

/**
 * Reconciles as the operator would (pass after pass, requeueing) until `done` holds for the outcome;
 * `between` runs after each pass (e.g. to play an upstream controller).
 */
export async function reconcileUntil<Status = Record<string, unknown>>(
  context: ReconcileContext,
  kind: string,
  namespace: string,
  name: string,
  done: (outcome: ReconcileOutcome<Status>, resource: EngineResource) => boolean,
  between: () => Promise<void> = async () => {},
): Promise<ReconcileOutcome<Status> & { performedInAllPasses: string[] }> {
  const performedInAllPasses: string[] = [];
  const last = await eventually(
    `${kind} ${namespace}/${name} to converge`,
    async () => {
      const resource = await readStoredResource(context.client, kind, namespace, name);
      if (!resource) throw new Error(`${kind} ${namespace}/${name} is gone`);
      const outcome = await reconcileResource<Status>(context, resource);
      performedInAllPasses.push(...outcome.performed);
      await between();
      return done(outcome, resource) ? outcome : undefined;
    },
    { timeoutMs: 150_000, intervalMs: 300 },
  );
  return { ...last, performedInAllPasses };
}

/**
 * Plays the upstream controllers that would let go of what a resource being finalized has deleted (none
 * runs here): the finalizers they put on their own objects (CNPG's on a DatabaseRole, ESO's on an
 * ExternalSecret…), removed from each of its emitted objects of theirs that is being deleted. The engine
 * releases an operator only once those objects are gone (docs/adr/0016-kind-engine.md): a clean-up that
 * played nothing would wait for ever. The product's own kinds are left to their finalization.
 */
async function releaseDeletedUpstreamObjects(context: ReconcileContext, resource: EngineResource): Promise<void> {
  const { emitted } = (resource.status ?? {}) as {
    emitted?: readonly { apiVersion: string; kind: string; name: string; namespace: string }[];
  };
  const objects = KubernetesObjectApi.makeApiClient(context.client.kubeconfig);
  for (const { apiVersion, kind, name, namespace } of emitted ?? []) {
    if (apiVersion.startsWith(`${API_GROUP}/`)) continue;
    const live = await context.client.read({ apiVersion, kind, metadata: { name, namespace } }).catch(() => undefined);
    if (!live?.metadata?.deletionTimestamp || (live.metadata.finalizers ?? []).length === 0) continue;
    const patch = { apiVersion, kind, metadata: { name, namespace, finalizers: null } };
    await objects
      .patch(patch as never, undefined, undefined, undefined, undefined, PatchStrategy.MergePatch)
      .catch(() => undefined);
  }
}

/**
 * Deletes every resource of a kind (in `namespace`, or everywhere) and runs its finalization with the real
 * reconcile — its members deleted and finalized first, the upstream controllers' finalizers played away —
 * so that namespaces can go and nothing left over counts against a cap: a test that failed midway may have
 * left one behind with no operator running. A test of the deletion order itself does not use it.
 */
export async function finalizeResources(context: ReconcileContext, kind: string, namespace?: string): Promise<void> {
  const module = registered(kind);
  const all = await listResources(context.client, module);
  for (const resource of all.filter((r) => namespace === undefined || r.metadata.namespace === namespace)) {
    const { namespace: ns, name } = resource.metadata;
    await deleteResource(context.client, kind, ns, name);
    await eventually(`${kind} ${ns}/${name} to be finalized`, async () => {
      const current = await readResource(context, module, ns, name).catch(() => undefined);
      if (!current) return true;
      await reconcileWithMembers(context, current);
      const after = await readResource(context, module, ns, name).catch(() => undefined);
      if (after) await releaseDeletedUpstreamObjects(context, after);
      return undefined;
    });
  }
}

/**
 * Finalizes the resources of every kind of the registry, in a namespace or everywhere: composites first,
 * whose members go with them.
 */
export async function finalizeEveryKind(context: ReconcileContext, namespace?: string): Promise<void> {
  const kinds = [...REGISTRY.kinds].sort(
    (a, b) => Number(b.emits.some((e) => e.product)) - Number(a.emits.some((e) => e.product)),
  );
  for (const module of kinds) await finalizeResources(context, module.definition.kind, namespace);
}
