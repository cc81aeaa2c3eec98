import * as pulumi from "@pulumi/pulumi";
import { API_GROUP_VERSION } from "../../lib/api/group.js";
import { STACK_KIND, Stack as StackResource, StackSpec, type StackSpecInput } from "../../lib/api/stack.js";
import { parseInput, ValidationError } from "../../lib/api/validation.js";
import { toolchainPaths } from "../../lib/local-plane/toolchain-paths.js";
import { previewDesiredStack } from "../../lib/reconcile/preview.js";
import { DEFAULT_TIMEOUT_SECONDS } from "./postgres-cluster.js";
import { defaultKubeconfig, logPreview } from "./preview-log.js";
import { runtimeProvider } from "./runtime-provider.js";
import type { StackOutputs } from "./stack-runtime.js";

export interface StackArgs {
  /** Namespace of the Stack and its members. */
  readonly namespace: string;
  /** Name of the Stack (at most 40 characters). @default the component's name */
  readonly name?: string;
  /** The desired state; parsed by the same schema as the custom resource. @default the curated bundle */
  readonly spec?: StackSpecInput;
  /** Kubeconfig of the target cluster. @default $KUBECONFIG, then ~/.kube/config */
  readonly kubeconfig?: string;
  /** Where capability charts come from: official, dir:PATH or oci://REGISTRY. @default official */
  readonly chartSource?: string;
  /** The helm v4 binary. @default the one built by this project's toolchain */
  readonly helm?: string;
  /** How long `pulumi up` waits for every member to be Ready. @default 600 */
  readonly timeoutSeconds?: number;
}

class StackDynamic extends pulumi.dynamic.Resource {
  declare readonly members: pulumi.Output<StackOutputs["members"]>;
  declare readonly postgres: pulumi.Output<StackOutputs["postgres"]>;

  constructor(name: string, inputs: Record<string, unknown>, opts: pulumi.CustomResourceOptions) {
    super(
      runtimeProvider(new URL("./stack-runtime.js", import.meta.url).href),
      name,
      { ...inputs, members: undefined, postgres: undefined },
      opts,
      "navique",
      "Stack",
    );
  }
}

/**
 * A curated bundle of the platform's parts (licensed feature `stack`): the Stack custom resource and
 * the members it owns, reconciled by the same core as the operator. `pulumi preview` prints the
 * licence's word first — a Stack the licence does not cover is reported, with how to get it, before
 * anything is created — then each member's decisions.
 */
export class Stack extends pulumi.ComponentResource {
  static readonly TYPE = "navique:index:Stack";

  /** The resources the Stack created and keeps in step, e.g. its PostgresCluster `<name>-postgres`. */
  readonly members: pulumi.Output<StackOutputs["members"]>;
  /** Where consumers connect to the Stack's PostgreSQL: host, port and the Secret holding the credentials. */
  readonly postgres: pulumi.Output<StackOutputs["postgres"]>;

  constructor(name: string, args: StackArgs, opts: pulumi.ComponentResourceOptions = {}) {
    super(Stack.TYPE, name, {}, opts);
    const resourceName = args.name ?? name;
    let spec: StackSpecInput;
    try {
      spec = parseInput(StackSpec, args.spec ?? {}, `Stack ${name}`, "spec");
    } catch (error) {
      if (error instanceof ValidationError) throw new pulumi.ResourceError(error.message, this);
      throw error;
    }
    const kubeconfig = args.kubeconfig ?? defaultKubeconfig();
    const helm = pulumi.output(args.helm ?? toolchainPaths().then((paths) => paths.helm));
    const inputs = {
      namespace: args.namespace,
      name: resourceName,
      spec,
      kubeconfig,
      helm,
      ...(args.chartSource ? { chartSource: args.chartSource } : {}),
      timeoutSeconds: args.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS,
    };
    if (pulumi.runtime.isDryRun()) {
      const desired = {
        apiVersion: API_GROUP_VERSION,
        kind: STACK_KIND,
        metadata: { name: resourceName, namespace: args.namespace },
        spec,
      };
      void helm.apply((binary) =>
        logPreview(this, { kubeconfig, helm: binary, chartSource: args.chartSource }, (context) =>
          previewDesiredStack(context, StackResource.parse(desired)),
        ),
      );
    }
    const resource = new StackDynamic(name, inputs, { parent: this });
    this.members = resource.members;
    this.postgres = resource.postgres;
    this.registerOutputs({ members: this.members, postgres: this.postgres });
  }
}
