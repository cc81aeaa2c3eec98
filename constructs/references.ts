import { ApiObject } from "cdk8s";
import { Construct, type IConstruct } from "constructs";
import { API_GROUP } from "../lib/api/group.js";
import { NO_REFERENCES, type ReferenceNode } from "../lib/api/reference-fields.js";
import type { ReferenceTarget } from "../lib/api/refs.js";
import type { FieldProblem } from "../lib/api/validation.js";

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
 * Where a construct of this package carries its kind for tsc. It is a cdk8s ApiObject too, which any
 * reference field takes (its kind checked at synth): without a mark a plain ApiObject lacks, a
 * PostgresCluster would pass for any kind.
 */
export const KIND_MARK: unique symbol = Symbol("core.navique.com/kind");

/** A construct of this package standing for one resource of kind `K` (constructs/navique-resource.ts). */
export interface KindConstruct<K extends string = string> extends IConstruct {
  readonly kind: K;
  readonly [KIND_MARK]: K;
  readonly apiObject: ApiObject;
}

/**
 * A cdk8s-plus Secret (`Secret`, `BasicAuthSecret`…, or one of `Secret.fromSecretName`), known by its
 * shape: this package does not depend on cdk8s-plus. `envValue` is what only its Secrets have.
 */
export interface SecretConstruct extends IConstruct {
  readonly kind: string;
  readonly name: string;
  envValue(key: string): unknown;
}

/**
 * What may stand for a reference to an object of target `T` (a spec's reference field, as its schema
 * declares it: lib/api/refs.ts): a construct of that kind — this package's construct of a kind of the
 * product, a cdk8s-plus Secret for a Secret — or a cdk8s ApiObject, whose kind is known only at synth
 * and checked there.
 */
export type Referenceable<T extends ReferenceTarget = ReferenceTarget> =
  | (ApiObject & { readonly [KIND_MARK]?: never })
  | (T["group"] extends "" ? ("Secret" extends T["kinds"][number] ? SecretConstruct : never) : never)
  | (T["group"] extends typeof API_GROUP ? KindConstruct<T["kinds"][number]> : never);

type KindField<T> = T extends { readonly kindField: infer F extends string } ? F : never;

/** What no construct is: every construct has a `node`. */
interface NoConstruct {
  readonly node?: never;
}

/**
 * `S` with every object in it refusing a construct: a construct has a `name` (and a `namespace`), so tsc
 * would otherwise take any for `{ name }`, whatever its kind.
 */
type Plain<S> = S extends readonly (infer E)[]
  ? readonly Plain<E>[]
  : S extends object
    ? { readonly [K in keyof S]: Plain<S[K]> } & NoConstruct
    : S;

/** A reference input `R` where a construct of its target `T` may stand, alone or as `{ ref, ...other fields }`. */
type ReferenceInput<R, T extends ReferenceTarget> = R extends object
  ?
      | Plain<R>
      | Referenceable<T>
      | (Plain<Omit<R, "name" | "namespace" | KindField<T>>> & { readonly ref: Referenceable<T> })
  : R;

/**
 * A spec input `S` in which each reference field — those of `Tree`, the schema's reference tree
 * (`ReferenceTree<typeof Schema>`, lib/api/reference-fields.ts) — may be a construct of the kind it
 * references instead of `{ name, namespace? }`; a construct anywhere else, or of another kind, is a type
 * error. Every field keeps `S`'s own type and documentation.
 */
export type WithReferences<S, Tree> = [Tree] extends [never]
  ? Plain<S>
  : Tree extends ReferenceTarget
    ? ReferenceInput<S, Tree>
    : S extends readonly (infer E)[]
      ? readonly WithReferences<E, Tree>[]
      : S extends object
        ? { readonly [K in keyof S]: WithReferences<S[K], K extends keyof Tree ? Tree[K] : never> } & NoConstruct
        : S;

/** What a construct standing for a reference stands for. */
interface Standing {
  readonly kind: string;
  readonly group: string;
  readonly name: string;
  readonly namespace?: string | undefined;
  /** The object cdk8s writes for it, which the referrer then depends on. */
  readonly object?: ApiObject;
}

const groupOf = (apiVersion: string) => (apiVersion.includes("/") ? apiVersion.slice(0, apiVersion.indexOf("/")) : "");

function standingOf(construct: IConstruct): Standing | undefined {
  let object: ApiObject | undefined;
  if (ApiObject.isApiObject(construct)) object = construct;
  else {
    try {
      object = ApiObject.of(construct);
    } catch {
      object = undefined;
    }
  }
  if (object) {
    // An object without a namespace of its own is written in its chart's.
    const namespace = object.metadata.namespace ?? object.chart.namespace;
    return { kind: object.kind, group: groupOf(object.apiVersion), name: object.name, namespace, object };
  }
  // A construct that names an object it does not write (cdk8s-plus's Secret.fromSecretName).
  const { kind, name, apiVersion } = construct as Partial<Record<"kind" | "name" | "apiVersion", unknown>>;
  if (typeof kind === "string" && typeof name === "string" && typeof apiVersion === "string") {
    return { kind, group: groupOf(apiVersion), name };
  }
  return undefined;
}

function article(word: string): string {
  return /^[AEIOU]/.test(word) ? "an" : "a";
}

/** `a Secret`, `a Cluster (postgresql.cnpg.io)`, `a Redis or RedisReplication (redis.redis.opstreelabs.in)`. */
function targetLabel(target: ReferenceTarget): string {
  const kinds = target.kinds.join(" or ");
  const group = target.group === "" || target.group === API_GROUP ? "" : ` (${target.group})`;
  return `${article(kinds)} ${kinds}${group}`;
}

function constructLabel(construct: IConstruct, standing: Standing | undefined): string {
  if (!standing) return `the construct at ${construct.node.path}, which is no Kubernetes object`;
  const group = standing.group === "" || standing.group === API_GROUP ? "" : ` (${standing.group})`;
  return `the ${standing.kind}${group} at ${construct.node.path}`;
}

const isRecord = (value: unknown): value is Readonly<Record<string, unknown>> =>
  value !== null && typeof value === "object" && !Array.isArray(value);

/** Spec input with its constructs replaced, the objects it now depends on, and the constructs refused. */
export interface ResolvedReferences {
  readonly spec: unknown;
  readonly dependencies: readonly ApiObject[];
  /** A construct of a kind the field does not reference, or a construct where no reference is. */
  readonly problems: readonly FieldProblem[];
}

/**
 * A spec with every construct standing for a reference replaced by the reference it means — its name,
 * its namespace when another than `namespace` (the referrer's), its kind when the reference says which
 * of several — and the ApiObjects so referenced, on which the referrer depends: cdk8s writes them before
 * it. `fields` (the schema's reference fields) says where references are and what each names: a
 * construct of another kind, or a construct anywhere else, is a problem of that field.
 * `{ ref: construct, ...more }` keeps the other fields of the reference (a Secret's `key`).
 */
export function resolveReferences(
  spec: unknown,
  namespace: string | undefined,
  fields: ReferenceNode,
  prefix = "spec",
): ResolvedReferences {
  const dependencies: ApiObject[] = [];
  const problems: FieldProblem[] = [];
  const stand = (construct: IConstruct, target: ReferenceTarget, path: string) => {
    const standing = standingOf(construct);
    if (!standing || standing.group !== target.group || !target.kinds.includes(standing.kind)) {
      const expected = targetLabel(target);
      problems.push({
        path,
        message: `references ${expected}: give a construct of that kind, fromName(name, namespace?) or { name }`,
        received: constructLabel(construct, standing),
      });
      return undefined;
    }
    if (standing.object) dependencies.push(standing.object);
    const elsewhere = standing.namespace && standing.namespace !== namespace ? { namespace: standing.namespace } : {};
    const kind = target.kindField && target.kinds.length > 1 ? { [target.kindField]: standing.kind } : {};
    return { name: standing.name, ...elsewhere, ...kind };
  };
  /** A reference field's value: a construct, `{ ref: construct, ...more }`, or the reference itself. */
  const atReference = (value: unknown, target: ReferenceTarget, path: string): unknown => {
    if (Construct.isConstruct(value)) return stand(value, target, path);
    if (!isRecord(value) || !("ref" in value)) return value;
    const { ref, ...others } = value;
    if (!Construct.isConstruct(ref)) {
      problems.push({
        path,
        message: `ref takes a construct of the kind the field references (${targetLabel(target)}); to name one outside the app, write fromName(name, namespace?) or { name } instead of { ref }`,
        received: `ref: ${JSON.stringify(ref) ?? String(ref)}`,
      });
      return undefined;
    }
    const reference = stand(ref, target, path);
    return reference && { ...others, ...reference };
  };
  const walk = (value: unknown, node: ReferenceNode, path: string): unknown => {
    if (node.target) return atReference(value, node.target, path);
    if (Construct.isConstruct(value)) {
      problems.push({
        path,
        message: "is no reference: a construct stands only where the spec names another object; write the value itself",
        received: constructLabel(value, standingOf(value)),
      });
      return undefined;
    }
    if (Array.isArray(value)) return value.map((item, index) => walk(item, node, `${path}[${index}]`));
    if (!isRecord(value)) return value;
    return Object.fromEntries(
      Object.entries(value).map(([key, field]) => [
        key,
        walk(field, node.fields[key] ?? NO_REFERENCES, `${path}.${key}`),
      ]),
    );
  };
  return { spec: walk(spec, fields, prefix), dependencies, problems };
}
