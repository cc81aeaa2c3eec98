import * as z from "zod";

/**
 * A chart the product installs, pinned: its official repository and/or OCI location (a chart published
 * only to a registry has no HTTP index), name and version, and optionally the digest of its package.
 * Capabilities and workloads alike. Installed from the official place: the repository when there is one,
 * else the OCI location.
 */
export const ChartPin = z
  .object({
    repository: z.url().optional().describe("Official chart repository (HTTP index), when there is one."),
    oci: z
      .string()
      .startsWith("oci://")
      .optional()
      .describe("Official OCI location of the chart, when published there."),
    name: z.string().min(1),
    version: z.string().min(1).describe("Pinned chart version."),
    appVersion: z.string().optional(),
    digest: z
      .string()
      .regex(/^sha256:[0-9a-f]{64}$/)
      .optional()
      .describe("sha256 of the packaged chart; verified before installing a package when set."),
  })
  .strict()
  .refine((chart) => chart.repository !== undefined || chart.oci !== undefined, {
    message: "a chart needs its official repository or its OCI location (chart.repository or chart.oci)",
  });
export type ChartPin = z.infer<typeof ChartPin>;
