/**
 * What the Pulumi dynamic provider does when something changes: create, update and delete, each through
 * the core. Loaded by runtime.ts when one of them runs — a no-op `pulumi up` only checks and diffs, and
 * never pays for loading the Kubernetes client and the engine.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { stalledOf } from "../../lib/api/conditions.js";
import { API_GROUP, API_GROUP_VERSION, API_VERSION } from "../../lib/api/group.js";
import { ensureNaviqueCrds } from "../../lib/apply/navique-crds.js";
import { parseChartSource } from "../../lib/catalog/chart-source.js";
import { resolveHelm } from "../../lib/cluster/helm-binary.js";
import { HelmCli } from "../../lib/cluster/helm-cli.js";
import { type KubeClient, orUndefined, statusOf } from "../../lib/cluster/kube-client.js";
import { clusterAccess } from "../../lib/cluster/kubeconfig-source.js";
import { reconcileClaimTargets } from "../../lib/engine/claim-targets.js";
import { stalledLine } from "../../lib/engine/conditions.js";
import { apiserverRefusal } from "../../lib/engine/failure.js";
import type { EngineResource, KindModule } from "../../lib/engine/kind-module.js";
import { reconcileWithMembers } from "../../lib/engine/members.js";
import { decodeCredentials } from "../../lib/engine/objects.js";
import { readResource } from "../../lib/engine/reconcile.js";
import type { Plan } from "../../lib/engine/steps.js";
import { createReconcileContext, type ReconcileContext } from "../../lib/reconcile/context.js";
import { removeCreatedNamespace } from "./created-namespace.js";
import { destroyWarnings } from "./destroy-warnings.js";
import { reportLasting, reportProgress } from "./provider-progress.js";
import type { ClusterInputs, RuntimeInputs } from "./runtime.js";

const PASS_INTERVAL_MS = 1_000;

/**
 * The core wired for the provider process. `trustedKeys` is for tests that call the runtime in-process;
 * a Pulumi program cannot set it, so licences are verified with the product's own keys.
 */
export function contextFor(inputs: ClusterInputs, trustedKeys?: ReadonlyMap<string, string>): ReconcileContext {
  const { client, kubeconfigFile } = clusterAccess(inputs.kubeconfig);
  return createReconcileContext({
    client,
    helm: new HelmCli({ binary: () => resolveHelm(inputs.helm), kubeconfig: kubeconfigFile }),
    // Not recorded when it came from the environment: read from it again here (ADR 0019).
    source: parseChartSource(inputs.chartSource ?? process.env.NAVIQUE_CHART_SOURCE),
    ...(trustedKeys ? { trustedKeys } : {}),
  });
}

/**
 * Before a resource is recorded: the product's CRDs applied, and its namespace created when missing.
 * True when this call created the namespace: the state records it, and the destroy deletes that
 * namespace again (created-namespace.ts) — never one it found.
 */
export async function prepareCluster(client: KubeClient, namespace: string): Promise<boolean> {
  await ensureNaviqueCrds(client);
  return client.core.createNamespace({ body: { metadata: { name: namespace } } }).then(
    () => true,
    (error: unknown) => {
      if (statusOf(error) !== 409) throw error;
      return false;
    },
  );
}

/**
 * What Pulumi cannot wait out, as an error: a pass that leaves the resource Stalled (the licence skipping
 * or refusing it, a reference into another namespace not granted, a name held by an object it did not
 * create, a spec or a Secret only someone can correct) stops `up` at once with Ready's message, in the
 * words of the preview, instead of waiting into timeoutSeconds.
 */
export function failIfBlocked(outcome: { readonly plan: Pick<Plan<unknown>, "conditions"> }, where: string): void {
  const stalled = stalledOf(outcome.plan.conditions);
  if (stalled) throw new Error(stalledLine(where, stalled));
}

/** The outputs of a resource from its status: its kind's projection, the credentials it names read for the secret ones. */
async function outputsOf(
  context: ReconcileContext,
  module: KindModule,
  inputs: RuntimeInputs,
  status: unknown,
): Promise<Record<string, unknown>> {
  const secret = module.outputs.credentialsSecret?.(status as never);
  const credentials = secret
    ? decodeCredentials(
        await orUndefined(
          context.client.core.readNamespacedSecret({
            name: secret.name,
            namespace: secret.namespace || inputs.namespace,
          }),
        ),
      )
    : undefined;
  return { ...inputs, ...module.outputs.project(status as never, inputs.namespace, credentials) };
}

/**
 * The custom resource recorded as the inputs say (its namespace made when missing); true when the
 * namespace was made by this call or an earlier create (the state says so).
 */
async function record(
  context: ReconcileContext,
  module: KindModule,
  inputs: RuntimeInputs,
  prepared: (createdNamespace: boolean) => void,
): Promise<boolean> {
  const { kind } = module.definition;
  const { client } = context;
  try {
    const created = await prepareCluster(client, inputs.namespace);
    // Told at once: a create that fails after this removes the namespace it made too.
    prepared(created);
    await client.apply({
      apiVersion: API_GROUP_VERSION,
      kind,
      metadata: { name: inputs.name, namespace: inputs.namespace },
      // Parsed again at this boundary: the defaults are written out, so the object says exactly what runs.
      spec: module.definition.spec.parse(inputs.spec),
    } as never);
    return created || inputs.createdNamespace === true;
  } catch (error) {
    const refusal = apiserverRefusal(error);
    if (!refusal) throw error;
    throw new Error(
      `${kind} ${inputs.namespace}/${inputs.name}: ${refusal}. Correct the field it names in the component's args, or ask who runs the cluster about the rule that refuses it`,
    );
  }
}

/** `up` on a context already built: record the custom resource, then reconcile it and its members until Ready. */
async function upWith(
  context: ReconcileContext,
  module: KindModule,
  inputs: RuntimeInputs,
  prepared: (createdNamespace: boolean) => void = () => undefined,
): Promise<{ id: string; outs: Record<string, unknown> }> {
  const where = `${module.definition.kind} ${inputs.namespace}/${inputs.name}`;
  const createdNamespace = await record(context, module, inputs, prepared);
  const deadline = Date.now() + inputs.timeoutSeconds * 1000;
  let said: string | undefined;
  for (;;) {
    const resource = await readResource(context, module, inputs.namespace, inputs.name);
    if (!resource) throw new Error(`${where} vanished while being reconciled`);
    const { outcome, members } = await reconcileWithMembers(context, resource);
    failIfBlocked(outcome, where);
    for (const member of members) failIfBlocked(member, `${where}: member`);
    const ready = outcome.plan.conditions.find((c) => c.type === "Ready");
    if (ready?.status !== "True" && ready?.message !== said) {
      said = ready?.message;
      reportProgress(`${where}: ${said ?? "not Ready yet"}`);
    }
    if (!outcome.requeue && !members.some((m) => m.requeue)) {
      const outs = await outputsOf(context, module, inputs, outcome.plan.status);
      // Recorded only when true: a state that never made a namespace reads as it always did.
      return {
        id: `${inputs.namespace}/${inputs.name}`,
        outs: { ...outs, ...(createdNamespace ? { createdNamespace } : {}) },
      };
    }
    if (Date.now() > deadline) {
      throw new Error(`${where} was not Ready after ${inputs.timeoutSeconds}s: ${ready?.message ?? "unknown"}`);
    }
    await sleep(PASS_INTERVAL_MS);
  }
}

/**
 * `destroy` on a context already built: delete the custom resource and finalize it to the end, saying
 * what that does to data as warnings (destroy-warnings.ts).
 */
async function destroyWith(context: ReconcileContext, module: KindModule, inputs: RuntimeInputs): Promise<void> {
  const { client } = context;
  const where = `${module.definition.kind} ${inputs.namespace}/${inputs.name}`;
  const warnings = destroyWarnings(where);
  await orUndefined(
    client.custom.deleteNamespacedCustomObject({
      group: API_GROUP,
      version: API_VERSION,
      plural: module.definition.plural,
      namespace: inputs.namespace,
      name: inputs.name,
    }),
  );
  const deadline = Date.now() + inputs.timeoutSeconds * 1000;
  let waitingFor = "";
  let last: EngineResource | undefined;
  const finalized = async () => {
    // Its claims go with it: their targets drop them (a virtual key revoked, a database dropped by policy).
    if (last) await reconcileClaimTargets(context, last);
    if (inputs.namespaceResource === true)
      await warnings.ofProgramNamespace(client, context.registry, inputs.namespace);
    if (inputs.createdNamespace !== true) return;
    reportLasting(`${where}: ${await removeCreatedNamespace(client, context.registry, inputs.namespace)}`);
  };
  for (;;) {
    const resource = await readResource(context, module, inputs.namespace, inputs.name);
    if (!resource) return finalized();
    last = resource;
    const result = await unlessVanished(
      () => reconcileWithMembers(context, resource),
      async () => (await readResource(context, module, inputs.namespace, inputs.name)) === undefined,
    );
    if (!result) return finalized();
    warnings.ofPass([result.outcome, ...result.members]);
    const now = result.outcome.plan.conditions[0]?.message ?? waitingFor;
    if (now !== waitingFor) reportProgress(`${where}: ${now}`);
    waitingFor = now;
    if (Date.now() > deadline) {
      throw new Error(`${where} was not finalized after ${inputs.timeoutSeconds}s: ${waitingFor}`);
    }
    await sleep(PASS_INTERVAL_MS / 4);
  }
}

/**
 * Runs one deletion pass of a resource that another front end (the operator, a second `pulumi destroy`)
 * may be finalizing at the same time. The pass works on the copy it read; when the other one removed the
 * last finalizer meanwhile, the pass's next write answers 404. A resource gone is what a delete wants:
 * undefined (done) when the pass failed with 404 and the resource is indeed gone; any other failure is
 * thrown.
 */
export async function unlessVanished<T>(pass: () => Promise<T>, gone: () => Promise<boolean>): Promise<T | undefined> {
  try {
    return await pass();
  } catch (error) {
    if (statusOf(error) === 404 && (await gone())) return undefined;
    throw error;
  }
}

/** The inputs a dynamic resource records, taken from its state (which holds its outputs beside them). */
function recordedInputs(state: RuntimeInputs): RuntimeInputs {
  const { kind, namespace, name, spec, timeoutSeconds, kubeconfig, helm, chartSource } = state;
  return {
    ...(kind === undefined ? {} : { kind }),
    namespace,
    name,
    spec,
    timeoutSeconds,
    ...(kubeconfig === undefined ? {} : { kubeconfig }),
    ...(helm === undefined ? {} : { helm }),
    ...(chartSource === undefined ? {} : { chartSource }),
  };
}

/**
 * `read` (`pulumi refresh`): the custom resource as it is in the cluster — its spec, parsed with the
 * defaults written out, and the outputs its status and credentials give now — as the state's outputs
 * and as the inputs the next diff compares the program's with: a spec someone changed with kubectl
 * shows as a change of `spec`, and the next `up` writes the program's spec back. Nothing is reconciled
 * or written. A resource no longer in the cluster answers no id: Pulumi drops it from the state, and
 * the next `up` creates it again.
 */
export async function read(
  module: KindModule,
  state: RuntimeInputs,
  trustedKeys?: ReadonlyMap<string, string>,
): Promise<{ id?: string; props?: Record<string, unknown>; inputs?: Record<string, unknown> }> {
  const context = contextFor(state, trustedKeys);
  const live = await readResource(context, module, state.namespace, state.name);
  if (!live) return {};
  const inputs = { ...recordedInputs(state), spec: live.spec };
  const projected = live.status ? await outputsOf(context, module, inputs, live.status) : { spec: live.spec };
  // What only the state knows (whether its create made the namespace) is kept.
  const props = { ...state, ...projected };
  return { id: `${state.namespace}/${state.name}`, props, inputs };
}

/** `update`: `up` with the new inputs; that an earlier create made the namespace stays recorded. */
export async function update(
  module: KindModule,
  olds: RuntimeInputs,
  news: RuntimeInputs,
  trustedKeys?: ReadonlyMap<string, string>,
): Promise<{ id: string; outs: Record<string, unknown> }> {
  const createdNamespace = olds.createdNamespace === true && olds.namespace === news.namespace;
  return up(module, { ...news, ...(createdNamespace ? { createdNamespace } : {}) }, trustedKeys);
}

/** `up`: record the custom resource, then reconcile it and its members until Ready. */
export async function up(
  module: KindModule,
  inputs: RuntimeInputs,
  trustedKeys?: ReadonlyMap<string, string>,
): Promise<{ id: string; outs: Record<string, unknown> }> {
  return upWith(contextFor(inputs, trustedKeys), module, inputs);
}

/**
 * `create`: `up`, and when it fails, the custom resource it recorded is deleted and finalized again —
 * Pulumi records nothing of a failed create, so what stayed would be a resource no state knows of,
 * holding a seat of the licence's cap and a finalizer. A resource that existed before the create
 * (another front end's) is never deleted: the failure says so instead.
 */
export async function create(
  module: KindModule,
  inputs: RuntimeInputs,
  trustedKeys?: ReadonlyMap<string, string>,
): Promise<{ id: string; outs: Record<string, unknown> }> {
  const context = contextFor(inputs, trustedKeys);
  const where = `${module.definition.kind} ${inputs.namespace}/${inputs.name}`;
  const existed = await readResource(context, module, inputs.namespace, inputs.name).catch(() => undefined);
  let createdNamespace = false;
  try {
    return await upWith(context, module, inputs, (created) => {
      createdNamespace = created;
    });
  } catch (error) {
    const cause = error instanceof Error ? error.message : String(error);
    if (existed) throw new Error(`${cause} (${where} existed before this create: left as it is)`);
    try {
      await destroyWith(context, module, { ...inputs, createdNamespace });
    } catch (cleanup) {
      throw new Error(
        `${cause}; and removing the ${where} this create recorded failed too (${(cleanup as Error).message}): delete it with kubectl delete ${module.definition.plural} -n ${inputs.namespace} ${inputs.name}`,
      );
    }
    throw new Error(`${cause} (the ${where} this create recorded was removed: nothing is left in the cluster)`);
  }
}

/** `destroy`: delete the custom resource and run its finalization (members first, release rules, deletion policy) to the end. */
export async function destroy(
  module: KindModule,
  inputs: RuntimeInputs,
  trustedKeys?: ReadonlyMap<string, string>,
): Promise<void> {
  await destroyWith(contextFor(inputs, trustedKeys), module, inputs);
}
