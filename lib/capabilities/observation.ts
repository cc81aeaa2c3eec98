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
  readonly ready: boolean;
}

export interface WorkloadState extends ReleaseWorkload {
  readonly exists: boolean;
  readonly ready: boolean;
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
