import * as pulumi from "@pulumi/pulumi";
import type { KindModule } from "../../lib/engine/kind-module.js";
import { POSTGRES_CLUSTER_MODULE } from "../../lib/kinds/postgres-cluster/module.js";
import type { PostgresClusterSpecInput } from "../../lib/kinds/postgres-cluster/schema.js";
import { type ClusterArgs, type DeepInput, dynamicInputs } from "./component-inputs.js";
import { KindResource } from "./kind-resource.js";
import { tellPulumiTheUsersPosition } from "./source-position.js";

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
export class PostgresCluster extends pulumi.ComponentResource {
  static readonly TYPE = "navique:index:PostgresCluster";

  /** Host consumers connect to (the read-write Service, the adopted one, or the external host). */
  readonly host: pulumi.Output<string>;
  readonly port: pulumi.Output<number>;
  /** The Secret, in the PostgresCluster's namespace, that holds username and password. */
  readonly credentialsSecret: pulumi.Output<{ name: string; namespace: string }>;
  readonly username: pulumi.Output<string>;
  /** The password, a secret in the Pulumi state. */
  readonly password: pulumi.Output<string>;
  /** owned, adopted or external. */
  readonly provenance: pulumi.Output<string>;
  readonly capabilities: pulumi.Output<readonly CapabilityOutput[]>;

  constructor(name: string, args: PostgresClusterArgs, opts: pulumi.ComponentResourceOptions = {}) {
    const restore = tellPulumiTheUsersPosition();
    try {
      super(PostgresCluster.TYPE, name, {}, opts);
    } finally {
      restore();
    }
    const module = POSTGRES_CLUSTER_MODULE as unknown as KindModule;
    const resource = new KindResource(module, name, dynamicInputs(this, module, name, args, args.spec, opts), {
      parent: this,
    });
    this.host = resource.output("host");
    this.port = resource.output("port");
    this.credentialsSecret = resource.output("credentialsSecret");
    this.username = resource.output("username");
    this.password = resource.output("password");
    this.provenance = resource.output("provenance");
    this.capabilities = resource.output("capabilities");
    this.registerOutputs({
      host: this.host,
      port: this.port,
      credentialsSecret: this.credentialsSecret,
      username: this.username,
      password: this.password,
      provenance: this.provenance,
      capabilities: this.capabilities,
    });
  }
}
