import { canonicalJson } from "../api/canonical-json.js";
import type { WorkloadEntry } from "../catalog/workload.js";
import type { EmittedKind, Verdict } from "./kind-module.js";
import { type KubeObject, keyOf } from "./objects.js";
import type { DesiredStep } from "./steps.js";
import type { EngineView } from "./view.js";

/**
 * A per-resource Helm release is recorded like any object a kind emits — in `status.emitted`, in the
 * view, under the ownership rules — as an object of this pseudo-kind: helm's storage type
 * (`helm.sh/release.v1`, the type of its release Secrets) and `Release`. It is never sent to the
 * apiserver: the engine reads it from helm's records and acts on it through helm (docs/adr/0032).
 */
export const RELEASE_API_VERSION = "helm.sh/release.v1";
export const RELEASE_KIND = "Release";

/** What a module declares in `emits` for its workload release; the operator watches its records (Secrets). */
export const WORKLOAD_RELEASE: EmittedKind = {
  apiVersion: RELEASE_API_VERSION,
  kind: RELEASE_KIND,
  plural: "releases",
  label: "Helm release",
};

/** Whether an object, a key or an emitted entry is a workload release. */
export function isWorkloadRelease(object: { readonly apiVersion: string; readonly kind: string }): boolean {
  return object.apiVersion === RELEASE_API_VERSION && object.kind === RELEASE_KIND;
}

/**
 * What watching an emitted kind watches: the kind itself, or for a workload release helm's records of it,
 * Secrets carrying the owner's owned-by label (the release's labels are its record's).
 */
export function watchedAs(emitted: EmittedKind): Pick<EmittedKind, "apiVersion" | "kind" | "plural"> {
  return isWorkloadRelease(emitted) ? { apiVersion: "v1", kind: "Secret", plural: "secrets" } : emitted;
}

/** A workload's rollout as the view holds it (lib/capabilities/workload-readiness.ts decides it). */
export interface ObservedWorkload {
  readonly kind: string;
  readonly name: string;
  readonly namespace: string;
  readonly done: boolean;
  readonly failed: boolean;
  readonly message: string;
}

/** A release as the view holds it: its record's labels, chart and values, its revision and its workloads. */
export interface ObservedRelease extends KubeObject {
  readonly spec: { readonly chart: { readonly name?: string; readonly version?: string }; readonly values: unknown };
  readonly status: {
    readonly revision: number;
    readonly status: string;
    readonly workloads: readonly ObservedWorkload[];
  };
}

/** The release object a kind's desired state names: the engine marks it, its labels go on the record. */
function releaseObject(name: string, namespace: string): KubeObject {
  return { apiVersion: RELEASE_API_VERSION, kind: RELEASE_KIND, metadata: { name, namespace } };
}

/** The observed release of the view, when there is one. */
export function observedRelease(view: EngineView, name: string, namespace: string): ObservedRelease | undefined {
  return view.objects.get(keyOf(releaseObject(name, namespace))) as ObservedRelease | undefined;
}

/**
 * What differs between the release as it is and as wanted — its chart version, its values, a revision
 * not deployed — or an empty list when it is current: then nothing is run and no revision is written.
 */
export function releaseChanges(
  live: ObservedRelease | undefined,
  wanted: { readonly version: string; readonly values: unknown },
): string[] {
  if (!live) return ["not installed"];
  const changes: string[] = [];
  if (live.status.status !== "deployed") changes.push(`revision ${live.status.revision} is ${live.status.status}`);
  if (live.spec.chart.version !== wanted.version)
    changes.push(`chart ${live.spec.chart.version ?? "unknown"} to ${wanted.version}`);
  if (canonicalJson(live.spec.values ?? {}) !== canonicalJson(wanted.values)) changes.push("values changed");
  return changes;
}

/**
 * The step that installs or upgrades the release `name` of `entry` in `namespace` with `values` — only
 * when something differs (releaseChanges); its description says which. Values carry every secret by
 * reference (an existing Secret's name), never a value: they are stored in the release record.
 */
export function workloadReleaseStep(
  view: EngineView,
  release: { readonly name: string; readonly namespace: string },
  entry: WorkloadEntry,
  values: Readonly<Record<string, unknown>>,
): Extract<DesiredStep, { kind: "workload-release" }> {
  const { name, namespace } = release;
  const chart = `${entry.chart.name} ${entry.chart.version}`;
  const live = observedRelease(view, name, namespace);
  const changes = releaseChanges(live, { version: entry.chart.version, values });
  const description = !live
    ? `install Helm release ${namespace}/${name} (${chart})`
    : live.status.status === "uninstalling"
      ? `install Helm release ${namespace}/${name} again (${chart}: ${changes.join(", ")})`
      : changes.length > 0
        ? `upgrade Helm release ${namespace}/${name} (${chart}: ${changes.join(", ")})`
        : `Helm release ${namespace}/${name} is current (${chart}, revision ${live.status.revision})`;
  return {
    kind: "workload-release",
    object: releaseObject(name, namespace),
    workload: entry.name,
    values,
    current: changes.length === 0,
    description,
  };
}

/** Whether the release's workloads are rolled out, and if not, the first reason why (kubectl's wording). */
export function releaseRollout(live: ObservedRelease | undefined): {
  readonly ready: boolean;
  readonly message: string;
} {
  if (!live) return { ready: false, message: "not installed yet" };
  const where = `Helm release ${live.metadata.namespace}/${live.metadata.name}`;
  if (live.status.status !== "deployed")
    return { ready: false, message: `${where} revision ${live.status.revision} is ${live.status.status}` };
  const waiting = live.status.workloads.find((w) => !w.done);
  if (waiting)
    return { ready: false, message: `${waiting.kind} ${waiting.namespace}/${waiting.name}: ${waiting.message}` };
  const names = live.status.workloads.map((w) => `${w.kind} ${w.name}`).join(", ");
  return { ready: true, message: `${where} revision ${live.status.revision} rolled out${names ? ` (${names})` : ""}` };
}

/**
 * How long a pass waiting for a release's rollout waits before looking again: pods starting take seconds
 * to minutes, and the Deployments a chart renders are watched by nobody (only helm's records are).
 */
export const ROLLOUT_REQUEUE_MS = 10_000;

/**
 * The verdict on a workload release's rollout, for every kind that installs one: `readyReason` once the
 * revision is deployed and its workloads rolled out; otherwise Provisioning, saying what `what` waits for,
 * looked at again after ROLLOUT_REQUEUE_MS.
 */
export function rolloutVerdict(live: ObservedRelease | undefined, readyReason: string, what: string): Verdict {
  const rollout = releaseRollout(live);
  return rollout.ready
    ? { ok: true, reason: readyReason, message: rollout.message }
    : {
        ok: false,
        reason: "Provisioning",
        message: `waiting for ${what}: ${rollout.message}`,
        requeueAfterMs: ROLLOUT_REQUEUE_MS,
      };
}
