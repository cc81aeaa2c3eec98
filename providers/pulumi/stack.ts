import * as pulumi from "@pulumi/pulumi";
import { STACK_KIND, Stack as StackResource, StackSpec, type StackSpecInput, stackName } from "../../lib/api/stack.js";
import { previewDesiredStack } from "../../lib/reconcile/preview.js";
import { type ClusterArgs, dynamicInputs } from "./component-inputs.js";
import { runtimeProvider } from "./runtime-provider.js";
import type { StackOutputs } from "./stack-runtime.js";

export interface StackArgs extends ClusterArgs {
  /** The desired state; parsed by the same schema as the custom resource. @default the curated bundle */
  readonly spec?: StackSpecInput;
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
    const inputs = dynamicInputs(
      this,
      { name: STACK_KIND, spec: StackSpec, stored: StackResource, resourceName: stackName },
      name,
      args,
      args.spec ?? {},
      previewDesiredStack,
    );
    const resource = new StackDynamic(name, inputs, { parent: this });
    this.members = resource.members;
    this.postgres = resource.postgres;
    this.registerOutputs({ members: this.members, postgres: this.postgres });
  }
}
