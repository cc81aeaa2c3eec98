import * as pulumi from "@pulumi/pulumi";
import type { ObjectName } from "../../lib/engine/preview.js";

/** Whether this run knows an output's value (a preview does not know what a create will answer). */
async function isKnown(output: pulumi.Output<unknown>): Promise<boolean> {
  const known = (output as unknown as { isKnown?: Promise<boolean> }).isKnown;
  return known === undefined ? true : await known;
}

/**
 * An output's value with what this run does not know left unknown inside it: the metadata of an object
 * to be created has its name, though not its uid. `promise(true)` is the SDK's reader of an output's
 * value with its unknowns (internal, as old as the SDK's Output; kubernetes-provider.ts reads it too).
 */
function valueWithUnknowns<T>(output: pulumi.Output<T>): Promise<T | undefined> {
  return (output as unknown as { promise(withUnknowns: boolean): Promise<T | undefined> }).promise(true);
}

/** A string, unless it is the engine's unknown. */
function text(value: unknown): string | undefined {
  return typeof value === "string" && value !== pulumi.runtime.unknownValue ? value : undefined;
}

/** What a @pulumi/kubernetes resource exposes of the object it manages: the SDK's outputs of the same names. */
interface KubernetesObjectOutputs {
  readonly kind?: pulumi.Output<string>;
  readonly metadata?: pulumi.Output<{ readonly name?: string; readonly namespace?: string } | undefined>;
}

/** The resources a component's `dependsOn` names, when given as resources (not as outputs of them). */
function dependsOnResources(opts: pulumi.ComponentResourceOptions): pulumi.Resource[] {
  const given = opts.dependsOn;
  const list = Array.isArray(given) ? given : given === undefined ? [] : [given];
  return list.filter((r): r is pulumi.Resource => pulumi.Resource.isInstance(r));
}

/** The resources a component's args are outputs of, and those its `dependsOn` names (as resources). */
export async function referencedResources(
  args: unknown,
  opts: pulumi.ComponentResourceOptions,
): Promise<pulumi.Resource[]> {
  const fromArgs = await (
    pulumi.output(args) as unknown as { allResources?: () => Promise<Set<pulumi.Resource>> }
  ).allResources?.();
  return [...new Set([...(fromArgs ?? []), ...dependsOnResources(opts)])];
}

/**
 * The kind, namespace and name of the object a @pulumi/kubernetes resource manages, as far as this run
 * knows them (a name still unknown: undefined). An object given no namespace is taken to be in
 * `namespace`, the component's.
 */
export async function kubernetesObjectName(
  resource: pulumi.Resource,
  namespace: string,
): Promise<ObjectName | undefined> {
  if (!pulumi.CustomResource.isInstance(resource)) return undefined;
  const object = resource as unknown as KubernetesObjectOutputs;
  if (!object.kind || !object.metadata) return undefined;
  const [kind, metadata] = await Promise.all([valueWithUnknowns(object.kind), valueWithUnknowns(object.metadata)]);
  const name = text(metadata?.name);
  if (!text(kind) || !name) return undefined;
  return { kind: text(kind) as string, namespace: text(metadata?.namespace) ?? namespace, name };
}

/**
 * The Kubernetes objects this run creates before a component: the @pulumi/kubernetes resources its args
 * are outputs of, or that its `dependsOn` names, whose id the preview does not know yet (created, or
 * replaced, by this run). A preview does not report them missing: Pulumi creates them first. An object
 * given no namespace is taken to be in `namespace`, the component's, where the references it can stand
 * for are.
 */
export async function createdFirst(
  args: unknown,
  opts: pulumi.ComponentResourceOptions,
  namespace: string,
): Promise<ObjectName[]> {
  const resources = await referencedResources(args, opts);
  const named = await Promise.all(
    resources.map(async (resource): Promise<ObjectName | undefined> => {
      if (!pulumi.CustomResource.isInstance(resource)) return undefined;
      if (await isKnown(resource.id)) return undefined;
      return kubernetesObjectName(resource, namespace);
    }),
  );
  return named.filter((n): n is ObjectName => n !== undefined);
}
