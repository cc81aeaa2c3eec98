import type { Construct } from "constructs";
import type { ReferenceTree } from "../lib/api/reference-fields.js";
import { STACK_MODULE } from "../lib/kinds/stack/module.js";
import type { STACK_KIND, StackSpec, StackSpecInput } from "../lib/kinds/stack/schema.js";
import { NaviqueResource, type NaviqueResourceProps } from "./navique-resource.js";
import type { WithReferences } from "./references.js";

export interface StackProps extends NaviqueResourceProps {
  /** The desired state; parsed by the same schema as the custom resource and the Pulumi component. @default the curated bundle */
  readonly spec?: WithReferences<StackSpecInput, ReferenceTree<typeof StackSpec>>;
}

/**
 * A Stack custom resource for GitOps (name: at most 41 characters, a DNS-1035 label: see MAX_STACK_NAME):
 * a curated bundle (licensed feature `stack`) whose members the operator creates and keeps in step in the
 * cluster. Synth checks the licence the app declares (a NaviqueLicense, else the Community defaults): a
 * Stack it would skip or refuse, or whose member it would refuse, fails synth with the operator's message.
 */
export class Stack extends NaviqueResource<typeof STACK_KIND> {
  constructor(scope: Construct, id: string, props: StackProps = {}) {
    super(scope, id, STACK_MODULE, { ...props, spec: props.spec ?? {} });
  }
}
