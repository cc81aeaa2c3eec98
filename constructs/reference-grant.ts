import { ApiObject } from "cdk8s";
import { Construct } from "constructs";
import { API_GROUP_VERSION } from "../lib/api/group.js";
import { REFERENCE_GRANT_KIND, type ReferenceGrantSpecInput } from "../lib/api/reference-grant.js";
import { namespaceName, objectName } from "../lib/api/refs.js";
import { checkInput } from "../lib/api/validation.js";
import type { ObservedGrant } from "../lib/engine/reference-grants.js";
import { ReferenceGrantSpec } from "../lib/kinds/registry.js";
import { appChanged } from "./app-declarations.js";
import { PropsProblems } from "./props-problems.js";

export interface ReferenceGrantProps {
  /**
   * The namespace the grant lives in: the one whose objects it lets other namespaces reference. Required:
   * a grant opens only its own namespace, so synth must know which.
   */
  readonly namespace: string;
  /** Which referrers (`from`: group, kind, namespace) may reference which objects (`to`: group, kind, name?). */
  readonly spec: ReferenceGrantSpecInput;
  /** Name of the ReferenceGrant. @default the construct's id */
  readonly name?: string;
  /** Labels written on the ReferenceGrant. @default none */
  readonly labels?: Readonly<Record<string, string>>;
}

/**
 * A ReferenceGrant (core.navique.com/v1alpha1), in the manner of Gateway API's: lets resources of the
 * product in other namespaces reference objects of this one. The PostgresClusters of the same app are
 * checked against the grants declared here at synth (docs/reference-grants.md).
 */
export class ReferenceGrant extends Construct {
  readonly apiObject: ApiObject;
  readonly name: string;
  readonly namespace: string;
  /** The grant, parsed; undefined when its props are invalid (reported at synth). */
  readonly spec: ReferenceGrantSpec | undefined;

  constructor(scope: Construct, id: string, props: ReferenceGrantProps) {
    super(scope, id);
    appChanged(this);
    const problems = new PropsProblems();
    this.name = problems.take(checkInput(objectName, props.name ?? id, "name")) ?? props.name ?? id;
    this.namespace = problems.take(checkInput(namespaceName, props.namespace, "namespace")) ?? props.namespace;
    const spec = problems.take(checkInput(ReferenceGrantSpec, props.spec, "spec"));
    this.spec = problems.problems.length === 0 ? spec : undefined;
    // Reported at synth with every other construct's problems.
    this.node.addValidation({ validate: () => problems.lines(REFERENCE_GRANT_KIND) });
    this.apiObject = new ApiObject(this, "Resource", {
      apiVersion: API_GROUP_VERSION,
      kind: REFERENCE_GRANT_KIND,
      metadata: {
        name: this.name,
        namespace: this.namespace,
        ...(props.labels ? { labels: { ...props.labels } } : {}),
      },
      spec: spec ?? props.spec,
    });
  }

  /** What the app's synth-time checks read of it (constructs/app-declarations.ts). */
  declaredGrant(): ObservedGrant | undefined {
    return this.spec && { namespace: this.namespace, spec: this.spec };
  }
}
