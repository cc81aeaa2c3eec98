import type { KubeObject } from "../../engine/objects.js";
import { type Owner, ownerReference } from "../../engine/ownership.js";
import type { DesiredStep } from "../../engine/steps.js";

/**
 * The Secret an adopting datastore copies the adopted credentials into: consumers read the connection's
 * Secret in the datastore's own namespace, wherever the adopted credentials live, and the copy is owned by
 * the datastore, so that it goes with it.
 */

/** The name of the Secret an adopting datastore copies the referenced credentials into. */
export function adoptedCredentialsName(resource: { readonly metadata: { readonly name: string } }): string {
  return `${resource.metadata.name}-adopted-credentials`;
}

/**
 * The step that applies the copy of the credentials read from `from` (the referenced Secret, as
 * `namespace/name`), saying it copies the datastore's `what`, and the copy's reference for its connection.
 */
export function adoptedCredentialsCopy(
  resource: Owner,
  copied: {
    readonly from: string;
    readonly what: "password" | "credentials";
    readonly stringData: Readonly<Record<string, string>>;
    /** @default "Opaque" */
    readonly type?: string;
  },
): { readonly step: DesiredStep; readonly secret: { readonly name: string; readonly namespace: string } } {
  const { namespace } = resource.metadata;
  const copy: KubeObject = {
    apiVersion: "v1",
    kind: "Secret",
    type: copied.type ?? "Opaque",
    metadata: { name: adoptedCredentialsName(resource), namespace, ownerReferences: [ownerReference(resource)] },
    stringData: copied.stringData,
  };
  return {
    step: {
      kind: "apply",
      object: copy,
      description: `copy the ${copied.what} of ${copied.from} into Secret ${namespace}/${copy.metadata.name}`,
    },
    secret: { name: copy.metadata.name, namespace },
  };
}
