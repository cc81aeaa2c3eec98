import * as pulumi from "@pulumi/pulumi";
import {
  POSTGRES_CLUSTER_KIND,
  PostgresCluster as PostgresClusterResource,
  PostgresClusterSpec,
  type PostgresClusterSpecInput,
  postgresClusterName,
} from "../../lib/api/postgres-cluster.js";
import { previewDesired } from "../../lib/reconcile/preview.js";
import { type ClusterArgs, dynamicInputs } from "./component-inputs.js";
import type { PostgresClusterOutputs } from "./runtime.js";
import { runtimeProvider } from "./runtime-provider.js";

export interface PostgresClusterArgs extends ClusterArgs {
  /** The desired state; parsed by the same schema as the custom resource. */
  readonly spec: PostgresClusterSpecInput;
}

class PostgresClusterDynamic extends pulumi.dynamic.Resource {
  declare readonly host: pulumi.Output<string>;
  declare readonly port: pulumi.Output<number>;
  declare readonly credentialsSecret: pulumi.Output<{ name: string; namespace: string }>;
  declare readonly username: pulumi.Output<string>;
  declare readonly password: pulumi.Output<string>;
  declare readonly provenance: pulumi.Output<string>;
  declare readonly capabilities: pulumi.Output<PostgresClusterOutputs["capabilities"]>;

  constructor(name: string, inputs: Record<string, unknown>, opts: pulumi.CustomResourceOptions) {
    const outputs = {
      host: undefined,
      port: undefined,
      credentialsSecret: undefined,
      username: undefined,
      password: undefined,
      provenance: undefined,
      capabilities: undefined,
    };
    super(
      runtimeProvider(new URL("./runtime.js", import.meta.url).href),
      name,
      { ...inputs, ...outputs },
      { ...opts, additionalSecretOutputs: ["password"] },
      "navique",
      "PostgresCluster",
    );
  }
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
  readonly capabilities: pulumi.Output<PostgresClusterOutputs["capabilities"]>;

  constructor(name: string, args: PostgresClusterArgs, opts: pulumi.ComponentResourceOptions = {}) {
    super(PostgresCluster.TYPE, name, {}, opts);
    const inputs = dynamicInputs(
      this,
      {
        name: POSTGRES_CLUSTER_KIND,
        spec: PostgresClusterSpec,
        stored: PostgresClusterResource,
        resourceName: postgresClusterName,
      },
      name,
      args,
      args.spec,
      previewDesired,
    );
    const resource = new PostgresClusterDynamic(name, inputs, { parent: this });
    this.host = resource.host;
    this.port = resource.port;
    this.credentialsSecret = resource.credentialsSecret;
    this.username = resource.username;
    this.password = resource.password;
    this.provenance = resource.provenance;
    this.capabilities = resource.capabilities;
    this.registerOutputs({
      host: this.host,
      port: this.port,
      credentialsSecret: this.credentialsSecret,
      provenance: this.provenance,
    });
  }
}
