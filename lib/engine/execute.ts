import type { PerformedInstall } from "../capabilities/installer.js";
import { FIELD_MANAGER, type KubeClient, orUndefined, statusOf } from "../cluster/kube-client.js";
import { applyChangesNothing } from "./applied-fields.js";
import type { ReconcileContext } from "./context.js";
import { removeFinalizer } from "./finalizer.js";
import { emittedKindOf } from "./garbage.js";
import { generatedData, rotationEvent } from "./generated-secret.js";
import { changesNothing } from "./in-place.js";
import type { EngineResource, KindModule } from "./kind-module.js";
import { keyOf } from "./objects.js";
import type { PlannedEvent, PlanStep } from "./steps.js";
import type { EngineView } from "./view.js";
import { isWorkloadRelease, type ObservedRelease } from "./workload-release.js";

/** After a step: go on, go on without having changed anything, or end the pass here. */
export type StepResult = "continue" | "unchanged" | "stop";

/**
 * Creates a generated Secret unless it exists; the new Secret's uid when this call created it, undefined
 * when it was there. Never overwrites one.
 */
async function generateSecret(
  client: KubeClient,
  step: Extract<PlanStep, { kind: "generate-secret" }>,
): Promise<string | undefined> {
  const namespace = step.object.metadata.namespace ?? "";
  const existing = await orUndefined(client.core.readNamespacedSecret({ name: step.object.metadata.name, namespace }));
  if (existing) return undefined;
  try {
    const created = await client.core.createNamespacedSecret({
      namespace,
      body: { ...(step.object as object), stringData: generatedData(step.keys) },
    });
    return created.metadata?.uid ?? "";
  } catch (error) {
    // Created meanwhile by another reconcile: the existing values stand.
    if (statusOf(error) === 409) return undefined;
    throw error;
  }
}

/**
 * Removes the product's marks from a kept object (the plan wrote the patch): a Secret, a claim or a
 * service account through the core API, any other kind under the plural its module declares. An object gone meanwhile has nothing left to release.
 */
async function release(
  client: KubeClient,
  module: KindModule,
  step: Extract<PlanStep, { kind: "retain" }>,
): Promise<void> {
  const { target, patch } = step;
  if (patch.length === 0) return;
  const body = [...patch];
  const { name, namespace } = target;
  if (target.apiVersion === "v1") {
    // The core group has no custom-objects path: each core kind the modules keep, through its own call.
    if (target.kind === "Secret") await orUndefined(client.core.patchNamespacedSecret({ name, namespace, body }));
    else if (target.kind === "PersistentVolumeClaim")
      await orUndefined(client.core.patchNamespacedPersistentVolumeClaim({ name, namespace, body }));
    else if (target.kind === "ServiceAccount")
      await orUndefined(client.core.patchNamespacedServiceAccount({ name, namespace, body }));
    else if (target.kind === "Service")
      await orUndefined(client.core.patchNamespacedService({ name, namespace, body }));
    else throw new Error(`releasing a kept core ${target.kind} is not supported: ${module.definition.kind} emits one`);
    return;
  }
  const kind = emittedKindOf(module, target);
  if (!kind) throw new Error(`${module.definition.kind} declares no emitted kind ${target.apiVersion} ${target.kind}`);
  const [group = "", version = ""] = target.apiVersion.split("/");
  await orUndefined(
    client.custom.patchNamespacedCustomObject(
      { group, version, plural: kind.plural, namespace, name, body },
      undefined,
    ),
  );
}

/** The resourceVersion of an object, as read or as answered. */
function versionOf(object: unknown): string | undefined {
  return (object as { metadata?: { resourceVersion?: string } } | undefined)?.metadata?.resourceVersion;
}

/** Reasons of the Normal Event of an install, upgrade or restore this pass made. */
export const CAPABILITY_INSTALLED = "CapabilityInstalled";
export const CAPABILITY_UPGRADED = "CapabilityUpgraded";
export const CAPABILITY_RESTORED = "CapabilityRestored";

/** The Normal Event of an install, upgrade or restore made for the resource: which capability, version and release. */
function installedEvent(performed: PerformedInstall): PlannedEvent {
  const { capability, chartVersion, release } = performed;
  const where = `release ${release.namespace}/${release.name}`;
  switch (performed.action) {
    case "install":
      return {
        type: "Normal",
        reason: CAPABILITY_INSTALLED,
        message: `installed ${capability} ${chartVersion} as ${where}`,
      };
    case "upgrade":
      return {
        type: "Normal",
        reason: CAPABILITY_UPGRADED,
        message: `upgraded ${capability} to ${chartVersion} (${where})`,
      };
    case "restore":
      return {
        type: "Normal",
        reason: CAPABILITY_RESTORED,
        message: `restored ${capability}: re-applied ${where} ${chartVersion} with the product's values`,
      };
  }
}

/** A generated Secret made unless it was observed; re-made after a deletion, a rotation said as it happens. */
async function generated(
  client: KubeClient,
  step: Extract<PlanStep, { kind: "generate-secret" }>,
  view: EngineView,
  happened: PlannedEvent[],
): Promise<StepResult> {
  // Seen by this pass's observation: never overwritten, so nothing to do (one read fewer per pass). One
  // deleted since is re-created by the pass its deletion's watch event brings.
  if (changesNothing(step, view)) return "unchanged";
  const created = await generateSecret(client, step);
  if (created === undefined) return "unchanged";
  // Made before and created again: deleted by someone, a rotation — said by the process that made it.
  if (step.madeBefore) happened.push(rotationEvent(step, created));
  return "continue";
}

/** A workload release installed or upgraded, unless the plan found it current (no helm, no revision). */
async function released(
  context: ReconcileContext,
  resource: EngineResource,
  step: Extract<PlanStep, { kind: "workload-release" }>,
  view: EngineView,
): Promise<StepResult> {
  if (changesNothing(step, view)) return "unchanged";
  const live = view.objects.get(keyOf(step.object)) as ObservedRelease | undefined;
  await context.releases.apply(
    {
      name: step.object.metadata.name,
      namespace: step.object.metadata.namespace ?? resource.metadata.namespace,
      workload: step.workload,
      values: step.values,
      labels: step.object.metadata.labels ?? {},
    },
    live?.status,
  );
  return "continue";
}

/**
 * Performs one step of any kind's plan: the one executor. What it did that the plan could not foresee
 * (a capability installed) is added to `happened`, as Events to record.
 */
export async function execute(
  context: ReconcileContext,
  module: KindModule,
  resource: EngineResource,
  step: PlanStep,
  view: EngineView,
  happened: PlannedEvent[] = [],
): Promise<StepResult> {
  const { client } = context;
  switch (step.kind) {
    case "ensure-capability":
      // Exactly the capability the step names (the installer brings its prerequisites first); the pass
      // ends here, so that the operator's new kinds are discovered before they are used. Each install or
      // upgrade made is recorded on the resource it was made for.
      await context.installer.ensure(step.capability, (performed) => happened.push(installedEvent(performed)));
      return "stop";
    case "apply": {
      const before = view.objects.get(keyOf(step.object));
      // What the product last applied is what it would apply now: no request. Read in the object's managed
      // fields (lib/engine/applied-fields.ts), or, where the view does not show its content (a Secret from
      // a watch of metadata only), known from this process's own last apply (lib/engine/applied-versions.ts).
      if (applyChangesNothing(step.object, before, FIELD_MANAGER)) return "unchanged";
      if (context.appliedVersions?.holds(step.object, before)) return "unchanged";
      // Server-side apply of identical content changes nothing on the server (the resourceVersion stays).
      const after = await client.apply(step.object);
      context.appliedVersions?.record(step.object, versionOf(after));
      return before && versionOf(before) === versionOf(after) ? "unchanged" : "continue";
    }
    case "generate-secret":
      return generated(client, step, view, happened);
    case "workload-release":
      return released(context, resource, step, view);
    case "delete":
      if (isWorkloadRelease(step.target)) {
        const { name, namespace } = step.target;
        // The chart it was installed from, as helm recorded it: what the chart keeps is removed with it.
        const live = view.objects.get(keyOf({ ...step.target, metadata: { name, namespace } })) as
          | ObservedRelease
          | undefined;
        const uninstalled = await context.releases.uninstall(name, namespace, live?.spec.chart.name);
        return uninstalled ? "continue" : "unchanged";
      }
      return (await client.delete({
        apiVersion: step.target.apiVersion,
        kind: step.target.kind,
        metadata: { name: step.target.name, namespace: step.target.namespace },
      }))
        ? "continue"
        : "unchanged";
    case "retain":
      await release(client, module, step);
      return "continue";
    case "release-capability":
      await context.installer.release(step.capability, step.consumers);
      return "continue";
    case "remove-finalizer":
      await removeFinalizer(client, module.definition.plural, resource);
      return "continue";
  }
}
