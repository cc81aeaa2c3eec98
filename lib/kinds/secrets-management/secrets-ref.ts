import { API_GROUP } from "../../api/group.js";
import { LocalRef, type ReferenceTarget, referenceTo } from "../../api/refs.js";
import type { Dependency } from "../../engine/dependencies.js";
import type { Desired, Verdict } from "../../engine/kind-module.js";
import type { EngineView } from "../../engine/view.js";
import { SECRETS_MANAGEMENT_KIND } from "./schema.js";

/** What a `secretsRef` names: the SecretsManagement of the referring resource's namespace. */
export const SECRETS_MANAGEMENT_TARGET = {
  group: API_GROUP,
  kinds: [SECRETS_MANAGEMENT_KIND],
} as const satisfies ReferenceTarget;

/**
 * `secretsRef`: the SecretsManagement that provides the Secrets a block names (SPEC 2: a LocalRef, same
 * namespace only). The resource waits for it to be Ready (DependenciesReady names it), and each Secret it
 * reads there must be one it provides (`status.secrets`).
 */
export const SecretsRef = referenceTo(SECRETS_MANAGEMENT_TARGET, LocalRef);

/** A resource's use of a SecretsManagement: where its secretsRef is, what it names, and the Secrets read through it. */
export interface SecretsUse {
  /** The secretsRef's field, e.g. `spec.external.secretsRef`: what DependenciesReady names. */
  readonly field: string;
  readonly ref: LocalRef;
  /** The Secrets read through it, each with the field that names it. */
  readonly secrets: readonly { readonly field: string; readonly name: string; readonly namespace: string }[];
}

/** The dependency a secretsRef is: nothing of the resource is applied before its SecretsManagement is Ready. */
export function secretsDependency(namespace: string, use: SecretsUse): Dependency {
  return {
    field: use.field,
    group: API_GROUP,
    kind: SECRETS_MANAGEMENT_KIND,
    name: use.ref.name,
    namespace,
    needs: "ready",
  };
}

/** The names a SecretsManagement's status says it provides. */
function providedBy(view: EngineView, field: string): string[] {
  const status = view.dependencies?.[field]?.status as { secrets?: readonly { name: string }[] } | undefined;
  return (status?.secrets ?? []).map((s) => s.name);
}

/**
 * Why the Secrets a resource reads through its secretsRef are not all ones its SecretsManagement provides,
 * as a stalled verdict naming each field (only a change of a spec clears it); undefined when they are.
 * Judged once the SecretsManagement is Ready: the engine's dependency gate comes first.
 */
export function unprovidedSecrets(namespace: string, use: SecretsUse, view: EngineView): Verdict | undefined {
  const provided = providedBy(view, use.field);
  const label = `${SECRETS_MANAGEMENT_KIND} ${namespace}/${use.ref.name} (${use.field})`;
  const problems = use.secrets.flatMap((secret) => {
    if (secret.namespace !== namespace)
      return [
        `${secret.field} names Secret ${secret.namespace}/${secret.name}, outside ${namespace}, whose Secrets ${label} provides: name a Secret of ${namespace}, or remove ${use.field}`,
      ];
    if (provided.includes(secret.name)) return [];
    const offered = provided.length > 0 ? `it provides ${provided.join(", ")}` : "it provides none";
    return [
      `${secret.field} names Secret ${secret.name}, which ${label} does not provide (${offered}): add it to its spec.eso.secrets or spec.sealedSecrets.secrets, or name one it provides`,
    ];
  });
  if (problems.length === 0) return undefined;
  return { ok: false, reason: "SecretNotProvided", message: problems.join("; "), stalled: true };
}

/**
 * A desired state held back while a Secret it reads through a secretsRef is not provided: nothing is
 * applied (no credentials copied, nothing wired) and the verdict says which field to change.
 */
export function withProvidedSecrets<Status>(
  namespace: string,
  uses: readonly SecretsUse[],
  view: EngineView,
  desired: () => Desired<Status>,
): Desired<Status> {
  for (const use of uses) {
    const verdict = unprovidedSecrets(namespace, use, view);
    if (verdict) return { steps: [], verdict };
  }
  return desired();
}
