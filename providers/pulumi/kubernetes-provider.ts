import * as pulumi from "@pulumi/pulumi";
import {
  ambientKubeconfigPath,
  isKubeconfigContent,
  kubeconfigContent,
} from "../../lib/cluster/kubeconfig-location.js";

/**
 * What a @pulumi/kubernetes Provider was given: the SDK keeps every input of a resource as an output of
 * the same name on the object (a provider's outputs are its inputs), so `kubeconfig`, `context` and
 * `cluster` can be read back from it.
 */
interface KubernetesProviderInputs {
  readonly kubeconfig?: pulumi.Output<string | undefined>;
  readonly context?: pulumi.Output<string | undefined>;
  readonly cluster?: pulumi.Output<string | undefined>;
}

const KUBERNETES_PACKAGE = "kubernetes";

function packageOf(provider: pulumi.ProviderResource): string | undefined {
  // Public since the SDK's first ProviderResource, though not in its typings.
  return (provider as unknown as { getPackage?: () => string }).getPackage?.();
}

/** The provider a component was given for the Kubernetes package: `provider`, or `providers` (array or map). */
function kubernetesProviderOf(opts: pulumi.ComponentResourceOptions): pulumi.ProviderResource | undefined {
  const listed = Array.isArray(opts.providers) ? opts.providers : Object.values(opts.providers ?? {});
  const candidates = [...(opts.provider ? [opts.provider] : []), ...listed];
  const kubernetes = candidates.find((p) => packageOf(p) === KUBERNETES_PACKAGE);
  if (!kubernetes && opts.provider) {
    throw new Error(
      `the provider option is a provider of package ${packageOf(opts.provider) ?? "unknown"}; the product reaches its cluster through a @pulumi/kubernetes Provider (package kubernetes) or the kubeconfig argument`,
    );
  }
  return kubernetes;
}

/**
 * A Provider input as the engine gave it back, unknowns kept: its value; undefined when the program did
 * not give it; the unknown value when it is an output of a resource not created yet. The output's own
 * "known" says less: in a preview the SDK reports an input the program did not give (absent from what
 * the engine returns) as not known. `promise(true)` is the SDK's reader of an output's value with its
 * unknowns (internal, as old as the SDK's Output).
 */
async function givenValue(input: pulumi.Output<string | undefined> | undefined): Promise<unknown> {
  if (!input) return undefined;
  return (input as unknown as { promise(withUnknowns: boolean): Promise<unknown> }).promise(true);
}

/**
 * The kubeconfig content a component's @pulumi/kubernetes Provider reaches its cluster with — its
 * `kubeconfig` (content or path; the Provider itself falls back to $KUBECONFIG), else the ambient
 * kubeconfig when it chooses a `context` or `cluster` in it — with that context and cluster made
 * current. Undefined when the component was given no such Provider; an output resolving to undefined
 * when the Provider chooses nothing: the ambient kubeconfig then, as the Provider does. Not known while
 * one of the inputs it was given is not.
 */
export function kubernetesProviderKubeconfig(
  opts: pulumi.ComponentResourceOptions,
): pulumi.Output<string | undefined> | undefined {
  const provider = kubernetesProviderOf(opts);
  if (!provider) return undefined;
  const given = provider as unknown as KubernetesProviderInputs;
  const inputs = [given.kubeconfig, given.context, given.cluster];
  const chosen = async (): Promise<string | undefined | pulumi.Output<string | undefined>> => {
    const values = await Promise.all(inputs.map(givenValue));
    const unknown = values.findIndex((value) => pulumi.containsUnknowns(value));
    // Returned, the unknown input makes the result unknown too.
    if (unknown >= 0) return inputs[unknown] as pulumi.Output<string | undefined>;
    const [kubeconfig, context, cluster] = values as (string | undefined)[];
    if (!kubeconfig && !context && !cluster) return undefined;
    // Unset, the Provider takes $KUBECONFIG as it is, a list of files perhaps: the first one is read.
    const path =
      kubeconfig && !isKubeconfigContent(kubeconfig) ? ambientKubeconfigPath({ KUBECONFIG: kubeconfig }) : undefined;
    const content = kubeconfigContent(path ?? (kubeconfig || ambientKubeconfigPath()));
    if (!context && !cluster) return content;
    // The Kubernetes client parses it: loaded only for a Provider that chooses a context or cluster.
    const { choosingContext } = await import("../../lib/cluster/kubeconfig-source.js");
    return choosingContext(content, { context: context || undefined, cluster: cluster || undefined });
  };
  // Through the Provider's URN (known in a preview too): the result depends on the Provider, as its
  // outputs would. apply lifts a promise of an output as it lifts an output, which its typings leave out.
  return provider.urn.apply(chosen as () => Promise<string | undefined>);
}
