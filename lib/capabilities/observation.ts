import type { ReleaseRecord, ReleaseWorkload } from "../cluster/release-record.js";

// What detection reads of a capability, apart from the code that reads it (observe/capability.ts): the
// engine's types name these without reaching the Kubernetes client's types.

export interface CrdState {
  readonly name: string;
  readonly exists: boolean;
  readonly established: boolean;
}

/** A Deployment recognised as the capability's controller by its identity, wherever it runs. */
export interface ControllerSighting {
  readonly name: string;
  readonly namespace: string;
  /** Which identity matched: `label app.kubernetes.io/name=cloudnative-pg` or `image ghcr.io/...`. */
  readonly matchedBy: string;
  /** Its rollout is complete, as `kubectl rollout status` says (lib/capabilities/workload-readiness.ts). */
  readonly ready: boolean;
  /** The replicas it asks for now (`spec.replicas`). */
  readonly replicas: number;
  /** Its replicas available now (`status.availableReplicas`): none, and nothing serves the capability. */
  readonly availableReplicas: number;
}

export interface WorkloadState extends ReleaseWorkload {
  readonly exists: boolean;
  /** Its rollout is complete, as `kubectl rollout status` says (lib/capabilities/workload-readiness.ts). */
  readonly ready: boolean;
  /** The replicas it asks for now (`spec.replicas`); 0 when it does not exist. */
  readonly replicas: number;
  /** Its replicas available now; 0 when it does not exist. */
  readonly availableReplicas: number;
}

/** Everything detection and readiness need to know about one capability, read from the cluster. */
export interface CapabilityObservation {
  readonly name: string;
  /** Latest revision of the release under the catalog's fixed name and namespace, if any. */
  readonly release?: ReleaseRecord;
  readonly crds: readonly CrdState[];
  /** Filled only when detection needs it: CRDs present and no release of the expected name. */
  readonly controllers: readonly ControllerSighting[];
  /** The Deployments and StatefulSets the release's manifest declares, with their readiness. */
  readonly releaseWorkloads: readonly WorkloadState[];
}
