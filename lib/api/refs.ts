import { z } from "zod";

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

/** `{name, key?, namespace?}`: a Secret, or one key of it. */
export const SecretKeyRef = z
  .object({
    name: objectName.describe("Name of the Secret."),
    key: z
      .string()
      .min(1)
      .max(253)
      .regex(/^[-._a-zA-Z0-9]+$/, { message: "must consist of letters, digits, '-', '_' or '.'" })
      .optional()
      .describe("Key within the Secret; when omitted, the Secret's conventional keys are read."),
    namespace: namespaceName.optional().describe("Namespace of the Secret; defaults to the referring resource's."),
  })
  .strict();
export type SecretKeyRef = z.infer<typeof SecretKeyRef>;

/** Resolves a reference's namespace against the namespace of the resource that holds it. */
export function refNamespace(ref: { readonly namespace?: string | undefined }, holderNamespace: string): string {
  return ref.namespace ?? holderNamespace;
}
