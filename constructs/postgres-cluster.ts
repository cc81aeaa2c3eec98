import { ApiObject } from "cdk8s";
import { Construct } from "constructs";
import { API_GROUP_VERSION } from "../lib/api/group.js";
import {
  POSTGRES_CLUSTER_KIND,
  PostgresClusterSpec,
  type PostgresClusterSpecInput,
  postgresClusterName,
} from "../lib/api/postgres-cluster.js";
import { namespaceName } from "../lib/api/refs.js";
import { parseInput } from "../lib/api/validation.js";
import { enforceCap } from "../lib/licence/enforce.js";
import { type DeclaresPostgresClusters, declaredPostgresClusterInstances } from "./declared-instances.js";
import { NaviqueLicense } from "./navique-license.js";

export interface PostgresClusterProps {
  /** The desired state; parsed by the same schema as the custom resource and the Pulumi component. */
  readonly spec: PostgresClusterSpecInput;
  /** Name of the PostgresCluster (at most 50 characters, a DNS-1035 label). @default the construct's id */
  readonly name?: string;
  /** Namespace of the PostgresCluster. @default the namespace of the chart, else none (kubectl's) */
  readonly namespace?: string;
  readonly labels?: Readonly<Record<string, string>>;
}

/**
 * A PostgresCluster custom resource for GitOps: validated at synth time (every problem named with the
 * construct path and the field), synthesized as YAML that the operator reconciles in the cluster.
 */
export class PostgresCluster extends Construct implements DeclaresPostgresClusters {
  readonly apiObject: ApiObject;
  readonly name: string;
  readonly namespace: string | undefined;

  constructor(scope: Construct, id: string, props: PostgresClusterProps) {
    super(scope, id);
    const where = `PostgresCluster at ${this.node.path}`;
    this.name = parseInput(postgresClusterName, props.name ?? id, where, "name");
    const namespace =
      props.namespace === undefined ? undefined : parseInput(namespaceName, props.namespace, where, "namespace");
    const spec = parseInput(PostgresClusterSpec, props.spec, where, "spec");
    this.apiObject = new ApiObject(this, "Resource", {
      apiVersion: API_GROUP_VERSION,
      kind: POSTGRES_CLUSTER_KIND,
      metadata: {
        name: this.name,
        ...(namespace ? { namespace } : {}),
        ...(props.labels ? { labels: { ...props.labels } } : {}),
      },
      // The parsed spec: the schema's defaults are written out, so the YAML says exactly what runs.
      spec,
    });
    this.namespace = namespace;
    // Synth-time licence check: the app's PostgresClusters (a Stack's member included) against its
    // licence (or Community), in declaration order. The operator still decides in the cluster, where
    // older instances may exist.
    this.node.addValidation({ validate: () => this.licenceProblems() });
  }

  declaredPostgresClusters() {
    return [{ namespace: this.namespace ?? "default", name: this.name }];
  }

  private licenceProblems(): string[] {
    const instances = declaredPostgresClusterInstances(this);
    const self = instances.find((i) => i.namespace === (this.namespace ?? "default") && i.name === this.name);
    if (!self) return [];
    const decision = enforceCap(NaviqueLicense.entitlementsOf(this), "PostgresCluster", instances, self);
    return decision.allowed ? [] : [`PostgresCluster at ${this.node.path}: ${decision.message}`];
  }
}
