/** The API group and version of every navique custom resource. */
export const API_GROUP = "core.navique.com";
export const API_VERSION = "v1alpha1";
export const API_GROUP_VERSION = `${API_GROUP}/${API_VERSION}`;

/** Names fixed for every part of the product (SPEC section 9). */
export const OPERATOR_NAME = "navique-ai-core-operator";
export const SYSTEM_NAMESPACE = "navique-system";
export const FINALIZER = `${API_GROUP}/finalizer`;

/** Ownership marks stamped on every capability release the product installs. */
export const MANAGED_BY_LABEL = "app.kubernetes.io/managed-by";
export const PROVENANCE_LABEL = `${API_GROUP}/provenance`;
export const OWNERSHIP_MARKS: Readonly<Record<string, string>> = {
  [MANAGED_BY_LABEL]: OPERATOR_NAME,
  [PROVENANCE_LABEL]: "owned",
};

/** Label on every object the product emits for a resource: `<kind>.<namespace>.<name>` of that resource. */
export const OWNED_BY_LABEL = `${API_GROUP}/owned-by`;
