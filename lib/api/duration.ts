import * as z from "zod";

/**
 * The largest duration Go holds: a time.Duration is an int64 of nanoseconds, so it ends at
 * 2562047h47m16.854775807s (Go's `time` package, `maxDuration`). time.ParseDuration refuses a longer one,
 * and a controller decoding a metav1.Duration field with it then cannot read the object at all.
 */
export const GO_MAX_DURATION = "2562047h47m16.854775807s";

/** One unit's part: a number of at most `digits` digits, an optional fraction of at most 9, the unit. */
const part = (digits: number, unit: string) => String.raw`([0-9]{1,${digits}}(\.[0-9]{1,9})?${unit})?`;

/**
 * A Go duration in the form time.Duration.String() writes (`1h0m0s`), which time.ParseDuration reads:
 * `0`, or a number and a unit for each unit used — h, m, s, ms, us, ns, in that order, each once —, with
 * no sign (never negative). The digits are bounded so that the largest value written this way,
 * 999999.999999999h + 9999999.999999999m + 999999999.999999999s + … ≈ 5.2 × 10^9 s, stays under
 * GO_MAX_DURATION (≈ 9.2 × 10^9 s): whatever the pattern admits Go holds, by construction, so one regular
 * expression is the whole rule, the same for zod and the apiserver, with nothing to evaluate that could
 * overflow. What it leaves out of Go's grammar (units repeated or out of order, `µs`, more than 999999
 * hours — 114 years) no one writes for a period.
 */
export const GO_DURATION = new RegExp(
  `^(0|${part(6, "h")}${part(7, "m")}${part(9, "s")}${part(9, "ms")}${part(9, "us")}${part(9, "ns")})$`,
);

/** Longest duration text: people write a unit or two (`1h30m`); Go's own longest value has 24 characters. */
export const MAX_DURATION = 32;

/** A Go duration (GO_DURATION), at most MAX_DURATION characters; `examples` are shown in the message. */
export function goDuration(examples: string) {
  return z
    .string()
    .min(1)
    .max(MAX_DURATION)
    .regex(GO_DURATION, {
      message: `must be a Go duration: 0, or a number and a unit for each of h, m, s, ms, us and ns used, in that order, each once, no sign, at most 999999h (e.g. ${examples})`,
    });
}
