import * as z from "zod";
import { AGE_COLUMN, type KindDefinition, READY_COLUMN } from "../../api/crd.js";
import { API_GROUP } from "../../api/group.js";
import { httpUrl } from "../../api/http-url.js";
import { withDefault } from "../../api/named-default.js";
import { LocalRef, localSecretKeyRef, ObjectRef, referenceTo } from "../../api/refs.js";
import { Connection, ENGINE_STATUS } from "../../api/resource-status.js";
import { storedResource } from "../../api/stored-resource.js";
import { DATASTORE_NAME_PATTERN, datastoreName, datastoreNameRules } from "../datastore/name.js";
import { SecretsRef } from "../secrets-management/secrets-ref.js";

export const OBSERVABILITY_KIND = "Observability";
export const OBSERVABILITY_PLURAL = "observabilities";

/**
 * Longest Observability name: its Helm release bears its name, and helm refuses a release name of more
 * than 53 characters (the chart's Services, `<name>-web`, stay within a DNS label's 63).
 */
export const MAX_OBSERVABILITY_NAME = 53;

const NAMED_AFTER_OBSERVABILITY =
  "its Helm release is named after it, and helm allows a release name of at most 53 characters";

/** An Observability's metadata.name: see MAX_OBSERVABILITY_NAME. */
export const observabilityName = datastoreName(OBSERVABILITY_KIND, MAX_OBSERVABILITY_NAME, NAMED_AFTER_OBSERVABILITY);

/** One key of a Secret in the Observability's namespace (the chart passes it to Langfuse's environment). */
const LocalSecretKeyRef = localSecretKeyRef(OBSERVABILITY_KIND);

const refTo = <const K extends string>(kind: K) => referenceTo({ group: API_GROUP, kinds: [kind] } as const, ObjectRef);

/** @default for `spec.s3.region`. */
export const DEFAULT_S3_REGION = "auto";
/** @default for `spec.web.replicas` and `spec.worker.replicas`. */
export const DEFAULT_LANGFUSE_REPLICAS = 1;
/** @default for `spec.s3.forcePathStyle`: virtual-hosted buckets, as AWS S3 wants. */
export const DEFAULT_S3_FORCE_PATH_STYLE = false;

/** A bucket name as S3 and its compatible stores take one: 3–63 lowercase letters, digits, '.' and '-'. */
const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

export const ObservabilityS3 = z
  .object({
    bucket: z
      .string()
      .max(63)
      .regex(BUCKET, {
        message: "must be an S3 bucket name: 3 to 63 lowercase letters, digits, '.' and '-' (e.g. langfuse)",
      })
      .describe("The bucket Langfuse keeps its events, exports and media in (it must exist)."),
    region: withDefault(
      z
        .string()
        .min(1)
        .max(63)
        .regex(/^[a-z0-9-]+$/, {
          message: "must be a region name: lowercase letters, digits and '-' (e.g. eu-west-1)",
        }),
      { DEFAULT_S3_REGION },
    ).describe(`The bucket's region. Default ${DEFAULT_S3_REGION} (what S3-compatible stores without regions take).`),
    endpoint: httpUrl(2048, "https://minio.storage.svc:9000")
      .optional()
      .describe("The S3-compatible store's URL (MinIO, R2, …). Default: AWS S3 of the region."),
    forcePathStyle: withDefault(z.boolean(), { DEFAULT_S3_FORCE_PATH_STYLE }).describe(
      `Address the bucket in the path (\`<endpoint>/<bucket>\`), as MinIO needs. Default ${DEFAULT_S3_FORCE_PATH_STYLE}.`,
    ),
    accessKeyIdSecretRef: LocalSecretKeyRef.describe(
      "The access key id, from a Secret key in the Observability's namespace; never a value.",
    ),
    secretAccessKeySecretRef: LocalSecretKeyRef.describe(
      "The secret access key, from a Secret key in the Observability's namespace; never a value.",
    ),
  })
  .strict()
  .describe("The S3-compatible object storage Langfuse needs; its keys by Secret reference.");
export type ObservabilityS3 = z.infer<typeof ObservabilityS3>;

const displayName = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[\x20-\x7e]*[\x21-\x7e]$/, { message: "must be printable ASCII, not ending with a space" });

const replicas = (what: string) =>
  z
    .object({
      replicas: withDefault(z.number().int().min(1).max(20), { DEFAULT_LANGFUSE_REPLICAS }).describe(
        `Replicas of Langfuse's ${what}. Default ${DEFAULT_LANGFUSE_REPLICAS}.`,
      ),
    })
    .strict()
    .default({ replicas: DEFAULT_LANGFUSE_REPLICAS });

export const ObservabilitySpec = z
  .object({
    postgresClusterRef: refTo("PostgresCluster").describe(
      "The PostgresCluster Langfuse keeps its transactional data in: its own database and user are claimed there (in another namespace only under a ReferenceGrant there).",
    ),
    clickhouseClusterRef: refTo("ClickHouseCluster").describe(
      "The ClickHouseCluster Langfuse keeps traces, observations and scores in (a single node: Langfuse's cluster mode is off).",
    ),
    redisInstanceRef: refTo("RedisInstance").describe("The RedisInstance Langfuse queues and caches in."),
    s3: ObservabilityS3,
    url: httpUrl(2048, "https://langfuse.example.com")
      .optional()
      .describe(
        "Where users open Langfuse in their browser (NEXTAUTH_URL), e.g. behind your Ingress. Default: the web Service's URL inside the cluster.",
      ),
    organization: displayName
      .optional()
      .describe("The name of the organisation made at first start. Default: the resource's namespace."),
    project: displayName
      .optional()
      .describe(
        "The name of the project made at first start, whose keys gateways send traces with. Default: the resource's name.",
      ),
    projectKeysSecretRef: LocalRef.optional().describe(
      "A Secret in this namespace holding the project's keys (`public-key`: pk-lf-…, `secret-key`: sk-lf-…) that you keep, e.g. sealed in git, so that a gateway wired by hand can name the same Secret. Default: generated into the Secret `<name>-project-keys`.",
    ),
    web: replicas("web (UI and API)").describe(
      `Langfuse's web Deployment. Default: ${DEFAULT_LANGFUSE_REPLICAS} replica.`,
    ),
    worker: replicas("worker (ingestion into ClickHouse)").describe(
      `Langfuse's worker Deployment. Default: ${DEFAULT_LANGFUSE_REPLICAS} replica.`,
    ),
    secretsRef: SecretsRef.optional().describe(
      "The SecretsManagement of this namespace that provides the Secrets it reads (the S3 keys, the project keys): nothing is applied before it is Ready, and each must be one it lists in status.secrets. Default: the Secrets are yours.",
    ),
  })
  .strict()
  .describe(
    "Desired state of a Langfuse: its datastores by reference, its object storage, and the project gateways send traces to.",
  );
export type ObservabilitySpec = z.infer<typeof ObservabilitySpec>;
/** What a program writes as an Observability's spec, each field documented (generated from ObservabilitySpec). */
export type { ObservabilitySpecInput } from "../../api/generated/observability-spec.js";

export const ObservabilityStatus = z
  .object({
    ...ENGINE_STATUS,
    connection: Connection.optional().describe(
      "Where gateways send traces (url http://host:3000), and the Secret holding the project's keys (keys public-key and secret-key).",
    ),
    project: z
      .string()
      .optional()
      .describe("The organisation and project made at first start, as `<organisation id>/<project id>`."),
  })
  .strict();
export type ObservabilityStatus = z.infer<typeof ObservabilityStatus>;

/** An Observability as stored in the cluster. */
export const Observability = storedResource(
  OBSERVABILITY_KIND,
  ObservabilitySpec,
  ObservabilityStatus,
  observabilityName,
);
export type Observability = z.infer<typeof Observability>;

export const OBSERVABILITY_DEFINITION: KindDefinition = {
  kind: OBSERVABILITY_KIND,
  plural: OBSERVABILITY_PLURAL,
  singular: "observability",
  shortNames: ["obs"],
  scope: "Namespaced",
  description:
    "LLM observability: a Langfuse (the official chart, one release per resource) on a PostgresCluster, a ClickHouseCluster, a RedisInstance and S3-compatible storage, with a project whose keys gateways send traces with.",
  spec: ObservabilitySpec,
  status: ObservabilityStatus,
  printerColumns: [
    READY_COLUMN,
    {
      name: "URL",
      type: "string",
      jsonPath: ".status.connection.url",
      description: "Where traces are sent",
      priority: 1,
    },
    AGE_COLUMN,
  ],
  namePattern: DATASTORE_NAME_PATTERN,
  rootValidations: datastoreNameRules(OBSERVABILITY_KIND, MAX_OBSERVABILITY_NAME, NAMED_AFTER_OBSERVABILITY),
};
