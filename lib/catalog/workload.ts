import * as z from "zod";
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
    keptSecrets: z
      .array(z.string().regex(/^\{release\}-[a-z0-9-]+$/))
      .default([])
      .describe(
        "Secrets the chart marks helm.sh/resource-policy: keep, by name (`{release}` the release's name, which the kinds make the chart's fullname): removed with the release, since they hold only what the product can do without.",
      ),
  })
  .strict();
export type WorkloadEntry = z.infer<typeof WorkloadEntry>;

/** The names of the Secrets an entry's chart keeps after uninstalling the release `release`. */
export function keptSecretNames(entry: WorkloadEntry, release: string): string[] {
  return entry.keptSecrets.map((name) => name.replace("{release}", release));
}
