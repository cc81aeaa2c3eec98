import * as z from "zod";

/** A Kubernetes object name (RFC 1123 subdomain). */
export const objectName = z
  .string()
  .min(1)
  .max(253)
  .regex(/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/, {
    message:
      "must be a lowercase RFC 1123 name: letters, digits, '-' and '.', starting and ending with a letter or digit",
  });

/** A namespace name (RFC 1123 label). */
export const namespaceName = z
  .string()
  .min(1)
  .max(63)
  .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, {
    message: "must be a lowercase RFC 1123 label: letters, digits and '-', starting and ending with a letter or digit",
  });

/**
 * What a reference field of a spec names: the API group and kind of the object (`""` for the core group),
 * and, when it may name objects of several kinds, the reference's own field that says which.
 */
export interface ReferenceTarget {
  readonly group: string;
  readonly kinds: readonly string[];
  readonly kindField?: string;
}

/** A Secret: what `SecretKeyRef` names. */
export const SECRET_TARGET = { group: "", kinds: ["Secret"] } as const satisfies ReferenceTarget;

/** The key under which a reference schema's type carries its target (a type only: nothing is stored there). */
export const REFERENCE_TARGET_KEY = "~references";

/** A reference schema, typed with what it names: the front ends' reference types are computed from it. */
export type ReferenceSchema<S extends z.ZodType, T extends ReferenceTarget> = S & {
  readonly [REFERENCE_TARGET_KEY]?: T;
};

/**
 * What every reference schema names, for the walks at run time (`referenceFields`). A copy made by
 * `.describe()` or `.optional()` keeps its original's entry (zod's registries inherit from the parent).
 */
export const referenceTargets = z.registry<ReferenceTarget>();

/**
 * Declares that `schema` is a reference to an object of `target`: on a copy, so that one shape (ObjectRef)
 * can name different kinds in different fields. The one place a reference field's kind is stated.
 */
export function referenceTo<S extends z.ZodType, const T extends ReferenceTarget>(
  target: T,
  schema: S,
): ReferenceSchema<S, T> {
  const marked = schema.clone();
  referenceTargets.add(marked, target);
  return marked as ReferenceSchema<S, T>;
}

/** `{name, namespace?}`: namespace defaults to the referring resource's; may cross namespaces. */
export const ObjectRef = z
  .object({
    name: objectName.describe("Name of the referenced object."),
    namespace: namespaceName
      .optional()
      .describe("Namespace of the referenced object; defaults to the referring resource's."),
  })
  .strict();
export type ObjectRef = z.infer<typeof ObjectRef>;

/** `{name}`: same namespace only. */
export const LocalRef = z.object({ name: objectName.describe("Name of an object in the same namespace.") }).strict();
export type LocalRef = z.infer<typeof LocalRef>;

/** A key of a Secret, as the API server accepts one. */
const secretKey = z
  .string()
  .min(1)
  .max(253)
  .regex(/^[-._a-zA-Z0-9]+$/, { message: "must consist of letters, digits, '-', '_' or '.'" });

/** `{name, key?, namespace?}`: a Secret, or one key of it. */
export const SecretKeyRef = referenceTo(
  SECRET_TARGET,
  z
    .object({
      name: objectName.describe("Name of the Secret."),
      key: secretKey
        .optional()
        .describe("Key within the Secret; when omitted, the Secret's conventional keys are read."),
      namespace: namespaceName.optional().describe("Namespace of the Secret; defaults to the referring resource's."),
    })
    .strict(),
);
export type SecretKeyRef = z.infer<typeof SecretKeyRef>;

/**
 * `{name, key}`: one key of a Secret in the namespace of the resource of kind `kind` — what a kind hands
 * an upstream operator, which passes it on as an environment variable's secretKeyRef: that reads no
 * other namespace, and needs the key.
 */
export function localSecretKeyRef(kind: string) {
  return referenceTo(
    SECRET_TARGET,
    z
      .object({
        name: objectName.describe(`Name of a Secret in the ${kind}'s namespace.`),
        key: secretKey.describe("Key within the Secret."),
      })
      .strict(),
  );
}
export type LocalSecretKeyRef = z.infer<ReturnType<typeof localSecretKeyRef>>;

/** Resolves a reference's namespace against the namespace of the resource that holds it. */
export function refNamespace(ref: { readonly namespace?: string | undefined }, holderNamespace: string): string {
  return ref.namespace ?? holderNamespace;
}
