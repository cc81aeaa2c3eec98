/**
 * `@navique/ai-core`: the core every front end runs — the kinds' schemas and types (what a custom
 * resource, a Pulumi component and a cdk8s construct accept), the registry of kinds, and the validation
 * errors they raise. The front ends are `@navique/ai-core/pulumi` and `@navique/ai-core/cdk8s`.
 */
import "./package/require-node.js";

export { API_GROUP, API_GROUP_VERSION, API_VERSION } from "./api/group.js";
export { LICENSE_KIND } from "./api/license.js";
export {
  POSTGRES_CLUSTER_KIND,
  PostgresClusterSpec,
  type PostgresClusterSpecInput,
  PostgresClusterStatus,
} from "./api/postgres-cluster.js";
export {
  REFERENCE_GRANT_KIND,
  ReferenceGrantSpec,
} from "./api/reference-grant.js";
export { STACK_KIND, StackSpec, type StackSpecInput } from "./api/stack.js";
export { type FieldProblem, ValidationError } from "./api/validation.js";
export { RedisInstanceSpec, type RedisInstanceSpecInput } from "./kinds/redis-instance/schema.js";
export { REGISTRY } from "./kinds/registry.js";
export { PACKAGE_VERSION } from "./package/manifest.js";
