import * as pulumi from "@pulumi/pulumi";
import type { KindModule } from "../../lib/engine/kind-module.js";
import { REDIS_INSTANCE_MODULE } from "../../lib/kinds/redis-instance/module.js";
import type { RedisInstanceSpecInput } from "../../lib/kinds/redis-instance/schema.js";
import { type ClusterArgs, type DeepInput, dynamicInputs } from "./component-inputs.js";
import { KindResource } from "./kind-resource.js";
import { tellPulumiTheUsersPosition } from "./source-position.js";

export interface RedisInstanceArgs extends ClusterArgs {
  /** The desired state; parsed by the same schema as the custom resource. @default a managed standalone Redis */
  readonly spec?: DeepInput<RedisInstanceSpecInput>;
}

/** A Redis (managed, adopted or external) for the platform; `pulumi preview` prints every decision first. */
export class RedisInstance extends pulumi.ComponentResource {
  static readonly TYPE = "navique:index:RedisInstance";

  readonly host: pulumi.Output<string>;
  readonly port: pulumi.Output<number>;
  /** The Secret, in the RedisInstance's namespace, that holds the password (key `password`). */
  readonly credentialsSecret: pulumi.Output<{ name: string; namespace: string }>;
  /** The password, a secret in the Pulumi state. */
  readonly password: pulumi.Output<string>;
  /** owned, adopted or external. */
  readonly provenance: pulumi.Output<string>;

  constructor(name: string, args: RedisInstanceArgs, opts: pulumi.ComponentResourceOptions = {}) {
    const restore = tellPulumiTheUsersPosition();
    try {
      super(RedisInstance.TYPE, name, {}, opts);
    } finally {
      restore();
    }
    const module = REDIS_INSTANCE_MODULE as unknown as KindModule;
    const inputs = dynamicInputs(this, module, name, args, args.spec ?? {}, opts);
    const resource = new KindResource(module, name, inputs, { parent: this });
    this.host = resource.output("host");
    this.port = resource.output("port");
    this.credentialsSecret = resource.output("credentialsSecret");
    this.password = resource.output("password");
    this.provenance = resource.output("provenance");
    this.registerOutputs({
      host: this.host,
      port: this.port,
      credentialsSecret: this.credentialsSecret,
      password: this.password,
      provenance: this.provenance,
    });
  }
}
