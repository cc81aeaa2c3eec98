import type { KubeClient } from "../../lib/cluster/kube-client.js";
import type { KindModule } from "../../lib/engine/kind-module.js";
import type { PlannedEvent } from "../../lib/engine/steps.js";
import { heldIn } from "./created-namespace.js";
import { deletedNext } from "./program-namespace.js";
import { reportWarning } from "./provider-progress.js";

/**
 * What `pulumi destroy` says of a resource as warnings, each once, kept in its output: what the deletion
 * does to data — the Warning Events of its passes (data kept under Retain and where, data deleted under
 * Delete, a namespace being deleted that takes what Retain kept) — and, when its namespace is a Namespace
 * resource of the program, what that namespace still holds once the resource is gone: the destroy
 * deletes it next (program-namespace.ts).
 */
export function destroyWarnings(where: string) {
  const said = new Set<string>();
  const warn = (line: string) => {
    if (said.has(line)) return;
    said.add(line);
    reportWarning(line);
  };
  return {
    /** The Warning Events of one pass over the resource and its members. */
    ofPass(plans: readonly { readonly plan: { readonly events: readonly PlannedEvent[] } }[]): void {
      for (const event of plans.flatMap(({ plan }) => plan.events)) {
        // An Event about another object than the resource names the resource already.
        if (event.type === "Warning") warn(event.regarding ? event.message : `${where}: ${event.message}`);
      }
    },
    /** What the program's own namespace still holds, the resource finalized; nothing when it cannot be listed. */
    async ofProgramNamespace(client: KubeClient, registry: readonly KindModule[], namespace: string): Promise<void> {
      const held = await heldIn(client, registry, namespace).catch(() => []);
      if (held.length > 0) warn(deletedNext(where, namespace, held));
    },
  };
}
