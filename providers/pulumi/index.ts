export { DEFAULT_TIMEOUT_SECONDS, PostgresCluster, type PostgresClusterArgs } from "./postgres-cluster.js";
export { Stack, type StackArgs } from "./stack.js";
