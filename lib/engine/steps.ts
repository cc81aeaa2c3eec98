import type { Condition } from "../api/conditions.js";
import type { EmittedObject } from "../api/resource-status.js";
import type { LicenceRefusal } from "../licence/enforce.js";
import type { KeyRule } from "./generated-secret.js";
import type { KubeObject } from "./objects.js";
import type { JsonPatchOperation } from "./release-marks.js";

/** What a desired state asks to be made: applied (server-side), or created once and never overwritten. */
export type DesiredStep =
  | { readonly kind: "apply"; readonly object: KubeObject; readonly description: string }
  | {
      /**
       * Create a Secret whose keys get their values by their rules unless it exists; never overwrite it.
       * Made by generateSecretStep (lib/engine/generated-secret.ts), which also says what its deletion means.
       */
      readonly kind: "generate-secret";
      readonly object: KubeObject;
      readonly keys: Readonly<Record<string, KeyRule>>;
      /** What follows when it is re-created with new values (who applies them, who must pick them up). */
      readonly rotation: string;
      /** The product made it before (it is in status.emitted): created again, it is a rotation. */
      readonly madeBefore?: boolean;
      readonly description: string;
    }
  | {
      /**
       * Install or upgrade the resource's release of a workload chart (lib/engine/workload-release.ts):
       * `object` is the release as a pseudo-object, whose marks become the record's labels.
       */
      readonly kind: "workload-release";
      readonly object: KubeObject;
      /** The catalog entry (lib/catalog/catalog.ts WORKLOADS). */
      readonly workload: string;
      readonly values: Readonly<Record<string, unknown>>;
      /** Nothing differs from the release as observed: the executor runs no helm and writes no revision. */
      readonly current: boolean;
      readonly description: string;
    };

/** One step of a plan, performed in order by the one executor (lib/engine/execute.ts). */
export type PlanStep =
  | DesiredStep
  | {
      /** Install, upgrade or wait for exactly this capability (its prerequisites come first, by the installer). */
      readonly kind: "ensure-capability";
      readonly capability: string;
      readonly description: string;
    }
  | { readonly kind: "delete"; readonly target: EmittedObject; readonly description: string }
  | {
      /** Keep the object and release it to the user: `patch` removes every mark of the product from it. */
      readonly kind: "retain";
      readonly target: EmittedObject;
      readonly patch: readonly JsonPatchOperation[];
      readonly description: string;
    }
  | {
      readonly kind: "release-capability";
      readonly capability: string;
      readonly consumers: readonly string[];
      readonly description: string;
    }
  | { readonly kind: "remove-finalizer"; readonly description: string };

export interface PlannedEvent {
  readonly type: "Normal" | "Warning";
  readonly reason: string;
  readonly message: string;
  /** What identifies the cause (a failure's fingerprint), so that it is recorded once; the message when unset. */
  readonly cause?: string;
  /**
   * The cluster-scoped object the Event is about, when it cannot be recorded about the resource: a
   * namespace being deleted refuses every new object, Events included. Recorded in `default`, as
   * Kubernetes records Events about Nodes, with the resource as the related object.
   */
  readonly regarding?: { readonly apiVersion: string; readonly kind: string; readonly name: string };
}

/** The decisions of one pass over one resource of any kind. */
export interface Plan<Status = Record<string, unknown>> {
  /** Set when the licence refuses or skips this resource: nothing else is planned. */
  readonly refusal?: LicenceRefusal;
  readonly steps: readonly PlanStep[];
  readonly conditions: readonly Condition[];
  readonly events: readonly PlannedEvent[];
  readonly status: Status;
  /** Not Ready yet and nothing failed: look again later. */
  readonly requeue: boolean;
  /** When to look again, where the verdict asks for a delay of its own (Verdict.requeueAfterMs). */
  readonly requeueAfterMs?: number;
  /**
   * Set when the pass goes on to the resource's capability operators: it ensures each (installs, upgrades
   * or waits for it) and records it relied on. Absent when the resource is held back before them (the
   * licence, the operator's scope, a grant, a dependency) or refused (a name taken, a Stalled verdict):
   * nothing is installed or relied on for it. Decided by planResource alone; every preview reads it here.
   */
  readonly reachesOperators?: true;
}
