import {
  ApiObject,
  type ApiObjectProps,
  App,
  ImplicitTokenResolver,
  type JsonPatch,
  LazyResolver,
  NumberStringUnionResolver,
} from "cdk8s";
import type { Construct } from "constructs";

/** cdk8s's own resolvers, the ones every App has: on plain data, each leaves every value as it is. */
const BUILT_IN_RESOLVERS = [LazyResolver, ImplicitTokenResolver, NumberStringUnionResolver];

/** Met where a value is not plain data (a token, a class instance, a function): cdk8s must resolve it. */
const NOT_PLAIN = Symbol("not plain");

/**
 * `value` as cdk8s renders plain data (`sanitizeValue` after `resolve`): keys sorted unless
 * CDK8S_DISABLE_SORT is set, a null or undefined field dropped, a null list item undefined; NOT_PLAIN if
 * anything in it is not plain data.
 */
function rendered(value: unknown, sortKeys: boolean): unknown {
  if (value === null || value === undefined) return undefined;
  if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") return value;
  if (Array.isArray(value)) {
    const items: unknown[] = [];
    for (const item of value) {
      const copy = rendered(item, sortKeys);
      if (copy === NOT_PLAIN) return NOT_PLAIN;
      items.push(copy);
    }
    return items;
  }
  if (typeof value !== "object" || Object.getPrototypeOf(value) !== Object.prototype) return NOT_PLAIN;
  const keys = sortKeys ? Object.keys(value).sort() : Object.keys(value);
  const copy: Record<string, unknown> = {};
  for (const key of keys) {
    const field = rendered((value as Record<string, unknown>)[key], sortKeys);
    if (field === NOT_PLAIN) return NOT_PLAIN;
    if (field !== undefined) copy[key] = field;
  }
  return copy;
}

/**
 * A cdk8s ApiObject whose spec is what a kind's schema admitted — strings, numbers, booleans, lists and
 * plain objects — the base of every construct of a kind (./navique-resource.ts). Resolving such data
 * changes nothing, yet cdk8s's `resolve` asks every resolver of the app about every value, finding the
 * app anew for each: rendering the spec cost more than the rest of the document. So, when no JSON patch
 * was added, the app has only cdk8s's own resolvers and the spec is indeed plain, the spec is copied as
 * cdk8s would render it; otherwise cdk8s renders the object. Either way the output is the same
 * (test/unit/resource-object.test.ts).
 */
export class ResourceObject extends ApiObject {
  private patched = false;

  constructor(
    scope: Construct,
    id: string,
    private readonly resourceProps: ApiObjectProps & { readonly spec: unknown },
  ) {
    super(scope, id, resourceProps);
  }

  override addJsonPatch(...ops: JsonPatch[]): void {
    this.patched = true;
    super.addJsonPatch(...ops);
  }

  override toJson(): unknown {
    const resolvers = App.of(this).resolvers;
    const builtInOnly =
      resolvers.length === BUILT_IN_RESOLVERS.length &&
      resolvers.every((resolver, index) => resolver.constructor === BUILT_IN_RESOLVERS[index]);
    if (this.patched || !builtInOnly) return super.toJson();
    const spec = rendered(this.resourceProps.spec, !process.env.CDK8S_DISABLE_SORT);
    if (spec === NOT_PLAIN) return super.toJson();
    const document: Record<string, unknown> = {
      apiVersion: this.apiVersion,
      kind: this.kind,
      metadata: this.metadata.toJson(),
    };
    if (spec !== undefined) document.spec = spec;
    return document;
  }
}
