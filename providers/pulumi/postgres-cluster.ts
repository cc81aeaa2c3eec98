import type * as pulumi from "@pulumi/pulumi";
import { POSTGRES_CLUSTER_MODULE } from "../../lib/kinds/postgres-cluster/module.js";
import type { PostgresClusterSpecInput } from "../../lib/kinds/postgres-cluster/schema.js";
import type { ClusterArgs, DeepInput } from "./component-inputs.js";
import { KindComponent } from "./kind-component.js";

export interface PostgresClusterArgs extends ClusterArgs {
  /** The desired state; parsed by the same schema as the custom resource. */
  readonly spec: DeepInput<PostgresClusterSpecInput>;
}

/** A capability the PostgresCluster relies on, as its output lists it. */
export interface CapabilityOutput {
  readonly name: string;
  readonly provenance: string;
  readonly chartVersion?: string;
}

/**
 * A shared PostgreSQL cluster (managed, adopted or external), deployed with provenance-aware capability
 * operators. `pulumi preview` prints every decision — per capability: install / upgrade / adopt / keep
 * with its evidence; per datastore: what will be created or deleted — before anything changes.
 */
export class PostgresCluster extends KindComponent {
  static readonly TYPE = "navique:index:PostgresCluster";

  /** Host consumers connect to (the read-write Service, the adopted one, or the external host). */
  declare readonly host: pulumi.Output<string>;
  declare readonly port: pulumi.Output<number>;
  /** The Secret, in the PostgresCluster's namespace, that holds username and password. */
  declare readonly credentialsSecret: pulumi.Output<{ name: string; namespace: string }>;
  declare readonly username: pulumi.Output<string>;
  /** The password, a secret in the Pulumi state. */
  declare readonly password: pulumi.Output<string>;
  /** owned, adopted or external. */
  declare readonly provenance: pulumi.Output<string>;
  declare readonly capabilities: pulumi.Output<readonly CapabilityOutput[]>;

  constructor(name: string, args: PostgresClusterArgs, opts: pulumi.ComponentResourceOptions = {}) {
    super(PostgresCluster.TYPE, POSTGRES_CLUSTER_MODULE, name, args, opts);
  }
}
