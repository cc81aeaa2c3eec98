import { ApiObject } from "cdk8s";
import { Construct } from "constructs";
import { API_GROUP_VERSION } from "../lib/api/group.js";
import { namespaceName } from "../lib/api/refs.js";
import { STACK_FEATURE, STACK_KIND, StackSpec, type StackSpecInput, stackName } from "../lib/api/stack.js";
import { parseInput } from "../lib/api/validation.js";
import { enforceCap, enforceFeature } from "../lib/licence/enforce.js";
import { postgresMemberName } from "../lib/plan/stack.js";
import { type DeclaresPostgresClusters, declaredPostgresClusterInstances } from "./declared-instances.js";
import { NaviqueLicense } from "./navique-license.js";

export interface StackProps {
  /** The desired state; parsed by the same schema as the custom resource and the Pulumi component. */
  readonly spec?: StackSpecInput;
  /** Name of the Stack (at most 41 characters, a DNS-1035 label: see MAX_STACK_NAME). @default the construct's id */
  readonly name?: string;
  /** Namespace of the Stack. @default none (kubectl's) */
  readonly namespace?: string;
  readonly labels?: Readonly<Record<string, string>>;
}

/**
 * A Stack custom resource for GitOps: a curated bundle (licensed feature `stack`) whose members the
 * operator creates and keeps in step in the cluster. Synth checks the licence the app declares (a
 * NaviqueLicense, else the Community defaults): a Stack it would skip or refuse fails synth with the
 * message the operator would report, before anything is committed.
 */
export class Stack extends Construct implements DeclaresPostgresClusters {
  readonly apiObject: ApiObject;
  readonly name: string;
  readonly namespace: string | undefined;

  constructor(scope: Construct, id: string, props: StackProps = {}) {
    super(scope, id);
    const where = `Stack at ${this.node.path}`;
    this.name = parseInput(stackName, props.name ?? id, where, "name");
    this.namespace =
      props.namespace === undefined ? undefined : parseInput(namespaceName, props.namespace, where, "namespace");
    const spec = parseInput(StackSpec, props.spec ?? {}, where, "spec");
    this.apiObject = new ApiObject(this, "Resource", {
      apiVersion: API_GROUP_VERSION,
      kind: STACK_KIND,
      metadata: {
        name: this.name,
        ...(this.namespace ? { namespace: this.namespace } : {}),
        ...(props.labels ? { labels: { ...props.labels } } : {}),
      },
      // The parsed spec: the curated defaults are written out, so the YAML says exactly what runs.
      spec,
    });
    this.node.addValidation({ validate: () => this.licenceProblems() });
  }

  /** Its member PostgresCluster, when the licence lets the Stack create it. */
  declaredPostgresClusters() {
    const feature = enforceFeature(NaviqueLicense.entitlementsOf(this), STACK_FEATURE, this.subject());
    return feature.allowed ? [{ namespace: this.namespace ?? "default", name: postgresMemberName(this.name) }] : [];
  }

  private subject(): string {
    return `${STACK_KIND} ${this.namespace ?? "default"}/${this.name}`;
  }

  /**
   * The same checks as the operator, in the same order: the feature, then the cap on Stacks; then the
   * cap its member PostgresCluster will meet, which the operator would report on the member.
   */
  private licenceProblems(): string[] {
    const entitlements = NaviqueLicense.entitlementsOf(this);
    const feature = enforceFeature(entitlements, STACK_FEATURE, this.subject());
    if (!feature.allowed) return [`Stack at ${this.node.path}: ${feature.message}`];
    const all = this.node.root.node.findAll().filter((c): c is Stack => c instanceof Stack);
    const stacks = all.map((c, index) => ({
      namespace: c.namespace ?? "default",
      name: c.name,
      creationTimestamp: String(index).padStart(6, "0"),
      admitted: false,
    }));
    const self = stacks[all.indexOf(this)];
    if (!self) return [];
    const cap = enforceCap(entitlements, STACK_KIND, stacks, self);
    if (!cap.allowed) return [`Stack at ${this.node.path}: ${cap.message}`];
    const postgres = declaredPostgresClusterInstances(this);
    const member = postgres.find((i) => i.namespace === self.namespace && i.name === postgresMemberName(this.name));
    if (!member) return [];
    const memberCap = enforceCap(entitlements, "PostgresCluster", postgres, member);
    return memberCap.allowed ? [] : [`Stack at ${this.node.path}: its member would be refused: ${memberCap.message}`];
  }
}
