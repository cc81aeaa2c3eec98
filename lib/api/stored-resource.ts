import * as z from "zod";
import { namespaceName, objectName } from "./refs.js";

/**
 * A namespaced resource of the product's API as stored in the cluster: the metadata fields the product
 * reads (anything else passes through), its spec and, once reconciled, its status. `name` narrows the
 * name where a kind needs it (a Stack's, for instance).
 */
export function storedResource<K extends string, Spec extends z.ZodType, Status extends z.ZodType>(
  kind: K,
  spec: Spec,
  status: Status,
  name: z.ZodString = objectName,
) {
  return z
    .object({
      apiVersion: z.literal("core.navique.com/v1alpha1"),
      kind: z.literal(kind),
      metadata: z
        .object({
          name,
          namespace: namespaceName,
          uid: z.string().optional(),
          generation: z.number().int().optional(),
          resourceVersion: z.string().optional(),
          creationTimestamp: z.string().optional(),
          deletionTimestamp: z.string().optional(),
          finalizers: z.array(z.string()).optional(),
          labels: z.record(z.string(), z.string()).optional(),
          annotations: z.record(z.string(), z.string()).optional(),
        })
        .loose(),
      spec,
      status: status.optional(),
    })
    .loose();
}
