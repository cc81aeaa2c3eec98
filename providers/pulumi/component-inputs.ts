import { relative, resolve } from "node:path";
import { inspect } from "node:util";
import * as pulumi from "@pulumi/pulumi";
import { API_GROUP_VERSION } from "../../lib/api/group.js";
import { parseInput, ValidationError } from "../../lib/api/validation.js";
import { parseChartSource } from "../../lib/catalog/chart-source.js";
import { kubeconfigContent } from "../../lib/cluster/kubeconfig-location.js";
import type { KindModule } from "../../lib/engine/kind-module.js";
import { createdFirst } from "./created-first.js";
import { kubernetesProviderKubeconfig } from "./kubernetes-provider.js";
import { isProgramNamespace, programNamespace } from "./program-namespace.js";
import { resourceInputSchema } from "./resource-inputs.js";

/** Default time `pulumi up` waits for a resource to be Ready. */
export const DEFAULT_TIMEOUT_SECONDS = 600;

/**
 * A value the program may give as it is or as the output of another resource, at any depth: what
 * pulumi-kubernetes' generated input types accept, so that one component's outputs feed another's args.
 */
export type DeepInput<T> = pulumi.Input<
  T extends readonly (infer E)[] ? readonly DeepInput<E>[] : T extends object ? { [K in keyof T]: DeepInput<T[K]> } : T
>;

/** How every component of the product reaches its cluster. Each arg may be an output of another resource. */
export interface ClusterArgs {
  /**
   * Namespace of the resource: created when missing, and then deleted by `pulumi destroy` once nothing
   * is left in it (the state records that the component created it; a namespace it found is never deleted).
   */
  readonly namespace: pulumi.Input<string>;
  /** Name of the resource. @default the component's name */
  readonly name?: pulumi.Input<string>;
  /**
   * The target cluster's kubeconfig: its content, or the path of a file holding it (read when the program
   * runs). Kept as a secret in the state, never a path. @default the kubeconfig of the `provider` option
   * (a @pulumi/kubernetes Provider), else the stack's `kubernetes:kubeconfig`, else the ambient one found
   * when the provider runs: the first file of $KUBECONFIG, then ~/.kube/config
   */
  readonly kubeconfig?: pulumi.Input<string>;
  /**
   * Where capability charts come from: official, dir:PATH or oci://REGISTRY. A directory is recorded
   * relative to the project's directory. @default $NAVIQUE_CHART_SOURCE where the provider runs (not
   * recorded), else official
   */
  readonly chartSource?: pulumi.Input<string>;
  /** The helm v4 binary. @default `helm` on PATH, found when it runs */
  readonly helm?: pulumi.Input<string>;
  /** How long `pulumi up` waits for Ready. @default 600 */
  readonly timeoutSeconds?: pulumi.Input<number>;
}

/**
 * A program's mistake in a component's args, reported on the component: its message alone, once (a
 * ResourceError that hides its stack; Pulumi prints any other error thrown in an apply as a dump of
 * the error object).
 */
function refuse(component: pulumi.Resource, where: string, error: unknown): never {
  const message = error instanceof ValidationError ? error.message : `${where}: ${(error as Error).message ?? error}`;
  const refusal = new pulumi.ResourceError(message, component, true);
  // A value that arrived through an output fails the serialization of the child's inputs, and the SDK
  // prefixes the error's message with the property it was serializing (`error serializing property
  // "namespace": …`) before rethrowing the same error. The message already names every field: kept as it is.
  Object.defineProperty(refusal, "message", { get: () => message, set: () => undefined, enumerable: false });
  // The SDK's handler of an unhandled rejection records every error it sees with util.inspect, even one
  // it then prints as its message alone; inspected, a ResourceError walks its component and the resource
  // graph behind it: ~10 s of CPU per refused component, minutes for a program with several. Inspected,
  // the refusal is its message.
  Object.defineProperty(refusal, inspect.custom, { value: () => message, enumerable: false });
  throw refusal;
}

/** `parse(value)`, its failure a ResourceError on the component. */
function checked<T, R>(component: pulumi.Resource, where: string, parse: (value: T) => R): (value: T) => R {
  return (value) => {
    try {
      return parse(value);
    } catch (error) {
      refuse(component, where, error);
    }
  };
}

/** A chart source as the program gave it, once it is known to parse (undefined for the official one). */
function chartSourceText(value: string | undefined): string | undefined {
  if (!value) return undefined;
  parseChartSource(value);
  return value;
}

/**
 * The chart source as the state records it: a mirror directory relative to the project's directory
 * (where the program and the dynamic provider both run), so that the state names no path of the machine
 * (ADR 0019); a registry as given.
 */
function recordedChartSource(value: string | undefined): string | undefined {
  const text = chartSourceText(value);
  if (!text) return undefined;
  const source = parseChartSource(text);
  if (source.kind !== "directory") return text;
  return `dir:${relative(process.cwd(), resolve(source.path)) || "."}`;
}

/** Whether a value holds no output or promise at any depth: known now, without the engine. */
function isPlain(value: unknown): boolean {
  if (pulumi.Output.isInstance(value) || value instanceof Promise) return false;
  if (Array.isArray(value)) return value.every(isPlain);
  if (value !== null && typeof value === "object") return Object.values(value).every(isPlain);
  return true;
}

/**
 * Whether every value of an output is known in this run. A preview does not know the outputs of resources
 * still to be created; their consumers' decisions are then shown by `up`. The SDK says it only through
 * the output's `isKnown` (not in its typings).
 */
async function isKnown(output: pulumi.Output<unknown>): Promise<boolean> {
  const known = (output as unknown as { isKnown?: Promise<boolean> }).isKnown;
  return known === undefined ? true : await known;
}

/**
 * What a component hands its dynamic resource: the name and the spec parsed by the kind's schemas (a bad
 * one is a ResourceError on the component naming every field; a name too long for what is named after
 * it, too), the namespace checked, the kind, the cluster to reach and the waiting time. Each is parsed
 * when its value is known: at once for plain values; for another resource's output, when it resolves
 * (in a preview that does not know it yet, the provider's `check` parses it at `up`). During `pulumi
 * preview` it also prints, on the component, every decision the engine makes for the desired resource
 * (its members' too).
 */
export function dynamicInputs(
  component: pulumi.ComponentResource,
  module: KindModule,
  componentName: string,
  args: ClusterArgs,
  specInput: unknown,
  opts: pulumi.ComponentResourceOptions,
) {
  const { kind } = module.definition;
  const where = `${kind} ${componentName}`;
  let fromProvider: pulumi.Output<string | undefined> | undefined;
  try {
    fromProvider = kubernetesProviderKubeconfig(opts);
  } catch (error) {
    refuse(component, where, error);
  }
  // Any of them, and any field of the spec, may be an output of another resource: deeply unwrapped.
  // Plain values are parsed at once, so that the constructor itself throws.
  const inputs = { name: args.name ?? componentName, namespace: args.namespace, spec: specInput as object };
  const parse = checked(component, where, (value: unknown) => parseInput(resourceInputSchema(module), value, where));
  type Desired = ReturnType<typeof parse>;
  const parsedNow = isPlain(inputs) ? parse(inputs) : undefined;
  const desired: pulumi.Output<Desired> = (pulumi.output(inputs) as pulumi.Output<unknown>).apply(
    (resolved) => parsedNow ?? parse(resolved),
  );
  const name = desired.apply((d) => d.name);
  const namespace = desired.apply((d) => d.namespace);
  const spec = desired.apply((d) => d.spec as unknown);
  // The cluster as pulumi-kubernetes resolves it: its Provider, else the stack's kubernetes:kubeconfig.
  const given = args.kubeconfig ?? fromProvider ?? new pulumi.Config("kubernetes").get("kubeconfig");
  const kubeconfig =
    given === undefined
      ? undefined
      : pulumi.secret(
          pulumi
            .output(given)
            .apply(checked(component, where, (value) => (value === undefined ? undefined : kubeconfigContent(value)))),
        );
  // $NAVIQUE_CHART_SOURCE is read again by the provider where it runs, as the ambient kubeconfig is:
  // not recorded. The preview uses it here.
  const chartSource = pulumi.output(args.chartSource).apply(checked(component, where, recordedChartSource));
  const previewChartSource = pulumi
    .output(args.chartSource ?? process.env.NAVIQUE_CHART_SOURCE)
    .apply(checked(component, where, chartSourceText));
  const timeoutSeconds = pulumi.output(args.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS);
  // Recorded (only when true) for `pulumi destroy`, which runs no program: it deletes that namespace next.
  const namespaceResource = namespace.apply(async (ns) =>
    (await isProgramNamespace([args, specInput], opts, ns)) ? true : undefined,
  );
  if (pulumi.runtime.isDryRun()) {
    const cluster = pulumi.all([kubeconfig, args.helm, previewChartSource]);
    void (async () => {
      if (!(await isKnown(desired)) || !(await isKnown(cluster))) {
        await pulumi.log.info(
          `${where}: decisions shown by \`pulumi up\`: its args use outputs of resources not created yet`,
          component,
        );
        return;
      }
      pulumi.all([desired, cluster]).apply(async ([d, [k, helm, source]]) => {
        const metadata = { name: d.name, namespace: d.namespace };
        const resource = { apiVersion: API_GROUP_VERSION, kind, metadata, spec: d.spec };
        // In place as declared: nothing to say, and nothing of the preview's core to load. The GET that
        // says so, and the YAML parser that reads its kubeconfig, are loaded in a preview only.
        const { inPlace } = await import("./in-place.js");
        if (await inPlace(module, k, d)) return;
        const first = await createdFirst([args, specInput], opts, d.namespace);
        const declared = (await isProgramNamespace([args, specInput], opts, d.namespace))
          ? [programNamespace(d.namespace)]
          : [];
        // The core, to observe and plan: loaded in a preview only (an update's program run needs none of it).
        const { logPreview } = await import("./preview-log.js");
        await logPreview(component, { kubeconfig: k, helm, chartSource: source }, resource, first, declared);
      });
      // Bad args are reported on the component by the resource that uses them: nothing more to say here.
    })().catch(() => undefined);
  }
  return {
    kind,
    namespace,
    name,
    spec,
    ...(kubeconfig === undefined ? {} : { kubeconfig }),
    ...(args.helm === undefined ? {} : { helm: args.helm }),
    chartSource,
    timeoutSeconds,
    namespaceResource,
  };
}
