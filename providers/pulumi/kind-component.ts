import * as pulumi from "@pulumi/pulumi";
import { moduleOf } from "../../lib/engine/context.js";
import { outputNames } from "../../lib/engine/outputs.js";
import { REGISTRY } from "../../lib/kinds/registry.js";
import { type ClusterArgs, dynamicInputs } from "./component-inputs.js";
import { KindResource } from "./kind-resource.js";
import { tellPulumiTheUsersPosition } from "./source-position.js";

/** The type token of a kind's component: `navique:index:<Kind>`. */
export const componentType = (kind: string) => `navique:index:${kind}`;

/**
 * The Pulumi component of any registered kind, made from its module in the registry: the kind's dynamic
 * resource (one runtime for every kind) under it, and each output the module declares
 * (`module.outputs.schema`) set on the component under the same name and registered. Each kind's class
 * (./kinds.ts) is generated from the registry: it names the kind, its args' spec type and its outputs'
 * types and docs, all read from the module, and passes the rest here.
 */
export abstract class KindComponent extends pulumi.ComponentResource {
  protected constructor(
    kind: string,
    name: string,
    args: ClusterArgs & { readonly spec?: unknown },
    opts: pulumi.ComponentResourceOptions,
  ) {
    const restore = tellPulumiTheUsersPosition();
    try {
      super(componentType(kind), name, {}, opts);
    } finally {
      restore();
    }
    const module = moduleOf({ registry: REGISTRY.kinds }, kind);
    const inputs = dynamicInputs(this, module, name, args, args.spec ?? {}, opts);
    const resource = new KindResource(module, name, inputs, { parent: this });
    const outputs = Object.fromEntries(
      outputNames(module.outputs).map(({ name: output }) => [output, resource.output(output)]),
    );
    Object.assign(this, outputs);
    this.registerOutputs(outputs);
  }
}
