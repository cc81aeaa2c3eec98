/**
 * deletionPolicy Retain keeps a datastore's objects when its resource is deleted, in the resource's
 * namespace: deleting that namespace deletes them all the same — every namespaced object goes with its
 * namespace — and with their claims the data on their volumes, unless each PersistentVolume's reclaim
 * policy is Retain. This rule says so, in one place: on every DatastoreRetained Event, on the phase
 * condition, Ready and a Warning Event when the namespace is being deleted under a resource being
 * finalized, and in the previews of a resource whose namespace the same program or files delete.
 *
 * Kubernetes facts (kubernetes/website content/en/docs/concepts/storage/persistent-volumes.md, "Reclaiming"
 * and "Recovering from Failure when Expanding Volumes"; tasks/administer-cluster/change-pv-reclaim-policy.md):
 * when a claim is deleted, a volume under `Retain` stays, Released, its data kept, and binds no other claim
 * until its `spec.claimRef` is removed; one under `Delete` is deleted with its storage; dynamically
 * provisioned volumes take the reclaim policy of their StorageClass, `Delete` unless it says otherwise; the
 * policy of an existing volume is changed with `kubectl patch pv`. A namespace being deleted refuses every
 * new object in it, Events included (the NamespaceLifecycle admission plugin, k8s.io/apiserver
 * pkg/admission/plugin/namespace/lifecycle/admission.go): the Warning Event is recorded about the
 * Namespace, in `default`, where Kubernetes records Events about cluster-scoped objects.
 */
import type { EngineResource, Verdict } from "./kind-module.js";
import type { PlannedEvent } from "./steps.js";

/** Reason of the phase condition, Ready and the Warning Event when what Retain keeps goes with its namespace. */
export const RETAIN_LOST_WITH_NAMESPACE = "RetainLostWithNamespace";

/** A PersistentVolumeClaim of the namespace and the volume it is bound to. */
export interface VolumeClaim {
  readonly name: string;
  /** `spec.volumeName`: the PersistentVolume it is bound to; absent while unbound. */
  readonly volume?: string;
}

/** The resource's namespace as a deletion pass sees it (lib/engine/observe-namespace.ts). */
export interface ObservedNamespace {
  readonly name: string;
  /** Being deleted (`status.phase` Terminating, or a deletionTimestamp): everything in it goes. */
  readonly terminating: boolean;
  /** Its PersistentVolumeClaims: read only while it is being deleted, empty otherwise. */
  readonly volumeClaims: readonly VolumeClaim[];
}

/** An object Retain keeps, as the rule names it. */
export interface KeptObject {
  readonly kind: string;
  /** What messages call its kind: `CNPG Cluster`. */
  readonly label: string;
  readonly namespace: string;
  readonly name: string;
}

/** How many names a message lists before `and N more`: an Event's note holds 1024 characters. */
const LISTED = 6;

function listed(names: readonly string[]): string {
  return names.length > LISTED
    ? `${names.slice(0, LISTED).join(", ")} and ${names.length - LISTED} more`
    : names.join(", ");
}

/** What the user does to keep the data of a volume whose claim is about to go: the truth of reclaim policies. */
export const KEEPING_VOLUMES =
  "To keep the data, set the reclaim policy of each claim's volume to Retain before the claim is gone " +
  `(kubectl patch pv VOLUME -p '{"spec":{"persistentVolumeReclaimPolicy":"Retain"}}'): the volume then ` +
  "outlives its claim, Released with its data, and binds a new claim naming it in spec.volumeName once its " +
  "spec.claimRef is removed. Under Delete, what dynamic provisioning gives unless the StorageClass says Retain, " +
  "the volume and its data are deleted with the claim. Secrets go for good: copy out those you need first";

/**
 * Appended to every DatastoreRetained Event: where what Retain kept stays, and that it goes with that
 * namespace. `count`: how many objects were kept.
 */
export function goesWithNamespace(namespace: string, count: number): string {
  const [them, their] = count > 1 ? ["them", "their"] : ["it", "its"];
  return `. Deleting namespace ${namespace} deletes ${them} all the same, and the data on ${their} volumes unless their PersistentVolumes' reclaim policy is Retain`;
}

/**
 * The line a preview prints for a resource whose desired state Retain would keep (`retains`), in a
 * namespace the same program or files delete (`namespace.deletedBy`, with how to keep it); undefined when
 * Retain keeps nothing of it.
 */
export function previewWarning(
  resource: EngineResource,
  retains: readonly { readonly label: string; readonly name: string }[],
  namespace: { readonly deletedBy: string; readonly keep: string },
): string | undefined {
  if (retains.length === 0) return undefined;
  const where = resource.metadata.namespace;
  const names = listed(retains.map((o) => `${o.label} ${where}/${o.name}`));
  return `${resource.kind} ${where}/${resource.metadata.name}: deletionPolicy Retain keeps ${names} when it is deleted, but not when its namespace is: namespace ${where} is ${namespace.deletedBy}: deleting it deletes everything in it, the data on the volumes of its claims included unless their PersistentVolumes' reclaim policy is Retain. If the data must outlive it, ${namespace.keep}`;
}

/**
 * A Namespace declared in the files `navique plan` reads (cdk8s synth output): what deletes it, and how
 * its user keeps it. Argo CD's sync options `Delete=false` and `Prune=false` keep a resource when its
 * Application is deleted and when it leaves the files (argoproj/argo-cd docs/user-guide/sync-options.md,
 * "No Resource Deletion" and "No Prune Resources").
 */
export const DECLARED_IN_THE_FILES = {
  deletedBy:
    "declared in these files too, and deleted with what they declare (kubectl delete -f, an Argo CD Application deleted or pruned)",
  keep: "create the namespace apart from these files, or, with Argo CD, annotate it argocd.argoproj.io/sync-options: Delete=false,Prune=false",
} as const;

/** What a deletion pass says when what Retain keeps goes with its namespace, and whether it holds the finalizer. */
export interface LostWithNamespace {
  readonly verdict: Verdict;
  /**
   * Planned the first time only: then the finalizer stays for this pass, so that the condition is written
   * before the resource goes; the next pass, which finds it reported, says nothing more and removes it.
   */
  readonly event?: PlannedEvent;
}

/**
 * A resource being finalized under Retain (`kept`: what Retain keeps of it, as observed; `retains`: whether its
 * spec keeps data at all) whose namespace is being deleted: its phase condition and Ready say what goes with the
 * namespace and how to keep the data, and one Warning Event about the Namespace says it where it outlives
 * the namespace. Undefined when the namespace is not being deleted, or Retain keeps nothing of it.
 */
export function lostWithNamespace(
  resource: EngineResource,
  kept: readonly KeptObject[],
  retains: boolean,
  namespace: ObservedNamespace | undefined,
  reportedBefore: boolean,
): LostWithNamespace | undefined {
  if (!namespace?.terminating || (!retains && kept.length === 0)) return undefined;
  const who = `${resource.kind} ${resource.metadata.namespace}/${resource.metadata.name}`;
  const claimed = new Map(namespace.volumeClaims.map((c) => [c.name, c.volume]));
  // A claim says the volume its data is on: the name `kubectl patch pv` needs.
  const bound = (name: string) => {
    const volume = claimed.get(name);
    return volume ? ` (volume ${volume})` : " (not bound)";
  };
  const isClaim = (o: KeptObject) =>
    o.kind === "PersistentVolumeClaim" && o.namespace === namespace.name && claimed.has(o.name);
  const objects = kept.map((o) => `${o.label} ${o.namespace}/${o.name}${isClaim(o) ? bound(o.name) : ""}`);
  const keptClaims = new Set(kept.filter(isClaim).map((o) => o.name));
  const claims = namespace.volumeClaims
    .filter((c) => !keptClaims.has(c.name))
    .map((c) => `${namespace.name}/${c.name}${bound(c.name)}`);
  const parts = [
    ...(objects.length > 0 ? [`${listed(objects)}, which deletionPolicy Retain keeps`] : []),
    ...(claims.length > 0 ? [`the PersistentVolumeClaim(s) ${listed(claims)}`] : []),
  ];
  const what = parts.length > 0 ? `: ${parts.join("; ")}` : "";
  const message = `namespace ${namespace.name} is being deleted, and everything in it goes with it${what}. Retain keeps nothing in a namespace that goes. ${KEEPING_VOLUMES}`;
  const verdict = { ok: false, reason: RETAIN_LOST_WITH_NAMESPACE, message };
  if (reportedBefore) return { verdict };
  return {
    verdict,
    event: {
      type: "Warning",
      reason: RETAIN_LOST_WITH_NAMESPACE,
      message: `${who}: ${message}`,
      regarding: { apiVersion: "v1", kind: "Namespace", name: namespace.name },
    },
  };
}
