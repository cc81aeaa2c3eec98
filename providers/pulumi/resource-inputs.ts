import * as z from "zod";
import { namespaceName } from "../../lib/api/refs.js";
import type { KindModule } from "../../lib/engine/kind-module.js";

/**
 * What a component's args must satisfy, as one schema so that every problem of one component is one
 * message: the name (with the kind's limits for what is named after it), the namespace and the spec.
 * The component parses it when the values are known; the provider's `check` parses it again at `up`
 * for the values a preview did not know.
 */
export function resourceInputSchema(module: KindModule) {
  return z.object({ name: module.name, namespace: namespaceName, spec: module.definition.spec });
}
