import type * as pulumi from "@pulumi/pulumi";
import { REDIS_INSTANCE_MODULE } from "../../lib/kinds/redis-instance/module.js";
import type { RedisInstanceSpecInput } from "../../lib/kinds/redis-instance/schema.js";
import type { ClusterArgs, DeepInput } from "./component-inputs.js";
import { KindComponent } from "./kind-component.js";

export interface RedisInstanceArgs extends ClusterArgs {
  /** The desired state; parsed by the same schema as the custom resource. @default a managed standalone Redis */
  readonly spec?: DeepInput<RedisInstanceSpecInput>;
}

/** A Redis (managed, adopted or external) for the platform; `pulumi preview` prints every decision first. */
export class RedisInstance extends KindComponent {
  static readonly TYPE = "navique:index:RedisInstance";

  declare readonly host: pulumi.Output<string>;
  declare readonly port: pulumi.Output<number>;
  /** The Secret, in the RedisInstance's namespace, that holds the password (key `password`). */
  declare readonly credentialsSecret: pulumi.Output<{ name: string; namespace: string }>;
  /** The password, a secret in the Pulumi state. */
  declare readonly password: pulumi.Output<string>;
  /** owned, adopted or external. */
  declare readonly provenance: pulumi.Output<string>;

  constructor(name: string, args: RedisInstanceArgs, opts: pulumi.ComponentResourceOptions = {}) {
    super(RedisInstance.TYPE, REDIS_INSTANCE_MODULE, name, args, opts);
  }
}
