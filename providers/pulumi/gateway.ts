import type * as pulumi from "@pulumi/pulumi";
import { GATEWAY_MODULE } from "../../lib/kinds/gateway/module.js";
import type { GatewaySpecInput } from "../../lib/kinds/gateway/schema.js";
import type { ClusterArgs, DeepInput } from "./component-inputs.js";
import { KindComponent } from "./kind-component.js";

export interface GatewayArgs extends ClusterArgs {
  /** The desired state; parsed by the same schema as the custom resource. */
  readonly spec: DeepInput<GatewaySpecInput>;
}

/** An LLM gateway (LiteLLM, run by the LiteLLM operator); `pulumi preview` prints every decision first. */
export class Gateway extends KindComponent {
  static readonly TYPE = "navique:index:Gateway";

  /** Where clients reach the gateway: `http://<host>:4000`. */
  declare readonly url: pulumi.Output<string>;
  declare readonly host: pulumi.Output<string>;
  declare readonly port: pulumi.Output<number>;
  /** The Secret, in the Gateway's namespace, that holds the master key (keys `master-key` and `password`). */
  declare readonly credentialsSecret: pulumi.Output<{ name: string; namespace: string }>;
  /** The master key, a secret in the Pulumi state. */
  declare readonly masterKey: pulumi.Output<string>;

  constructor(name: string, args: GatewayArgs, opts: pulumi.ComponentResourceOptions = {}) {
    super(Gateway.TYPE, GATEWAY_MODULE, name, args, opts);
  }
}
