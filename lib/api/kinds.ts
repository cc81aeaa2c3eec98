import { customResourceDefinition, type KindDefinition } from "./crd.js";
import { LICENSE_DEFINITION } from "./license.js";
import { POSTGRES_CLUSTER_DEFINITION } from "./postgres-cluster.js";
import { REFERENCE_GRANT_DEFINITION } from "./reference-grant.js";
import { STACK_DEFINITION } from "./stack.js";

/** Every kind of the core.navique.com API the product serves so far. */
export const KINDS: readonly KindDefinition[] = [
  LICENSE_DEFINITION,
  POSTGRES_CLUSTER_DEFINITION,
  STACK_DEFINITION,
  REFERENCE_GRANT_DEFINITION,
];

/** The CRDs of every kind, in a stable order. */
export function allCustomResourceDefinitions() {
  return KINDS.map(customResourceDefinition);
}
