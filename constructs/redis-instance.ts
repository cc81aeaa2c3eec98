import type { Construct } from "constructs";
import type { ReferenceTree } from "../lib/api/reference-fields.js";
import { REDIS_INSTANCE_MODULE } from "../lib/kinds/redis-instance/module.js";
import type {
  REDIS_INSTANCE_KIND,
  RedisInstanceSpec,
  RedisInstanceSpecInput,
} from "../lib/kinds/redis-instance/schema.js";
import { NaviqueResource, type NaviqueResourceProps } from "./navique-resource.js";
import type { WithReferences } from "./references.js";

export interface RedisInstanceProps extends NaviqueResourceProps {
  /**
   * The desired state; parsed by the same schema as the custom resource and the Pulumi component. Where
   * it names a Secret or a redis-operator Redis, a construct of that kind may stand instead.
   * @default a managed standalone Redis
   */
  readonly spec?: WithReferences<RedisInstanceSpecInput, ReferenceTree<typeof RedisInstanceSpec>>;
}

/** A RedisInstance custom resource for GitOps (name: at most 52 characters, a DNS-1035 label). */
export class RedisInstance extends NaviqueResource<typeof REDIS_INSTANCE_KIND> {
  constructor(scope: Construct, id: string, props: RedisInstanceProps = {}) {
    super(scope, id, REDIS_INSTANCE_MODULE, { ...props, spec: props.spec ?? {} });
  }
}
