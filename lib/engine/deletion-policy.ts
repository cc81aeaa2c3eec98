import type { EmittedKind } from "./kind-module.js";
import type { KubeObject } from "./objects.js";

/** Annotation on an emitted stateful object: the deletion policy in force when it was created. */
export const DELETION_POLICY_ANNOTATION = "core.navique.com/deletion-policy";

/**
 * Whether deletionPolicy Retain keeps `object` when it is no longer desired: its kind may hold data, and
 * the policy recorded on it (Retain when absent: the default, ADR 0005) is not Delete.
 */
export function keptUnderRetain(kind: EmittedKind | undefined, object: KubeObject): boolean {
  return (
    kind?.stateful !== undefined && (object.metadata.annotations?.[DELETION_POLICY_ANNOTATION] ?? "Retain") !== "Delete"
  );
}
