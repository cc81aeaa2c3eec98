import { z } from "zod";

/**
 * A chart the product installs, pinned: its official repository (and OCI location, when published there),
 * name and version, and optionally the digest of its package. Capabilities and workloads alike.
 */
export const ChartPin = z
  .object({
    repository: z.url().describe("Official chart repository (HTTP index)."),
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
  .strict();
export type ChartPin = z.infer<typeof ChartPin>;
