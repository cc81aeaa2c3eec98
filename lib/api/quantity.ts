import { z } from "zod";

/**
 * Longest quantity: Kubernetes' resource.Quantity keeps at most 18 significant digits in memory, so a longer
 * number only loses precision; 64 characters hold any quantity a person writes with room to spare.
 */
export const MAX_QUANTITY = 64;

/**
 * A size in bytes as Kubernetes reads a quantity: a decimal number with an optional binary (Ki…Ei) or
 * decimal (k…E) suffix — "10Gi", "500Mi". `example` is shown in the message.
 */
export function byteQuantity(example: string) {
  return z
    .string()
    .max(MAX_QUANTITY)
    .regex(/^[0-9]+(\.[0-9]+)?(Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E)?$/, {
      message: `must be a Kubernetes quantity such as "${example}"`,
    });
}
