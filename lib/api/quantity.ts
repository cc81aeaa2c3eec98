import * as z from "zod";

/**
 * Longest quantity: Kubernetes' resource.Quantity keeps at most 18 significant digits in memory, so a longer
 * number only loses precision; 64 characters hold any quantity a person writes with room to spare.
 */
export const MAX_QUANTITY = 64;

/**
 * Largest size a byte quantity may state: 1Pi (2^50 bytes). It is the size of one volume, and Amazon EBS
 * provisions volumes of at most 64 TiB (its user guide, "Amazon EBS volume constraints"): 1Pi is sixteen
 * times that, room for any volume a storage class provisions, while a typo of a few digits or a wrong
 * suffix (`10000Ti`, `10Ei`) is refused before a storage class is asked for it.
 */
export const MAX_BYTE_QUANTITY = "1Pi";

const BYTE_QUANTITY = /^[0-9]+(\.[0-9]+)?(Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E)?$/;

/** What each suffix multiplies by: binary suffixes are powers of 1024, decimal ones powers of 1000. */
const MULTIPLIERS: Readonly<Record<string, bigint>> = {
  "": 1n,
  Ki: 1024n,
  Mi: 1024n ** 2n,
  Gi: 1024n ** 3n,
  Ti: 1024n ** 4n,
  Pi: 1024n ** 5n,
  Ei: 1024n ** 6n,
  k: 1000n,
  M: 1000n ** 2n,
  G: 1000n ** 3n,
  T: 1000n ** 4n,
  P: 1000n ** 5n,
  E: 1000n ** 6n,
};

const MAX_BYTES = 1024n ** 5n;

/**
 * Whether a quantity of the byte form is at most MAX_BYTE_QUANTITY, computed exactly in integers (a double
 * rounds `1.0000000000000001Pi` to 1Pi). A string of another form is not this rule's to judge: the
 * pattern refuses it.
 */
export function withinByteBound(quantity: string): boolean {
  const match = BYTE_QUANTITY.exec(quantity);
  if (!match) return true;
  const [, point = "", suffix = ""] = match;
  const fraction = point.slice(1);
  // bytes = number × multiplier ≤ MAX  ⇔  its digits without the point × multiplier ≤ MAX × 10^|fraction|
  const digits = BigInt(quantity.slice(0, quantity.length - suffix.length).replace(".", ""));
  return digits * (MULTIPLIERS[suffix] ?? 1n) <= MAX_BYTES * 10n ** BigInt(fraction.length);
}

/**
 * A size in bytes as Kubernetes reads a quantity: a decimal number with an optional binary (Ki…Ei) or
 * decimal (k…E) suffix — "10Gi", "500Mi" —, at most MAX_BYTE_QUANTITY. `example` is shown in the message.
 * The apiserver judges the bound with the same words (a CEL rule over Kubernetes' own quantity type).
 */
export function byteQuantity(example: string) {
  const tooLarge = `must be at most ${MAX_BYTE_QUANTITY} (${MAX_BYTES} bytes), far beyond any one volume a storage class provisions: write a size such as "${example}"`;
  return z
    .string()
    .max(MAX_QUANTITY)
    .regex(BYTE_QUANTITY, { message: `must be a Kubernetes quantity such as "${example}"` })
    .superRefine((quantity, ctx) => {
      if (!withinByteBound(quantity))
        ctx.addIssue({ code: "custom", message: `${tooLarge} (received ${JSON.stringify(quantity)})` });
    })
    .meta({
      "x-kubernetes-validations": [
        {
          // isQuantity first: a string of another form is the pattern's to refuse, not an evaluation error.
          rule: `!isQuantity(self) || quantity(self).compareTo(quantity('${MAX_BYTE_QUANTITY}')) <= 0`,
          message: tooLarge,
        },
      ],
    });
}
