import * as pulumi from "@pulumi/pulumi";
import type { KindModule } from "../../lib/engine/kind-module.js";
import { type ClusterArgs, dynamicInputs } from "./component-inputs.js";
import { KindResource } from "./kind-resource.js";
import { tellPulumiTheUsersPosition } from "./source-position.js";

/**
 * The Pulumi component of any registered kind, made from its module: the kind's dynamic resource (one
 * runtime for every kind) under it, and each output its module declares (`module.outputs.names`) set on
 * the component under the same name and registered. A kind's component only names its type token and
 * module, and declares its outputs' types and documentation (`declare readonly …`), which this sets.
 */
export abstract class KindComponent extends pulumi.ComponentResource {
  protected constructor(
    type: string,
    module: KindModule,
    name: string,
    args: ClusterArgs & { readonly spec?: unknown },
    opts: pulumi.ComponentResourceOptions,
  ) {
    const restore = tellPulumiTheUsersPosition();
    try {
      super(type, name, {}, opts);
    } finally {
      restore();
    }
    const inputs = dynamicInputs(this, module, name, args, args.spec ?? {}, opts);
    const resource = new KindResource(module, name, inputs, { parent: this });
    const outputs = Object.fromEntries(
      Object.keys(module.outputs.names).map((output) => [output, resource.output(output)]),
    );
    Object.assign(this, outputs);
    this.registerOutputs(outputs);
  }
}
