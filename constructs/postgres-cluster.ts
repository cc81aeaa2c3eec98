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
import { postgresReferences, postgresReferrer } from "../lib/plan/postgres-cluster.js";
import { grantsToCreate, REFERENCE_NOT_PERMITTED, ungrantedReferences } from "../lib/plan/reference-grants.js";
import { type DeclaresPostgresClusters, declaredPostgresClusterInstances } from "./declared-instances.js";
import { NaviqueLicense } from "./navique-license.js";
import { ReferenceGrant } from "./reference-grant.js";

export interface PostgresClusterProps {
  /** The desired state; parsed by the same schema as the custom resource and the Pulumi component. */
  readonly spec: PostgresClusterSpecInput;
  /** Name of the PostgresCluster (at most 50 characters, a DNS-1035 label). @default the construct's id */
  readonly name?: string;
  /** Namespace of the PostgresCluster. @default the namespace of the chart, else none (kubectl's) */
  readonly namespace?: string;
  readonly labels?: Readonly<Record<string, string>>;
  /**
   * Whether the ReferenceGrants its references into other namespaces need already exist in the cluster
   * (made by those namespaces' owners), so that synth does not look for them among the app's ReferenceGrant
   * constructs. The operator still checks the cluster's grants and refuses without them.
   * @default false: every reference into another namespace must be granted by a ReferenceGrant of this app
   */
  readonly grantedInCluster?: boolean;
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
    const references = postgresReferences(namespace ?? "default", spec);
    if (!props.grantedInCluster) this.node.addValidation({ validate: () => this.grantProblems(references) });
  }

  declaredPostgresClusters() {
    return [{ namespace: this.namespace ?? "default", name: this.name }];
  }

  /**
   * Synth-time grant check: cdk8s cannot see the cluster, so the references into other namespaces must be
   * granted by the app's own ReferenceGrant constructs, by the same decision the operator makes.
   */
  private grantProblems(references: ReturnType<typeof postgresReferences>): string[] {
    const referrer = postgresReferrer(this.namespace ?? "default");
    const ungranted = ungrantedReferences(referrer, references, ReferenceGrant.declaredIn(this));
    if (ungranted.length === 0) return [];
    const fields = ungranted.map((r) => `${r.field} (namespace ${r.namespace})`).join(" and ");
    return [
      `PostgresCluster at ${this.node.path}: ${fields} ${ungranted.length > 1 ? "point" : "points"} into another namespace, and no ReferenceGrant of this app grants it: the operator would refuse it (${REFERENCE_NOT_PERMITTED}). Declare ${grantsToCreate(referrer, ungranted).join("; and ")}, with the ReferenceGrant construct; or, when that grant already exists in the cluster, set grantedInCluster: true on this PostgresCluster`,
    ];
  }

  private licenceProblems(): string[] {
    const instances = declaredPostgresClusterInstances(this);
    const self = instances.find((i) => i.namespace === (this.namespace ?? "default") && i.name === this.name);
    if (!self) return [];
    const decision = enforceCap(NaviqueLicense.entitlementsOf(this), "PostgresCluster", instances, self);
    return decision.allowed ? [] : [`PostgresCluster at ${this.node.path}: ${decision.message}`];
  }
}
