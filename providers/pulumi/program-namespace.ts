import type * as pulumi from "@pulumi/pulumi";
import type { DeclaredNamespace } from "../../lib/engine/preview.js";
import { KEEPING_VOLUMES } from "../../lib/engine/retained-with-namespace.js";
import { kubernetesObjectName, referencedResources } from "./created-first.js";

/**
 * Whether a component's namespace is a Namespace resource of the same program (a @pulumi/kubernetes
 * `core/v1.Namespace` its args are outputs of, or its `dependsOn` names): `pulumi destroy` then deletes
 * that namespace after the component, and everything in it with it — what deletionPolicy Retain keeps
 * included (lib/engine/retained-with-namespace.ts). A namespace named by a plain string is not known to
 * be the program's: it is not taken for one.
 */
export async function isProgramNamespace(
  args: unknown,
  opts: pulumi.ComponentResourceOptions,
  namespace: string,
): Promise<boolean> {
  const resources = await referencedResources(args, opts);
  const named = await Promise.all(resources.map((r) => kubernetesObjectName(r, "")));
  return named.some((n) => n?.kind === "Namespace" && n.name === namespace);
}

/**
 * How a Pulumi user keeps such a namespace: the resource option `retainOnDelete` (@pulumi/pulumi
 * resource.d.ts: "If set to True, the providers Delete method will not be called for this resource").
 */
const KEEP_IT = "give that Namespace resource the option retainOnDelete: true, and Pulumi leaves it in the cluster";

/** The component's namespace as a preview warns of it, when it is a Namespace resource of the program. */
export function programNamespace(name: string): DeclaredNamespace {
  return {
    name,
    deletedBy: "a Namespace resource of this program, which `pulumi destroy` deletes after it",
    keep: KEEP_IT,
  };
}

/**
 * What `pulumi destroy` says once a resource whose namespace is a Namespace resource of the program is
 * finalized, when the namespace still holds something (`held`, as created-namespace.ts lists it): the
 * destroy deletes the namespace next, and that with it.
 */
export function deletedNext(where: string, namespace: string, held: readonly string[]): string {
  const shown = held.length > 5 ? `${held.slice(0, 5).join(", ")} and ${held.length - 5} more` : held.join(", ");
  return `${where}: namespace ${namespace} is a Namespace resource of this program: this destroy deletes it next, and with it ${shown}, the data deletionPolicy Retain kept included. To keep the namespace, ${KEEP_IT}. ${KEEPING_VOLUMES}`;
}
