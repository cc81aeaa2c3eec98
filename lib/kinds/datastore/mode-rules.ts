/** A cross-field rule: CEL for the apiserver, the same message for zod, and the field it is about. */
export interface SpecRule {
  readonly rule: string;
  readonly message: string;
  readonly path: readonly string[];
}

/** What a datastore spec in one of the modes managed, adopt, external holds, as the rules read it. */
interface ModedSpec {
  readonly mode: string;
  readonly adopt?: unknown;
  readonly external?: unknown;
  readonly managed?: unknown;
}

/**
 * The rules every datastore kind's modes follow (managed, adopt, external): a mode's block is required in
 * that mode and allowed in no other. `adoptFields` says what spec.adopt must set, for the message; a
 * kind without the adopt mode passes none, and its rules name no spec.adopt (which the apiserver's CEL
 * compiler would refuse on a schema without the field).
 */
export function datastoreModeRules(adoptFields?: string): {
  readonly rules: readonly SpecRule[];
  readonly broken: (spec: ModedSpec) => SpecRule[];
} {
  const adoptRequired = {
    rule: "self.mode != 'adopt' || has(self.adopt)",
    message: `spec.adopt is required when spec.mode is adopt: set ${adoptFields}`,
    path: ["adopt"],
  };
  const externalRequired = {
    rule: "self.mode != 'external' || has(self.external)",
    message: "spec.external is required when spec.mode is external: set spec.external.connectionSecretRef",
    path: ["external"],
  };
  const adoptOnly = {
    rule: "self.mode == 'adopt' || !has(self.adopt)",
    message: "spec.adopt is only allowed when spec.mode is adopt: remove spec.adopt or set spec.mode: adopt",
    path: ["adopt"],
  };
  const externalOnly = {
    rule: "self.mode == 'external' || !has(self.external)",
    message:
      "spec.external is only allowed when spec.mode is external: remove spec.external or set spec.mode: external",
    path: ["external"],
  };
  const managedOnly = {
    rule: "self.mode == 'managed' || !has(self.managed)",
    message: "spec.managed is only allowed when spec.mode is managed: remove spec.managed or set spec.mode: managed",
    path: ["managed"],
  };
  const adopts = adoptFields !== undefined;
  return {
    rules: adopts
      ? [adoptRequired, externalRequired, adoptOnly, externalOnly, managedOnly]
      : [externalRequired, externalOnly, managedOnly],
    broken: (spec) =>
      [
        adopts && spec.mode === "adopt" && spec.adopt === undefined ? adoptRequired : undefined,
        spec.mode === "external" && spec.external === undefined ? externalRequired : undefined,
        adopts && spec.mode !== "adopt" && spec.adopt !== undefined ? adoptOnly : undefined,
        spec.mode !== "external" && spec.external !== undefined ? externalOnly : undefined,
        spec.mode !== "managed" && spec.managed !== undefined ? managedOnly : undefined,
      ].filter((rule) => rule !== undefined),
  };
}
