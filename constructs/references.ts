import { ApiObject } from "cdk8s";
import { Construct } from "constructs";

/** A resource outside the app, by name (and namespace, when it is another one than the referrer's). */
export interface ExternalResource {
  readonly name: string;
  readonly namespace?: string;
}

/**
 * A reference to a resource the app does not declare: a Secret made by hand, a database cluster of
 * another team's. Written where a construct of the app could stand instead.
 */
export function fromName(name: string, namespace?: string): ExternalResource {
  return namespace === undefined ? { name } : { name, namespace };
}

/**
 * Where a spec references another object (`{ name, namespace? }`), a construct of the app may stand
 * instead: a cdk8s ApiObject, or any construct whose default child is one (this package's constructs,
 * cdk8s-plus's Secret, ConfigMap…).
 */
export type Referenceable = ApiObject | Construct;

/** A spec input in which every `{ name, namespace? }` reference may be a construct instead. */
export type WithReferences<T> = T extends { readonly name: string }
  ? T | Referenceable | (Omit<T, "name" | "namespace"> & { readonly ref: Referenceable })
  : T extends readonly (infer E)[]
    ? readonly WithReferences<E>[]
    : T extends object
      ? { readonly [K in keyof T]: WithReferences<T[K]> }
      : T;

function apiObjectOf(value: unknown): ApiObject | undefined {
  if (ApiObject.isApiObject(value)) return value;
  if (!Construct.isConstruct(value)) return undefined;
  try {
    return ApiObject.of(value);
  } catch {
    return undefined;
  }
}

/**
 * A spec with every construct standing for a reference replaced by the reference it means — its name,
 * and its namespace when another than `namespace` (the referrer's) — and the ApiObjects so referenced,
 * on which the referrer depends: cdk8s writes them before it. `{ ref: construct, ...more }` keeps the
 * other fields of the reference (a Secret's `key`).
 */
export function resolveReferences(
  spec: unknown,
  namespace: string | undefined,
): { readonly spec: unknown; readonly dependencies: readonly ApiObject[] } {
  const dependencies: ApiObject[] = [];
  const reference = (object: ApiObject) => {
    dependencies.push(object);
    // An object without a namespace of its own is written in its chart's.
    const theirs = object.metadata.namespace ?? object.chart.namespace;
    return theirs && theirs !== namespace ? { name: object.name, namespace: theirs } : { name: object.name };
  };
  const walk = (value: unknown): unknown => {
    const object = apiObjectOf(value);
    if (object) return reference(object);
    if (Array.isArray(value)) return value.map(walk);
    if (value === null || typeof value !== "object") return value;
    const entries = Object.entries(value);
    const target = "ref" in value ? apiObjectOf(value.ref) : undefined;
    if (!target) return Object.fromEntries(entries.map(([key, field]) => [key, walk(field)]));
    const others = entries.filter(([key]) => key !== "ref").map(([key, field]) => [key, walk(field)]);
    return { ...reference(target), ...Object.fromEntries(others) };
  };
  return { spec: walk(spec), dependencies };
}
