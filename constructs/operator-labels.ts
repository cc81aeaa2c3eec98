import { OPERATOR_NAME } from "../lib/api/group.js";

/** The product the operator is part of, as `app.kubernetes.io/part-of` names it. */
export const PART_OF = "navique-ai-core";

/**
 * The labels that select the operator's pods: the Deployment's selector, the metrics Service's, the
 * PodDisruptionBudget's and the anti-affinity's. A Deployment's selector cannot change, so these hold
 * nothing that changes with a release (no version, no chart) and are the same for the construct and the
 * chart: a cluster moved from one to the other keeps its Deployment.
 */
export function operatorSelectorLabels(): Record<string, string> {
  return { "app.kubernetes.io/name": OPERATOR_NAME, "app.kubernetes.io/component": "operator" };
}

/** The labels of every object of the operator's install: the selector's, and the product it is part of. */
export function operatorLabels(): Record<string, string> {
  return { ...operatorSelectorLabels(), "app.kubernetes.io/part-of": PART_OF };
}
