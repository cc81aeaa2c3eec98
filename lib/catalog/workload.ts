import { z } from "zod";
import { objectName } from "../api/refs.js";
import { ChartPin } from "./chart-pin.js";

/**
 * One workload chart, described as data: an application the product installs once per resource (a
 * MeilisearchInstance's Meilisearch), as a Helm release named after the resource, in its namespace.
 * Unlike a capability it has no fixed release, no CRDs and no identity to detect: the release is the
 * resource's, recorded in its status like any object it emits (lib/engine/workload-release.ts).
 */
export const WorkloadEntry = z
  .object({
    name: objectName.describe("Workload name, e.g. meilisearch."),
    description: z.string(),
    chart: ChartPin,
  })
  .strict();
export type WorkloadEntry = z.infer<typeof WorkloadEntry>;
