import * as z from "zod";

// The modes every datastore kind offers, and what a managed one keeps when it goes.

/** @default for `spec.mode`. */
export const DEFAULT_DATASTORE_MODE = "managed";
/** @default for `spec.managed.deletionPolicy`: keep the data unless the user opted in to deleting it. */
export const DEFAULT_DELETION_POLICY = "Retain";

export const DatastoreMode = z
  .enum(["managed", "adopt", "external"])
  .describe(
    "managed: the product installs the operator and creates the datastore; adopt: reference a datastore already in the cluster; external: a datastore outside the cluster, wired through a connection Secret.",
  );
export type DatastoreMode = z.infer<typeof DatastoreMode>;

/**
 * What happens to what a managed datastore made, which may hold data, when the resource is deleted or
 * leaves managed mode; each kind describes it in its own words (what it keeps).
 */
export const DeletionPolicy = z
  .enum(["Retain", "Delete"])
  .describe(
    "What happens to the datastore, which may hold data, when this resource is deleted or leaves managed mode. Retain (default): it is kept and released to you, with an Event. Delete: it is deleted, with an Event; the data is lost.",
  );
export type DeletionPolicy = z.infer<typeof DeletionPolicy>;
