import { ApiObject } from "cdk8s";
import { Construct } from "constructs";
import { API_GROUP_VERSION } from "../lib/api/group.js";
import { REFERENCE_GRANT_KIND, ReferenceGrantSpec, type ReferenceGrantSpecInput } from "../lib/api/reference-grant.js";
import { namespaceName, objectName } from "../lib/api/refs.js";
import { parseInput } from "../lib/api/validation.js";
import type { ObservedGrant } from "../lib/engine/reference-grants.js";
import { appChanged } from "./app-declarations.js";

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
  readonly spec: ReferenceGrantSpec;

  constructor(scope: Construct, id: string, props: ReferenceGrantProps) {
    super(scope, id);
    appChanged(this);
    const where = `ReferenceGrant at ${this.node.path}`;
    this.name = parseInput(objectName, props.name ?? id, where, "name");
    this.namespace = parseInput(namespaceName, props.namespace, where, "namespace");
    this.spec = parseInput(ReferenceGrantSpec, props.spec, where, "spec");
    this.apiObject = new ApiObject(this, "Resource", {
      apiVersion: API_GROUP_VERSION,
      kind: REFERENCE_GRANT_KIND,
      metadata: {
        name: this.name,
        namespace: this.namespace,
        ...(props.labels ? { labels: { ...props.labels } } : {}),
      },
      spec: this.spec,
    });
  }

  /** What the app's synth-time checks read of it (constructs/app-declarations.ts). */
  declaredGrant(): ObservedGrant {
    return { namespace: this.namespace, spec: this.spec };
  }
}
