import * as pulumi from "@pulumi/pulumi";
import type { ObjectName } from "../../lib/engine/preview.js";

/** A value of an output once known, undefined when this run does not know it (a preview's unknown). */
function knownValue<T>(output: pulumi.Output<T>): Promise<T | undefined> {
  return new Promise((resolve) => {
    const known = (output as unknown as { isKnown?: Promise<boolean> }).isKnown;
    void Promise.resolve(known ?? true).then((isKnown) => {
      if (!isKnown) resolve(undefined);
      else output.apply((value) => resolve(value));
    });
  });
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
  const fromArgs = await (
    pulumi.output(args) as unknown as { allResources?: () => Promise<Set<pulumi.Resource>> }
  ).allResources?.();
  const resources = [...new Set([...(fromArgs ?? []), ...dependsOnResources(opts)])];
  const named = await Promise.all(
    resources.map(async (resource): Promise<ObjectName | undefined> => {
      if (!pulumi.CustomResource.isInstance(resource)) return undefined;
      if ((await knownValue(resource.id)) !== undefined) return undefined;
      const object = resource as unknown as KubernetesObjectOutputs;
      if (!object.kind || !object.metadata) return undefined;
      const [kind, metadata] = await Promise.all([knownValue(object.kind), knownValue(object.metadata)]);
      if (!kind || !metadata?.name) return undefined;
      return { kind, namespace: metadata.namespace || namespace, name: metadata.name };
    }),
  );
  return named.filter((n): n is ObjectName => n !== undefined);
}
