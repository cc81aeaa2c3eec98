/** A cross-field rule: CEL for the apiserver, the same message for zod, and the field it is about. */
export interface SpecRule {
  readonly rule: string;
  readonly message: string;
  readonly path: readonly string[];
}

/** An object with a `mode` and the optional blocks or fields each mode takes, as the rules read it. */
type Moded = { readonly mode: string } & { readonly [field: string]: unknown };

/** The fields one mode takes: those it requires (each with what to set, for the message) and those only it allows. */
export interface ModeFields {
  readonly required?: readonly { readonly field: string; readonly set: string }[];
  readonly only?: readonly string[];
}

/** Rules between an object's mode and its fields, in CEL and as zod's check. */
export interface ModeRules<S extends Moded = Moded> {
  readonly rules: readonly SpecRule[];
  readonly broken: (spec: S) => SpecRule[];
}

const listed = (names: readonly string[]) =>
  names.length === 1 ? (names[0] ?? "") : `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;

/**
 * The rules of an object whose `mode` picks the fields it takes (a datastore's spec; a Gateway's
 * spec.database): each field a mode requires is required in it, and the fields only a mode allows are
 * allowed in no other. `at` is the object's path for the messages (`spec`, `spec.database`); the modes'
 * order is the rules' order (every required field first, then every mode's only-allowed ones).
 */
export function modeRules<S extends Moded = Moded>(
  at: string,
  modes: Readonly<Record<string, ModeFields>>,
): ModeRules<S> {
  const field = (name: string) => `${at}.${name}`;
  const required = Object.entries(modes).flatMap(([mode, fields]) =>
    (fields.required ?? []).map(({ field: name, set }) => ({
      rule: {
        rule: `self.mode != '${mode}' || has(self.${name})`,
        message: `${field(name)} is required when ${at}.mode is ${mode}: ${set}`,
        path: [name],
      },
      broken: (spec: S) => spec.mode === mode && spec[name] === undefined,
    })),
  );
  const only = Object.entries(modes).flatMap(([mode, fields]) => {
    const names = fields.only ?? [];
    if (names.length === 0) return [];
    const absent = names.map((name) => `!has(self.${name})`);
    const them = names.length === 1 ? field(names[0] ?? "") : "them";
    return [
      {
        rule: {
          rule: `self.mode == '${mode}' || ${absent.length === 1 ? absent[0] : `(${absent.join(" && ")})`}`,
          message: `${listed(names.map(field))} ${names.length === 1 ? "is" : "are"} only allowed when ${at}.mode is ${mode}: remove ${them} or set ${at}.mode: ${mode}`,
          path: [names[0] ?? ""],
        },
        broken: (spec: S) => spec.mode !== mode && names.some((name) => spec[name] !== undefined),
      },
    ];
  });
  const all = [...required, ...only];
  return { rules: all.map((r) => r.rule), broken: (spec) => all.filter((r) => r.broken(spec)).map((r) => r.rule) };
}

/**
 * The rules every datastore kind's modes follow (managed, adopt, external): a mode's block is required in
 * that mode and allowed in no other. `adoptFields` says what spec.adopt must set, for the message; a
 * kind without the adopt mode passes none, and its rules name no spec.adopt (which the apiserver's CEL
 * compiler would refuse on a schema without the field).
 */
export function datastoreModeRules(adoptFields?: string): ModeRules<{
  readonly mode: string;
  readonly adopt?: unknown;
  readonly external?: unknown;
  readonly managed?: unknown;
}> {
  const adopt: Readonly<Record<string, ModeFields>> =
    adoptFields === undefined
      ? {}
      : { adopt: { required: [{ field: "adopt", set: `set ${adoptFields}` }], only: ["adopt"] } };
  return modeRules("spec", {
    ...adopt,
    external: { required: [{ field: "external", set: "set spec.external.connectionSecretRef" }], only: ["external"] },
    managed: { only: ["managed"] },
  });
}
