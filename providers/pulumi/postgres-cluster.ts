import * as pulumi from "@pulumi/pulumi";
import { API_GROUP, API_VERSION } from "../../lib/api/group.js";
import {
  POSTGRES_CLUSTER_KIND,
  PostgresCluster as PostgresClusterResource,
  PostgresClusterSpec,
  type PostgresClusterSpecInput,
} from "../../lib/api/postgres-cluster.js";
import { parseInput, ValidationError } from "../../lib/api/validation.js";
import { toolchainPaths } from "../../lib/local-plane/toolchain-paths.js";
import { previewDesired } from "../../lib/reconcile/preview.js";
import { defaultKubeconfig, logPreview } from "./preview-log.js";
import type { PostgresClusterOutputs } from "./runtime.js";
import { runtimeProvider } from "./runtime-provider.js";

/** Default time `pulumi up` waits for a PostgresCluster to be Ready. */
export const DEFAULT_TIMEOUT_SECONDS = 600;

export interface PostgresClusterArgs {
  /** Namespace of the PostgresCluster. */
  readonly namespace: string;
  /** Name of the PostgresCluster. @default the component's name */
  readonly name?: string;
  /** The desired state; parsed by the same schema as the custom resource. */
  readonly spec: PostgresClusterSpecInput;
  /** Kubeconfig of the target cluster. @default $KUBECONFIG, then ~/.kube/config */
  readonly kubeconfig?: string;
  /** Where capability charts come from: official, dir:PATH or oci://REGISTRY. @default official */
  readonly chartSource?: string;
  /** The helm v4 binary. @default the one built by this project's toolchain */
  readonly helm?: string;
  /** How long `pulumi up` waits for Ready. @default 600 */
  readonly timeoutSeconds?: number;
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
    const resourceName = args.name ?? name;
    let spec: PostgresClusterSpecInput;
    try {
      spec = parseInput(PostgresClusterSpec, args.spec, `PostgresCluster ${name}`, "spec");
    } catch (error) {
      if (error instanceof ValidationError) throw new pulumi.ResourceError(error.message, this);
      throw error;
    }
    const kubeconfig = args.kubeconfig ?? defaultKubeconfig();
    const helm = pulumi.output(args.helm ?? toolchainPaths().then((paths) => paths.helm));
    const inputs = {
      namespace: args.namespace,
      name: resourceName,
      spec,
      kubeconfig,
      helm,
      ...(args.chartSource ? { chartSource: args.chartSource } : {}),
      timeoutSeconds: args.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS,
    };
    if (pulumi.runtime.isDryRun()) {
      const desired = {
        apiVersion: `${API_GROUP}/${API_VERSION}`,
        kind: POSTGRES_CLUSTER_KIND,
        metadata: { name: resourceName, namespace: args.namespace },
        spec,
      };
      void helm.apply((binary) =>
        logPreview(this, { kubeconfig, helm: binary, chartSource: args.chartSource }, (context) =>
          previewDesired(context, PostgresClusterResource.parse(desired)),
        ),
      );
    }
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
