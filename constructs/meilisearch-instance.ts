import type { Construct } from "constructs";
import type { ReferenceTree } from "../lib/api/reference-fields.js";
import { MEILISEARCH_INSTANCE_MODULE } from "../lib/kinds/meilisearch-instance/module.js";
import type {
  MEILISEARCH_INSTANCE_KIND,
  MeilisearchInstanceSpec,
  MeilisearchInstanceSpecInput,
} from "../lib/kinds/meilisearch-instance/schema.js";
import { NaviqueResource, type NaviqueResourceProps } from "./navique-resource.js";
import type { WithReferences } from "./references.js";

export interface MeilisearchInstanceProps extends NaviqueResourceProps {
  /**
   * The desired state; parsed by the same schema as the custom resource and the Pulumi component. Where
   * it names a Secret, a construct of that kind may stand instead.
   * @default a managed Meilisearch with a 10Gi volume
   */
  readonly spec?: WithReferences<MeilisearchInstanceSpecInput, ReferenceTree<typeof MeilisearchInstanceSpec>>;
}

/** A MeilisearchInstance custom resource for GitOps (name: at most 52 characters, a DNS-1035 label). */
export class MeilisearchInstance extends NaviqueResource<typeof MEILISEARCH_INSTANCE_KIND> {
  constructor(scope: Construct, id: string, props: MeilisearchInstanceProps = {}) {
    super(scope, id, MEILISEARCH_INSTANCE_MODULE, { ...props, spec: props.spec ?? {} });
  }
}
