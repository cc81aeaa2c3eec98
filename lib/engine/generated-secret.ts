import { randomBytes, randomInt } from "node:crypto";
import type { EmittedObject } from "../api/resource-status.js";
import { type KubeObject, keyOf } from "./objects.js";
import type { DesiredStep, PlannedEvent } from "./steps.js";
import type { EngineView } from "./view.js";

/** The characters a generated value is drawn from. */
export type GeneratedAlphabet = "hex" | "base64url" | "alphanumeric";

/**
 * How one key of a generated Secret gets its value: a fixed value (a user name), or `length` characters
 * drawn at random from `alphabet` after an optional `prefix` (`sk-` for an API key). Values are drawn
 * from the operating system's CSPRNG (node:crypto), without bias.
 */
export type KeyRule =
  | { readonly fixed: string }
  | { readonly length: number; readonly alphabet: GeneratedAlphabet; readonly prefix?: string };

const ALPHANUMERIC = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/** The value of one key, by its rule. */
export function generatedValue(rule: KeyRule): string {
  if ("fixed" in rule) return rule.fixed;
  const { length, alphabet, prefix = "" } = rule;
  if (!Number.isInteger(length) || length < 1)
    throw new Error(`a generated value needs a length of 1 or more, not ${length}`);
  switch (alphabet) {
    case "hex":
      return (
        prefix +
        randomBytes(Math.ceil(length / 2))
          .toString("hex")
          .slice(0, length)
      );
    case "base64url":
      return (
        prefix +
        randomBytes(Math.ceil((length * 3) / 4))
          .toString("base64url")
          .slice(0, length)
      );
    case "alphanumeric":
      // randomInt draws each index uniformly: no modulo bias towards the first characters.
      return prefix + Array.from({ length }, () => ALPHANUMERIC[randomInt(ALPHANUMERIC.length)]).join("");
  }
}

/** Every key of a generated Secret with its value, drawn now. */
export function generatedData(keys: Readonly<Record<string, KeyRule>>): Record<string, string> {
  return Object.fromEntries(Object.entries(keys).map(([key, rule]) => [key, generatedValue(rule)]));
}

/** The keys whose values are drawn at random (not fixed), in order: what a rotation changes. */
export function generatedKeys(keys: Readonly<Record<string, KeyRule>>): string[] {
  return Object.entries(keys)
    .filter(([, rule]) => !("fixed" in rule))
    .map(([key]) => key);
}

/** The step that creates a Secret of generated keys once and never overwrites it (lib/engine/execute.ts). */
export function generateSecretStep(
  object: KubeObject,
  keys: Readonly<Record<string, KeyRule>>,
  why: { readonly description: string; readonly rotation: string },
): Extract<DesiredStep, { kind: "generate-secret" }> {
  return { kind: "generate-secret", object, keys, description: why.description, rotation: why.rotation };
}

function listed(keys: readonly string[]): string {
  return keys.length <= 1 ? (keys[0] ?? "") : `${keys.slice(0, -1).join(", ")} and ${keys.at(-1)}`;
}

/**
 * A generated Secret the product made (it is in the resource's `status.emitted`) that is no longer there
 * was deleted by someone: its old values cannot come back, the product keeps no copy. The next pass makes
 * it again with new values — a rotation, said so in the step and in one Warning Event `CredentialsRotated`
 * naming the Secret, the keys and what the module says follows (`rotation`). The rule for every kind.
 */
export function rotations(
  emitted: readonly EmittedObject[],
  view: EngineView,
  steps: readonly DesiredStep[],
): { readonly steps: DesiredStep[]; readonly events: PlannedEvent[] } {
  const events: PlannedEvent[] = [];
  const out = steps.map((step): DesiredStep => {
    if (step.kind !== "generate-secret") return step;
    const key = keyOf(step.object);
    const made = emitted.some((e) => e.apiVersion === "v1" && `${e.kind}/${e.namespace}/${e.name}` === key);
    if (!made || view.objects.has(key)) return step;
    const { name, namespace } = step.object.metadata;
    const keys = listed(generatedKeys(step.keys));
    events.push({
      type: "Warning",
      reason: "CredentialsRotated",
      message: `Secret ${namespace}/${name} was deleted and is re-created with a new generated ${keys}; ${step.rotation}`,
    });
    return {
      ...step,
      description: `re-create Secret ${namespace}/${name}, deleted, with a new generated ${keys} (a rotation: Warning CredentialsRotated)`,
    };
  });
  return { steps: out, events };
}
