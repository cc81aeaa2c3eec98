// First: an older Node.js is refused with one message before any dependency can fail on it.
import "../lib/package/require-node.js";

export {
  ChatUI,
  type ChatUIProps,
  ClickHouseCluster,
  type ClickHouseClusterProps,
  Gateway,
  type GatewayProps,
  MeilisearchInstance,
  type MeilisearchInstanceProps,
  MongoCluster,
  type MongoClusterProps,
  Observability,
  type ObservabilityProps,
  Organization,
  type OrganizationProps,
  PostgresCluster,
  type PostgresClusterProps,
  RedisInstance,
  type RedisInstanceProps,
  SecretsManagement,
  type SecretsManagementProps,
  Stack,
  type StackProps,
  Team,
  type TeamProps,
  User,
  type UserProps,
} from "./kinds.js";
export { NaviqueLicense, type NaviqueLicenseProps } from "./navique-license.js";
export { DEFAULT_OPERATOR_IMAGE, NaviqueOperator, type NaviqueOperatorProps } from "./navique-operator.js";
export { ReferenceGrant, type ReferenceGrantProps } from "./reference-grant.js";
export {
  type ExternalResource,
  fromName,
  type KindConstruct,
  type Referenceable,
  type SecretConstruct,
  type WithReferences,
} from "./references.js";
