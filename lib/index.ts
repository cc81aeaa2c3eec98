/**
 * `@navique/ai-core`: the core every front end runs — the kinds' schemas and types (what a custom
 * resource, a Pulumi component and a cdk8s construct accept), the registry of kinds, and the validation
 * errors they raise. The front ends are `@navique/ai-core/pulumi` and `@navique/ai-core/cdk8s`.
 * Every default a spec field's documentation names (`@default 1 (DEFAULT_POSTGRES_INSTANCES)`) is
 * exported here under that name.
 */
import "./package/require-node.js";

export { API_GROUP, API_GROUP_VERSION, API_VERSION } from "./api/group.js";
export { REFERENCE_GRANT_KIND, type ReferenceGrantSpecInput } from "./api/reference-grant.js";
export { type FieldProblem, ValidationError } from "./api/validation.js";
export {
  CHAT_UI_KIND,
  ChatUISpec,
  type ChatUISpecInput,
  DEFAULT_CHAT_UI_REPLICAS,
  DEFAULT_ENDPOINT_NAME,
  DEFAULT_IMAGE_STORAGE_SIZE,
} from "./kinds/chat-ui/schema.js";
export { DEFAULT_CLICKHOUSE_IMAGE, DEFAULT_KEEPER_IMAGE } from "./kinds/clickhouse-cluster/clickhouse-operator-api.js";
export {
  CLICKHOUSE_CLUSTER_KIND,
  ClickHouseClusterSpec,
  type ClickHouseClusterSpecInput,
  DEFAULT_ADOPTED_CLICKHOUSE_USERNAME,
  DEFAULT_CLICKHOUSE_REPLICAS,
  DEFAULT_CLICKHOUSE_SHARDS,
  DEFAULT_CLICKHOUSE_STORAGE_SIZE,
  DEFAULT_CLICKHOUSE_TYPE,
  DEFAULT_KEEPER_REPLICAS,
  DEFAULT_KEEPER_STORAGE_SIZE,
} from "./kinds/clickhouse-cluster/schema.js";
export { DEFAULT_DATASTORE_MODE, DEFAULT_DELETION_POLICY } from "./kinds/datastore/mode.js";
export {
  DEFAULT_GATEWAY_REPLICAS,
  GATEWAY_KIND,
  GatewaySpec,
  type GatewaySpecInput,
} from "./kinds/gateway/schema.js";
export { LICENSE_KIND, type LicenseSpecInput } from "./kinds/license/schema.js";
export {
  DEFAULT_CONSOLE_ENABLED,
  DEFAULT_CONSOLE_REFRESH_SECONDS,
  DEFAULT_RECENT_EVENTS_MINUTES,
  MANAGEMENT_PLANE_KIND,
  type ManagementPlaneSpecInput,
} from "./kinds/management-plane/schema.js";
export {
  DEFAULT_MEILISEARCH_STORAGE_SIZE,
  MeilisearchInstanceSpec,
  type MeilisearchInstanceSpecInput,
} from "./kinds/meilisearch-instance/schema.js";
export {
  DEFAULT_MONGO_MEMBERS,
  DEFAULT_MONGO_STORAGE_SIZE,
  DEFAULT_MONGO_TYPE,
  DEFAULT_MONGO_VERSION,
  MONGO_CLUSTER_KIND,
  MongoClusterSpec,
  type MongoClusterSpecInput,
} from "./kinds/mongo-cluster/schema.js";
export {
  DEFAULT_LANGFUSE_REPLICAS,
  DEFAULT_S3_FORCE_PATH_STYLE,
  DEFAULT_S3_REGION,
  OBSERVABILITY_KIND,
  ObservabilitySpec,
  type ObservabilitySpecInput,
} from "./kinds/observability/schema.js";
export {
  DEFAULT_ORGANIZATION_ROLE,
  ORGANIZATION_KIND,
  OrganizationSpec,
  type OrganizationSpecInput,
} from "./kinds/organization/schema.js";
export {
  DEFAULT_POSTGRES_INSTANCES,
  DEFAULT_POSTGRES_STORAGE_SIZE,
  DEFAULT_POSTGRES_TYPE,
  POSTGRES_CLUSTER_KIND,
  PostgresClusterSpec,
  type PostgresClusterSpecInput,
  PostgresClusterStatus,
} from "./kinds/postgres-cluster/schema.js";
export { DEFAULT_REDIS_IMAGE, DEFAULT_SENTINEL_IMAGE } from "./kinds/redis-instance/redis-operator-api.js";
export {
  DEFAULT_ADOPTED_REDIS_KIND,
  DEFAULT_REDIS_REPLICAS,
  DEFAULT_REDIS_SENTINEL,
  DEFAULT_REDIS_STORAGE_SIZE,
  DEFAULT_REDIS_TOPOLOGY,
  DEFAULT_REDIS_TYPE,
  RedisInstanceSpec,
  type RedisInstanceSpecInput,
} from "./kinds/redis-instance/schema.js";
export { REGISTRY, ReferenceGrantSpec } from "./kinds/registry.js";
export {
  DEFAULT_AWS_SERVICE,
  DEFAULT_AZURE_AUTH_TYPE,
  DEFAULT_REFRESH_INTERVAL,
  DEFAULT_VAULT_KUBERNETES_MOUNT,
  DEFAULT_VAULT_KV_VERSION,
  DEFAULT_VAULT_PATH,
  SECRETS_MANAGEMENT_KIND,
  SecretsManagementSpec,
  type SecretsManagementSpecInput,
} from "./kinds/secrets-management/schema.js";
export {
  DEFAULT_STACK_CLICKHOUSE_MANAGED,
  DEFAULT_STACK_DATABASES,
  DEFAULT_STACK_MEILISEARCH_MANAGED,
  DEFAULT_STACK_MONGO_MANAGED,
  DEFAULT_STACK_POSTGRES,
  DEFAULT_STACK_POSTGRES_MANAGED,
  DEFAULT_STACK_REDIS_MANAGED,
  STACK_KIND,
  StackSpec,
  type StackSpecInput,
} from "./kinds/stack/schema.js";
export { TEAM_KIND, TeamSpec, type TeamSpecInput } from "./kinds/team/schema.js";
export {
  DEFAULT_TEAM_ROLE,
  DEFAULT_USER_ROLE,
  USER_KIND,
  UserSpec,
  type UserSpecInput,
} from "./kinds/user/schema.js";
export { PACKAGE_VERSION } from "./package/manifest.js";
// The JSON documents of `navique status`, `navique doctor` and `navique plan` (-o json), for scripts that
// read them: their zod schemas and types (docs/status-and-doctor.md, docs/plan.md).
export {
  DOCTOR_EXIT_CODES,
  DOCTOR_REPORT_VERSION,
  DoctorReport,
  Finding,
  FindingCode,
} from "./reports/doctor-report.js";
export { PLAN_REPORT_VERSION, PlannedResource, PlanReport } from "./reports/plan-report.js";
export {
  CapabilityState,
  CapUse,
  ClusterState,
  LicenceState,
  OperatorState,
  ResourceReference,
  ResourceState,
  STATUS_EXIT_CODES,
  STATUS_REPORT_VERSION,
  StatusReport,
} from "./reports/status-report.js";
