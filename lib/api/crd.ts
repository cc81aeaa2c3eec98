import type * as z from "zod";
import { API_GROUP, API_VERSION } from "./group.js";
import { structuralSchema } from "./openapi.js";

export interface PrinterColumn {
  readonly name: string;
  readonly type: "string" | "integer" | "date" | "boolean";
  readonly jsonPath: string;
  readonly description: string;
  readonly priority?: number;
}

/** Everything a CustomResourceDefinition is generated from; the zod schemas are the source of truth. */
export interface KindDefinition {
  readonly kind: string;
  readonly plural: string;
  readonly singular: string;
  readonly shortNames: readonly string[];
  readonly scope: "Namespaced" | "Cluster";
  readonly description: string;
  readonly spec: z.ZodType;
  /** Left out for a kind nobody reconciles into (a ReferenceGrant): no status, no status subresource. */
  readonly status?: z.ZodType;
  readonly printerColumns: readonly PrinterColumn[];
  /** CEL rules on the whole object (e.g. a singleton's fixed name). */
  readonly rootValidations?: readonly RootValidation[];
  /** The form metadata.name must have (a regular expression), when the kind needs more than an object name. */
  readonly namePattern?: string;
}

/**
 * A CEL rule on the whole object. `fieldPath` names the field the apiserver reports it on (`.metadata.name`),
 * `messageExpression` computes its message from the object (the value received), `message` standing for it
 * where it cannot be computed, and in the documents.
 */
export interface RootValidation {
  readonly rule: string;
  readonly message: string;
  readonly messageExpression?: string;
  readonly fieldPath?: string;
  readonly reason?: "FieldValueInvalid" | "FieldValueForbidden" | "FieldValueRequired" | "FieldValueDuplicate";
}

export const READY_COLUMN: PrinterColumn = {
  name: "Ready",
  type: "string",
  jsonPath: '.status.conditions[?(@.type=="Ready")].status',
  description: "Whether the resource is Ready",
};
export const AGE_COLUMN: PrinterColumn = {
  name: "Age",
  type: "date",
  jsonPath: ".metadata.creationTimestamp",
  description: "Time since creation",
};

/**
 * Whether the CRD's schema declares metadata.name: to give it a pattern, or for a rule to be reported on it
 * (the apiserver takes a rule's `fieldPath` only to a field the schema declares).
 */
function judgesName(definition: KindDefinition): boolean {
  return (
    definition.namePattern !== undefined ||
    (definition.rootValidations ?? []).some((rule) => rule.fieldPath === ".metadata.name")
  );
}

/** The CRD of a kind, as a plain object ready for server-side apply or YAML. */
export function customResourceDefinition(definition: KindDefinition) {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `${definition.plural}.${API_GROUP}` },
    spec: {
      group: API_GROUP,
      scope: definition.scope,
      names: {
        kind: definition.kind,
        listKind: `${definition.kind}List`,
        plural: definition.plural,
        singular: definition.singular,
        // An empty list is left out: helm drops it, and server-side apply would see a changed field.
        ...(definition.shortNames.length > 0 ? { shortNames: [...definition.shortNames] } : {}),
        categories: ["navique"],
      },
      versions: [
        {
          name: API_VERSION,
          served: true,
          storage: true,
          ...(definition.status ? { subresources: { status: {} } } : {}),
          additionalPrinterColumns: definition.printerColumns.map((column) => ({ ...column })),
          schema: {
            openAPIV3Schema: {
              type: "object",
              description: definition.description,
              properties: {
                apiVersion: { type: "string", description: "APIVersion of this object." },
                kind: { type: "string", description: "Kind of this object." },
                metadata: {
                  type: "object",
                  ...(judgesName(definition)
                    ? {
                        properties: {
                          name: {
                            type: "string",
                            ...(definition.namePattern ? { pattern: definition.namePattern } : {}),
                          },
                        },
                      }
                    : {}),
                },
                spec: structuralSchema(definition.spec),
                ...(definition.status ? { status: structuralSchema(definition.status) } : {}),
              },
              required: ["spec"],
              ...(definition.rootValidations
                ? { "x-kubernetes-validations": definition.rootValidations.map((v) => ({ ...v })) }
                : {}),
            },
          },
        },
      ],
    },
  };
}
