import * as z from "zod";
import type { KindDefinition } from "../../api/crd.js";
import { withDefault } from "../../api/named-default.js";
import { byteQuantity } from "../../api/quantity.js";
import { objectName, SecretKeyRef } from "../../api/refs.js";
import { storedResource } from "../../api/stored-resource.js";
import { DEFAULT_DATASTORE_MODE, DEFAULT_DELETION_POLICY, DeletionPolicy } from "../datastore/mode.js";
import { datastoreModeRules } from "../datastore/mode-rules.js";
import { DATASTORE_NAME_PATTERN, datastoreName, datastoreNameRules } from "../datastore/name.js";
import { externalSecretsRef } from "../datastore/secrets-use.js";
import { datastoreColumns, datastoreStatusFields } from "../datastore/status.js";

export const MEILISEARCH_INSTANCE_KIND = "MeilisearchInstance";
export const MEILISEARCH_INSTANCE_PLURAL = "meilisearchinstances";

/**
 * Longest MeilisearchInstance name. A managed one's Helm release, StatefulSet and Service bear its name:
 * its pods carry `controller-revision-hash: <name>-<10 characters>`, a label value of at most 63.
 */
export const MAX_MEILISEARCH_INSTANCE_NAME = 52;

const NAMED_AFTER_MEILISEARCH_INSTANCE =
  "its Helm release, StatefulSet and Service are named after it, and its pods' controller-revision-hash label after that";

/** A MeilisearchInstance's metadata.name: see MAX_MEILISEARCH_INSTANCE_NAME. */
export const meilisearchInstanceName = datastoreName(
  MEILISEARCH_INSTANCE_KIND,
  MAX_MEILISEARCH_INSTANCE_NAME,
  NAMED_AFTER_MEILISEARCH_INSTANCE,
);

/** @default for `spec.managed.storage.size`. */
export const DEFAULT_MEILISEARCH_STORAGE_SIZE = "10Gi";

export const MeilisearchMode = z
  .enum(["managed", "external"])
  .describe(
    "managed: the product installs Meilisearch (the official chart, one release per resource); external: a Meilisearch outside the cluster, wired through a connection Secret.",
  );

export const MeilisearchManaged = z
  .object({
    storage: z
      .object({
        size: withDefault(byteQuantity(DEFAULT_MEILISEARCH_STORAGE_SIZE), {
          DEFAULT_MEILISEARCH_STORAGE_SIZE,
        }).describe(
          `Size of the data volume, a Kubernetes quantity in bytes (e.g. 10Gi). Default ${DEFAULT_MEILISEARCH_STORAGE_SIZE}.`,
        ),
        storageClass: objectName
          .optional()
          .describe("StorageClass of the volume. Default: the cluster's default StorageClass."),
      })
      .strict()
      .default({ size: DEFAULT_MEILISEARCH_STORAGE_SIZE })
      .describe(`The data volume. Default: ${DEFAULT_MEILISEARCH_STORAGE_SIZE} on the cluster's default StorageClass.`),
    deletionPolicy: withDefault(DeletionPolicy, { DEFAULT_DELETION_POLICY }).describe(
      "What happens to the data volume (and the master key that opens it) when this resource is deleted or leaves managed mode. Retain (default): both are kept and released to you, with an Event; the release is uninstalled. Delete: they are deleted, with an Event; the indexes are lost.",
    ),
  })
  .strict()
  .describe("Settings of a managed Meilisearch (mode managed); defaults apply when omitted.");
export type MeilisearchManaged = z.infer<typeof MeilisearchManaged>;

export const MeilisearchExternal = z
  .object({
    connectionSecretRef: SecretKeyRef.describe(
      "A Secret in this namespace with keys host, port (default 7700) and password (the master key or an API key) of the external server.",
    ),
    secretsRef: externalSecretsRef,
  })
  .strict()
  .describe("The external server (mode external).");

const MODE_RULES = datastoreModeRules();

export const MeilisearchInstanceSpec = z
  .object({
    mode: withDefault(MeilisearchMode, { DEFAULT_DATASTORE_MODE }).describe(
      `${MeilisearchMode.description} Default ${DEFAULT_DATASTORE_MODE}.`,
    ),
    managed: MeilisearchManaged.optional(),
    external: MeilisearchExternal.optional(),
  })
  .strict()
  .superRefine((spec, ctx) => {
    for (const broken of MODE_RULES.broken(spec))
      ctx.addIssue({ code: "custom", message: broken.message, path: [...broken.path] });
  })
  .meta({ "x-kubernetes-validations": MODE_RULES.rules.map(({ rule, message }) => ({ rule, message })) })
  .describe("Desired state of a Meilisearch, the platform's search engine.");
export type MeilisearchInstanceSpec = z.infer<typeof MeilisearchInstanceSpec>;
/** What a program writes as a MeilisearchInstance's spec, each field documented (generated from MeilisearchInstanceSpec). */
export type { MeilisearchInstanceSpecInput } from "../../api/generated/meilisearch-instance-spec.js";

export const MeilisearchInstanceStatus = z
  .object({
    ...datastoreStatusFields(MeilisearchMode, ["owned", "external"], {
      owner: "the Meilisearch",
      connection:
        "Where consumers connect (url http://host:port), and the Secret that holds the master key (key password).",
    }),
  })
  .strict();
export type MeilisearchInstanceStatus = z.infer<typeof MeilisearchInstanceStatus>;

/** A MeilisearchInstance as stored in the cluster. */
export const MeilisearchInstance = storedResource(
  MEILISEARCH_INSTANCE_KIND,
  MeilisearchInstanceSpec,
  MeilisearchInstanceStatus,
  meilisearchInstanceName,
);
export type MeilisearchInstance = z.infer<typeof MeilisearchInstance>;

export const MEILISEARCH_INSTANCE_DEFINITION: KindDefinition = {
  kind: MEILISEARCH_INSTANCE_KIND,
  plural: MEILISEARCH_INSTANCE_PLURAL,
  singular: "meilisearchinstance",
  shortNames: ["msi"],
  scope: "Namespaced",
  description:
    "A Meilisearch for the platform's search: managed (a release of the official chart per resource, its master key generated into a Secret) or external (a server outside the cluster).",
  spec: MeilisearchInstanceSpec,
  status: MeilisearchInstanceStatus,
  printerColumns: datastoreColumns({
    modes: "managed or external",
    owner: "the Meilisearch",
    wide: [{ name: "URL", type: "string", jsonPath: ".status.connection.url", description: "Connection URL" }],
  }),
  namePattern: DATASTORE_NAME_PATTERN,
  rootValidations: datastoreNameRules(
    MEILISEARCH_INSTANCE_KIND,
    MAX_MEILISEARCH_INSTANCE_NAME,
    NAMED_AFTER_MEILISEARCH_INSTANCE,
  ),
};
