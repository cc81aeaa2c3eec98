import * as z from "zod";
import { namespaceName, objectName } from "../api/refs.js";
import { ChartObjects } from "./chart-objects.js";
import { ChartPin } from "./chart-pin.js";

const labelMap = z.record(z.string().min(1), z.string());

/**
 * One capability operator, described as data: where its chart comes from and at which pinned version,
 * the fixed release it is installed as, the CRDs it ships, how its controller is recognised wherever and
 * however it was installed, and what must be ready before it.
 */
export const CapabilityEntry = z
  .object({
    name: objectName.describe("Capability name, e.g. cloudnative-pg."),
    description: z.string(),
    chart: ChartPin,
    release: z
      .object({
        name: objectName.describe("Fixed release name."),
        namespace: namespaceName.describe("Fixed system namespace."),
      })
      .strict(),
    crds: z
      .object({
        names: z.array(z.string().min(1)).min(1).describe("CRDs the chart ships; all must exist and be Established."),
        shippedAs: z
          .enum(["crds-directory", "templates"])
          .describe(
            "crds-directory: installed once by helm and never deleted; templates: rendered by the chart, kept by resource-policy keep.",
          ),
      })
      .strict(),
    renders: ChartObjects.default({}).describe(
      "What the chart renders with `values` besides its CRDs, by kind: upstream's object names at the pinned version. The operator may write the cluster-scoped ones, and the kinds no resource emits, only under these names (lib/package/operator-rbac.ts).",
    ),
    identity: z
      .object({
        labels: z
          .array(labelMap)
          .min(1)
          .describe("Label sets any one of which marks the controller's Deployment, whatever installed it."),
        images: z
          .array(z.string().min(1))
          .min(1)
          .describe("Image repositories of the controller, the fallback identity."),
      })
      .strict(),
    values: z
      .record(z.string(), z.unknown())
      .default({})
      .describe("Values the product always sets (e.g. keep CRDs on uninstall)."),
    prerequisites: z.array(objectName).default([]).describe("Capabilities brought to readiness first."),
  })
  .strict();
export type CapabilityEntry = z.infer<typeof CapabilityEntry>;
