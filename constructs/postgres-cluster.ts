import type { Construct } from "constructs";
import type { ReferenceTree } from "../lib/api/reference-fields.js";
import { POSTGRES_CLUSTER_MODULE } from "../lib/kinds/postgres-cluster/module.js";
import type {
  POSTGRES_CLUSTER_KIND,
  PostgresClusterSpec,
  PostgresClusterSpecInput,
} from "../lib/kinds/postgres-cluster/schema.js";
import { NaviqueResource, type NaviqueResourceProps } from "./navique-resource.js";
import type { WithReferences } from "./references.js";

export interface PostgresClusterProps extends NaviqueResourceProps {
  /**
   * The desired state; parsed by the same schema as the custom resource and the Pulumi component. Where
   * it names a Secret or a CNPG Cluster, a construct of that kind may stand instead.
   */
  readonly spec: WithReferences<PostgresClusterSpecInput, ReferenceTree<typeof PostgresClusterSpec>>;
}

/**
 * A PostgresCluster custom resource for GitOps (name: at most 50 characters, a DNS-1035 label): validated
 * at synth time, synthesized as YAML that the operator reconciles in the cluster.
 */
export class PostgresCluster extends NaviqueResource<typeof POSTGRES_CLUSTER_KIND> {
  constructor(scope: Construct, id: string, props: PostgresClusterProps) {
    super(scope, id, POSTGRES_CLUSTER_MODULE, props);
  }
}
