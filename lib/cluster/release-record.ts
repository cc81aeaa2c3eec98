/**
 * What the product reads from a Helm release record, apart from the code that reads it: the engine's
 * types (and so the package's declarations) name these without reaching the Kubernetes client's types.
 */

/** A workload the release's manifest declares, whose readiness the release's readiness depends on. */
export interface ReleaseWorkload {
  readonly kind: "Deployment" | "StatefulSet";
  readonly name: string;
  readonly namespace: string;
  /**
   * The replicas the manifest sets (`spec.replicas`), when it sets them: what re-applying the release
   * brings the workload back to. Absent when the chart leaves the field to the apiserver's default.
   */
  readonly declaredReplicas?: number;
}

/** What the product reads from one revision of a Helm release record. */
export interface ReleaseRecord {
  readonly name: string;
  readonly namespace: string;
  readonly revision: number;
  readonly status: string;
  /** Labels of the release Secret: helm's own plus any given with `--labels` (ownership marks). */
  readonly labels: Readonly<Record<string, string>>;
  readonly chart?: { readonly name?: string; readonly version?: string; readonly appVersion?: string };
  readonly workloads: readonly ReleaseWorkload[];
  /** The values the revision was installed with (none on a record read as metadata only). */
  readonly values?: Readonly<Record<string, unknown>>;
}
