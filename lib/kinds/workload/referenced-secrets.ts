import type { ObservedRead, Verdict } from "../../engine/kind-module.js";
import type { Credentials } from "../../engine/objects.js";
import type { EngineView } from "../../engine/view.js";

/**
 * One Secret key a workload passes on by reference (to an upstream operator or a chart, which hands it to
 * a container as a secretKeyRef): the field naming it, and the Secret, in the resource's namespace, and
 * key. `keys` lists the keys read when the reference names a whole Secret (a project's two keys).
 */
export interface ReferencedSecret {
  readonly field: string;
  readonly name: string;
  readonly keys: readonly string[];
}

/** The id under which a referenced Secret is read into the view. */
export function secretReadId(field: string): string {
  return `secret:${field}`;
}

/** The reads of the Secrets a workload passes on by reference: each checked for its keys before use, never copied. */
export function referencedSecretReads(namespace: string, secrets: readonly ReferencedSecret[]): ObservedRead[] {
  return secrets.map(({ field, name }) => ({
    id: secretReadId(field),
    field,
    apiVersion: "v1",
    kind: "Secret",
    namespace,
    name,
    as: "credentials",
  }));
}

/**
 * The first Secret passed on by reference that is not there or lacks a key, as a verdict naming the field,
 * the Secret and the keys it has (never their values); undefined when all are. Not Stalled: another tool
 * (a SecretsManagement, a pipeline) may still create it.
 */
export function missingSecret(
  namespace: string,
  secrets: readonly ReferencedSecret[],
  view: EngineView,
): Verdict | undefined {
  for (const { field, name, keys } of secrets) {
    const found = view.reads?.[secretReadId(field)] as Credentials | undefined;
    const where = `Secret ${namespace}/${name}`;
    if (!found)
      return {
        ok: false,
        reason: "SecretMissing",
        message: `${field}: ${where} does not exist: create it with key${keys.length > 1 ? "s" : ""} ${keys.join(", ")}, or point ${field} at one that does`,
      };
    const lacking = keys.filter((key) => !found[key]);
    if (lacking.length > 0)
      return {
        ok: false,
        reason: "SecretMissing",
        message: `${field}: ${where} has no key ${lacking.join(", ")} (it has ${Object.keys(found).sort().join(", ") || "no keys"}): add it, or ${keys.length > 1 ? `point ${field} at a Secret that has it` : `set ${field}.key`}`,
      };
  }
  return undefined;
}
