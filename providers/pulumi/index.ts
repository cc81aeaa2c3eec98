// First: an older Node.js is refused with one message before any dependency can fail on it.
import "../../lib/package/require-node.js";

export { type ClusterArgs, DEFAULT_TIMEOUT_SECONDS, type DeepInput } from "./component-inputs.js";
export {
  ChatUI,
  type ChatUIArgs,
  ClickHouseCluster,
  type ClickHouseClusterArgs,
  Gateway,
  type GatewayArgs,
  MeilisearchInstance,
  type MeilisearchInstanceArgs,
  MongoCluster,
  type MongoClusterArgs,
  Observability,
  type ObservabilityArgs,
  PostgresCluster,
  type PostgresClusterArgs,
  RedisInstance,
  type RedisInstanceArgs,
  SecretsManagement,
  type SecretsManagementArgs,
  Stack,
  type StackArgs,
} from "./kinds.js";
