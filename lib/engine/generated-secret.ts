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
  | { readonly length: number; readonly alphabet: GeneratedAlphabet; readonly prefix?: string }
  /** The value of another key of the same Secret: one secret a chart and the connection read under two names. */
  | { readonly sameAs: string };

const ALPHANUMERIC = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/** The value of one key, by its rule (a `sameAs` key takes its value in generatedData). */
export function generatedValue(rule: Exclude<KeyRule, { sameAs: string }>): string {
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

/** Every key of a generated Secret with its value, drawn now; a `sameAs` key copies the key it names. */
export function generatedData(keys: Readonly<Record<string, KeyRule>>): Record<string, string> {
  const data: Record<string, string> = {};
  for (const [key, rule] of Object.entries(keys)) if (!("sameAs" in rule)) data[key] = generatedValue(rule);
  for (const [key, rule] of Object.entries(keys)) {
    if (!("sameAs" in rule)) continue;
    const value = data[rule.sameAs];
    if (value === undefined)
      throw new Error(`key ${key} is the same as ${rule.sameAs}, which the Secret does not generate`);
    data[key] = value;
  }
  return data;
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
 * A generated Secret the product made (it is in the resource's `status.emitted`) carries `madeBefore`.
 * One the pass observed gone was deleted by someone, and its old values cannot come back — the product
 * keeps no copy: it is re-created with new values, a rotation, which the step says, and the executor
 * records as an Event when it actually creates it (rotationEvent) — not when planned: another process
 * may have re-created it first. The rule for every kind.
 */
export function rotations(
  emitted: readonly EmittedObject[],
  view: EngineView,
  steps: readonly DesiredStep[],
): DesiredStep[] {
  return steps.map((step): DesiredStep => {
    if (step.kind !== "generate-secret") return step;
    const key = keyOf(step.object);
    const made = emitted.some((e) => e.apiVersion === "v1" && `${e.kind}/${e.namespace}/${e.name}` === key);
    if (!made) return step;
    if (view.objects.has(key)) return { ...step, madeBefore: true };
    const { name, namespace } = step.object.metadata;
    return {
      ...step,
      madeBefore: true,
      description: `re-create Secret ${namespace}/${name}, deleted, with a new generated ${listed(generatedKeys(step.keys))} (a rotation: Warning CredentialsRotated)`,
    };
  });
}

/**
 * The one Warning Event `CredentialsRotated` of a generated Secret re-created with new values, naming the
 * Secret, the keys and what the module says follows (`rotation`). `createdUid` is the new Secret's: each
 * rotation is its own Event.
 */
export function rotationEvent(
  step: Extract<DesiredStep, { kind: "generate-secret" }>,
  createdUid: string,
): PlannedEvent {
  const { name, namespace } = step.object.metadata;
  const message = `Secret ${namespace}/${name} was deleted and is re-created with a new generated ${listed(generatedKeys(step.keys))}; ${step.rotation}`;
  return { type: "Warning", reason: "CredentialsRotated", message, cause: `${message}\u0000${createdUid}` };
}
