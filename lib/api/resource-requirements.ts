import * as z from "zod";
import { MAX_QUANTITY } from "./quantity.js";

/**
 * A CPU or memory quantity as Kubernetes reads it: a decimal number with an optional binary (Ki…Ei),
 * decimal (k…E) or milli (m) suffix — "100m", "0.5", "256Mi", "1G".
 */
const computeQuantity = z
  .string()
  .max(MAX_QUANTITY)
  .regex(/^[0-9]+(\.[0-9]+)?(m|Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E)?$/, {
    message: 'must be a Kubernetes quantity such as "100m" (CPU) or "256Mi" (memory)',
  });

const computeResources = z.strictObject({
  cpu: computeQuantity.optional().describe('CPU, in cores or millicores: "0.5", "100m".'),
  memory: computeQuantity.optional().describe('Memory, in bytes with a suffix: "256Mi", "1Gi".'),
});

/** A container's compute resources: what the scheduler reserves for it, and where the kubelet stops it. */
export const resourceRequirements = z.strictObject({
  requests: computeResources.optional().describe("What the scheduler reserves for the container."),
  limits: computeResources
    .optional()
    .describe("Where the kubelet stops the container: throttled above the CPU limit, killed above the memory limit."),
});

export type ResourceRequirements = z.infer<typeof resourceRequirements>;
