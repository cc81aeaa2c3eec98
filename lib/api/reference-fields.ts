import type * as z from "zod";
import { type REFERENCE_TARGET_KEY, type ReferenceTarget, referenceTargets } from "./refs.js";

/**
 * The reference fields of a spec schema, as a tree of field names down to what each reference names
 * (arrays are transparent: a reference in a list's items is under the list's field). Computed from the
 * schema's type, so that the front ends' reference types follow the schema: `never` where there is none.
 */
export type ReferenceTree<S> = typeof REFERENCE_TARGET_KEY extends keyof S
  ? Extract<S[typeof REFERENCE_TARGET_KEY], ReferenceTarget>
  : S extends { readonly shape: infer Shape }
    ? PrunedTree<{ readonly [K in keyof Shape]: ReferenceTree<Shape[K]> }>
    : S extends { readonly element: infer Element }
      ? ReferenceTree<Element>
      : S extends { unwrap(): infer Inner }
        ? ReferenceTree<Inner>
        : never;

type WithReferencesOnly<T> = { readonly [K in keyof T as [T[K]] extends [never] ? never : K]: T[K] };
type PrunedTree<T> = keyof WithReferencesOnly<T> extends never ? never : WithReferencesOnly<T>;

/** The same tree at run time: a node's target when it is a reference, else the nodes of its fields. */
export interface ReferenceNode {
  readonly target?: ReferenceTarget;
  readonly fields: Readonly<Record<string, ReferenceNode>>;
}

/** A node with no reference under it. */
export const NO_REFERENCES: ReferenceNode = { fields: {} };

type ZodDef = { readonly type?: string } & Readonly<Record<string, unknown>>;

const defOf = (schema: unknown) => (schema as { _zod?: { def?: ZodDef } } | undefined)?._zod?.def;

/** Wrappers whose inner schema describes the same value. */
const WRAPPERS: Readonly<Record<string, string>> = {
  optional: "innerType",
  default: "innerType",
  prefault: "innerType",
  nullable: "innerType",
  readonly: "innerType",
  catch: "innerType",
  nonoptional: "innerType",
  pipe: "in",
};

const known = new WeakMap<z.ZodType, ReferenceNode>();

/** The reference fields of `schema`, from the targets its reference schemas declare (`referenceTo`). */
export function referenceFields(schema: z.ZodType): ReferenceNode {
  const cached = known.get(schema);
  if (cached) return cached;
  const node = walk(schema);
  known.set(schema, node);
  return node;
}

function walk(schema: z.ZodType): ReferenceNode {
  const target = referenceTargets.get(schema);
  if (target) return { target, fields: {} };
  const def = defOf(schema);
  const wrapped = def?.type ? WRAPPERS[def.type] : undefined;
  if (def && wrapped) return walk(def[wrapped] as z.ZodType);
  if (def?.type === "array") return walk(def.element as z.ZodType);
  if (def?.type !== "object") return NO_REFERENCES;
  const fields = Object.entries(def.shape as Record<string, z.ZodType>)
    .map(([name, field]) => [name, walk(field)] as const)
    .filter(([, node]) => node !== NO_REFERENCES);
  return fields.length === 0 ? NO_REFERENCES : { fields: Object.fromEntries(fields) };
}

/** Whether a reference's own schema lets it name another namespace: it has a `namespace` field. */
function namesNamespace(schema: z.ZodType): boolean {
  const def = defOf(schema);
  const wrapped = def?.type ? WRAPPERS[def.type] : undefined;
  if (def && wrapped) return namesNamespace(def[wrapped] as z.ZodType);
  return def?.type === "object" && "namespace" in (def.shape as Record<string, unknown>);
}

/**
 * Whether any reference of `schema` may point into another namespace: what makes a kind one a
 * ReferenceGrant's `from` can name. A kind whose references are all local (a Stack's Secret keys) holds
 * none a grant could open.
 */
export function mayReferenceAcrossNamespaces(schema: z.ZodType): boolean {
  if (referenceTargets.get(schema)) return namesNamespace(schema);
  const def = defOf(schema);
  const wrapped = def?.type ? WRAPPERS[def.type] : undefined;
  if (def && wrapped) return mayReferenceAcrossNamespaces(def[wrapped] as z.ZodType);
  if (def?.type === "array") return mayReferenceAcrossNamespaces(def.element as z.ZodType);
  if (def?.type !== "object") return false;
  return Object.values(def.shape as Record<string, z.ZodType>).some(mayReferenceAcrossNamespaces);
}
