import type { Construct } from "constructs";
import type { ReferenceTree } from "../lib/api/reference-fields.js";
import { GATEWAY_MODULE } from "../lib/kinds/gateway/module.js";
import type { GATEWAY_KIND, GatewaySpec, GatewaySpecInput } from "../lib/kinds/gateway/schema.js";
import { NaviqueResource, type NaviqueResourceProps } from "./navique-resource.js";
import type { WithReferences } from "./references.js";

export interface GatewayProps extends NaviqueResourceProps {
  /**
   * The desired state; parsed by the same schema as the custom resource and the Pulumi component. Where
   * it names a Secret or a PostgresCluster, a construct of that kind may stand instead.
   */
  readonly spec: WithReferences<GatewaySpecInput, ReferenceTree<typeof GatewaySpec>>;
}

/** A Gateway custom resource for GitOps: an LLM gateway (LiteLLM) (name: at most 63 characters, a DNS-1035 label). */
export class Gateway extends NaviqueResource<typeof GATEWAY_KIND> {
  constructor(scope: Construct, id: string, props: GatewayProps) {
    super(scope, id, GATEWAY_MODULE, props);
  }
}
