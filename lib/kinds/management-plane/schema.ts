import * as z from "zod";
import { Condition } from "../../api/conditions.js";
import { AGE_COLUMN, type KindDefinition, READY_COLUMN } from "../../api/crd.js";
import { withDefault } from "../../api/named-default.js";
import { singletonName } from "../../api/singleton-name.js";

export const MANAGEMENT_PLANE_KIND = "ManagementPlane";
export const MANAGEMENT_PLANE_PLURAL = "managementplanes";
/** The one ManagementPlane the console reads: a cluster-scoped singleton of this name, as the License. */
export const MANAGEMENT_PLANE_NAME = "navique";

const MANAGEMENT_PLANE_SINGLETON = singletonName(
  MANAGEMENT_PLANE_KIND,
  MANAGEMENT_PLANE_NAME,
  "the ManagementPlane is the one console of a cluster",
);

/** A ManagementPlane's metadata.name: MANAGEMENT_PLANE_NAME, refused otherwise with the name received. */
export const managementPlaneName = MANAGEMENT_PLANE_SINGLETON.rule;

/** @default of spec.enabled: the console is served. */
export const DEFAULT_CONSOLE_ENABLED = true;
/** @default of spec.refreshSeconds: an open page reloads itself twice a minute. */
export const DEFAULT_CONSOLE_REFRESH_SECONDS = 30;
/** @default of spec.recentEventsMinutes: the last hour's Events. */
export const DEFAULT_RECENT_EVENTS_MINUTES = 60;

export const ManagementPlaneSpec = z
  .strictObject({
    enabled: withDefault(z.boolean(), { DEFAULT_CONSOLE_ENABLED }).describe(
      `Whether the operator serves the console; false: every page answers 503 saying so, and nothing of the cluster is read for it. Default ${DEFAULT_CONSOLE_ENABLED}.`,
    ),
    refreshSeconds: withDefault(z.int().min(0).max(3600), { DEFAULT_CONSOLE_REFRESH_SECONDS }).describe(
      `Seconds after which an open page reloads itself; 0: never. Default ${DEFAULT_CONSOLE_REFRESH_SECONDS}.`,
    ),
    recentEventsMinutes: withDefault(z.int().min(1).max(10_080), { DEFAULT_RECENT_EVENTS_MINUTES }).describe(
      `How far back, in minutes, the Events page reaches (at most a week). Default ${DEFAULT_RECENT_EVENTS_MINUTES}.`,
    ),
  })
  .describe(
    "The admin console: read-only, served by the operator, shown to whoever the cluster authenticates and may get this ManagementPlane.",
  );
export type ManagementPlaneSpec = z.infer<typeof ManagementPlaneSpec>;
/** What a program writes as the ManagementPlane's spec, each field documented (generated from ManagementPlaneSpec). */
export type { ManagementPlaneSpecInput } from "../../api/generated/management-plane-spec.js";

export const ManagementPlaneStatus = z
  .strictObject({
    observedGeneration: z.int().optional().describe("The generation of the spec the console serves."),
    conditions: z
      .array(Condition)
      .default([])
      .describe("Ready: whether the operator serves the console, and if not why."),
  })
  .describe("What the operator's leader last saw of the console.");
export type ManagementPlaneStatus = z.infer<typeof ManagementPlaneStatus>;

/** A ManagementPlane as stored: its name judged, its spec defaulted, its status as the leader wrote it. */
export const StoredManagementPlane = z
  .object({
    metadata: z.object({ name: managementPlaneName, generation: z.int().optional() }).loose(),
    spec: ManagementPlaneSpec.prefault({}),
    status: z.unknown().optional(),
  })
  .loose();
export type StoredManagementPlane = z.infer<typeof StoredManagementPlane>;

export const MANAGEMENT_PLANE_DEFINITION: KindDefinition = {
  kind: MANAGEMENT_PLANE_KIND,
  plural: MANAGEMENT_PLANE_PLURAL,
  singular: "managementplane",
  shortNames: [],
  scope: "Cluster",
  description: `The admin console's settings: a cluster-scoped singleton named ${MANAGEMENT_PLANE_NAME}, which the operator chart creates. Who may get it may read the console (docs/console.md).`,
  spec: ManagementPlaneSpec,
  status: ManagementPlaneStatus,
  printerColumns: [
    READY_COLUMN,
    { name: "Enabled", type: "boolean", jsonPath: ".spec.enabled", description: "Whether the console is served" },
    AGE_COLUMN,
  ],
  rootValidations: [MANAGEMENT_PLANE_SINGLETON.validation],
};
