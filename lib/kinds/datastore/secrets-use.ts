import { refNamespace } from "../../api/refs.js";
import type { Dependency } from "../../engine/dependencies.js";
import type { Desired } from "../../engine/kind-module.js";
import type { EngineView } from "../../engine/view.js";
import {
  SecretsRef,
  type SecretsUse,
  secretsDependency,
  withProvidedSecrets,
} from "../secrets-management/secrets-ref.js";

/** A Secret reference of an adopt or external block: its name, and its namespace when another. */
interface SecretRef {
  readonly name: string;
  readonly namespace?: string | undefined;
}

/** A datastore as its secretsRef is read: the adopt block's credentials, the external block's connection. */
interface DatastoreWithSecrets {
  readonly metadata: { readonly namespace: string };
  readonly spec: {
    readonly mode: string;
    readonly adopt?: { readonly credentialsSecretRef: SecretRef; readonly secretsRef?: { name: string } | undefined };
    readonly external?: { readonly connectionSecretRef: SecretRef; readonly secretsRef?: { name: string } | undefined };
  };
}

/** `secretsRef` of a datastore's adopt block: its credentials Secret comes from that SecretsManagement. */
export const adoptSecretsRef = SecretsRef.optional().describe(
  "The SecretsManagement of this namespace that provides spec.adopt.credentialsSecretRef's Secret: nothing is wired before it is Ready, and it must list that Secret in status.secrets. Default: the Secret is yours.",
);
/** `secretsRef` of a datastore's external block: its connection Secret comes from that SecretsManagement. */
export const externalSecretsRef = SecretsRef.optional().describe(
  "The SecretsManagement of this namespace that provides spec.external.connectionSecretRef's Secret: nothing is wired before it is Ready, and it must list that Secret in status.secrets. Default: the Secret is yours.",
);

/**
 * What a datastore reads through a secretsRef, for every kind alike: in adopt mode the credentials Secret,
 * in external mode the connection Secret; nothing without a secretsRef or in managed mode.
 */
export function datastoreSecretsUse(resource: DatastoreWithSecrets): SecretsUse | undefined {
  const { spec, metadata } = resource;
  const block =
    spec.mode === "adopt" && spec.adopt
      ? {
          at: "spec.adopt",
          ref: spec.adopt.secretsRef,
          secret: spec.adopt.credentialsSecretRef,
          key: "credentialsSecretRef",
        }
      : spec.mode === "external" && spec.external
        ? {
            at: "spec.external",
            ref: spec.external.secretsRef,
            secret: spec.external.connectionSecretRef,
            key: "connectionSecretRef",
          }
        : undefined;
  if (!block?.ref) return undefined;
  return {
    field: `${block.at}.secretsRef`,
    ref: block.ref,
    secrets: [
      {
        field: `${block.at}.${block.key}`,
        name: block.secret.name,
        namespace: refNamespace(block.secret, metadata.namespace),
      },
    ],
  };
}

/** A datastore's dependencies: its SecretsManagement, when its adopt or external block names one. */
export function datastoreSecretsDependencies(resource: DatastoreWithSecrets): Dependency[] {
  const use = datastoreSecretsUse(resource);
  return use ? [secretsDependency(resource.metadata.namespace, use)] : [];
}

/** A datastore's desired state, held back while the Secret it reads through its secretsRef is not provided. */
export function withDatastoreSecrets<Status>(
  resource: DatastoreWithSecrets,
  view: EngineView,
  desired: () => Desired<Status>,
): Desired<Status> {
  const use = datastoreSecretsUse(resource);
  return withProvidedSecrets(resource.metadata.namespace, use ? [use] : [], view, desired);
}
