import * as z from "zod";
import type { RootValidation } from "./crd.js";

/** The one name a cluster-scoped singleton of the product may have, judged alike by zod and by the apiserver. */
export interface SingletonName {
  /** metadata.name as zod judges it: `name`, refused otherwise with the name received. */
  readonly rule: z.ZodType<string>;
  /** The same rule stated to the apiserver (CEL on metadata.name), in the same words. */
  readonly validation: RootValidation;
}

/**
 * The rule of a singleton's name: `name`, or a refusal that says why there is one (`why`, e.g. "the
 * License is the one licence of a cluster") and what to do. The words hold no quote: the CRD's rule holds
 * them in a CEL string.
 */
export function singletonName(kind: string, name: string, why: string): SingletonName {
  const words = `must be ${name}: ${why}, and the product reads no ${kind} of another name. Rename it to ${name}`;
  return {
    rule: z.string().superRefine((received, ctx) => {
      if (received !== name)
        ctx.addIssue({ code: "custom", message: `${words} (received ${JSON.stringify(received)})` });
    }),
    validation: {
      rule: `self.metadata.name == '${name}'`,
      // Reported on metadata.name, with the name received, as zod reports it.
      fieldPath: ".metadata.name",
      reason: "FieldValueInvalid",
      message: words,
      messageExpression: `'${words} (received "' + self.metadata.name + '")'`,
    },
  };
}
