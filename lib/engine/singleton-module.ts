import type * as z from "zod";
import type { KindDefinition } from "../api/crd.js";
import type { KubeClient } from "../cluster/kube-client.js";
import type { Entitlements } from "../licence/entitlements.js";

/**
 * A cluster-scoped singleton of the product's API that the engine does not plan for (the License): it
 * emits nothing, and what it is in force gates every other kind. Its module reconciles it itself; the
 * operator re-judges every resource when its entitlements change.
 */
export interface SingletonModule {
  readonly definition: KindDefinition;
  /** The one name the singleton may have. */
  readonly name: string;
  /** The rule of metadata.name: `name`, refused otherwise with what was received and what to do. */
  readonly nameRule: z.ZodType<string>;
  reconcile(
    client: KubeClient,
    options: { readonly now: Date; readonly trustedKeys?: ReadonlyMap<string, string> },
  ): Promise<{ readonly entitlements: Entitlements; readonly downgraded?: string } | undefined>;
}
