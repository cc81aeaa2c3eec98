// First: an older Node.js is refused with one message before any dependency can fail on it.
import "../../lib/package/require-node.js";

export { type ClusterArgs, DEFAULT_TIMEOUT_SECONDS, type DeepInput } from "./component-inputs.js";
export { Gateway, type GatewayArgs } from "./gateway.js";
export { MeilisearchInstance, type MeilisearchInstanceArgs } from "./meilisearch-instance.js";
export { PostgresCluster, type PostgresClusterArgs } from "./postgres-cluster.js";
export { RedisInstance, type RedisInstanceArgs } from "./redis-instance.js";
export { Stack, type StackArgs } from "./stack.js";
