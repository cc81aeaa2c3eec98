import type * as pulumi from "@pulumi/pulumi";
import { MEILISEARCH_INSTANCE_MODULE } from "../../lib/kinds/meilisearch-instance/module.js";
import type { MeilisearchInstanceSpecInput } from "../../lib/kinds/meilisearch-instance/schema.js";
import type { ClusterArgs, DeepInput } from "./component-inputs.js";
import { KindComponent } from "./kind-component.js";

export interface MeilisearchInstanceArgs extends ClusterArgs {
  /** The desired state; parsed by the same schema as the custom resource. @default a managed Meilisearch */
  readonly spec?: DeepInput<MeilisearchInstanceSpecInput>;
}

/** A Meilisearch (managed or external) for the platform's search; `pulumi preview` prints every decision first. */
export class MeilisearchInstance extends KindComponent {
  static readonly TYPE = "navique:index:MeilisearchInstance";

  /** Where consumers connect: `http://<host>:<port>`. */
  declare readonly url: pulumi.Output<string>;
  declare readonly host: pulumi.Output<string>;
  declare readonly port: pulumi.Output<number>;
  /** The Secret, in the MeilisearchInstance's namespace, that holds the master key (key `password`). */
  declare readonly credentialsSecret: pulumi.Output<{ name: string; namespace: string }>;
  /** The master key, a secret in the Pulumi state. */
  declare readonly masterKey: pulumi.Output<string>;
  /** owned or external. */
  declare readonly provenance: pulumi.Output<string>;

  constructor(name: string, args: MeilisearchInstanceArgs, opts: pulumi.ComponentResourceOptions = {}) {
    super(MeilisearchInstance.TYPE, MEILISEARCH_INSTANCE_MODULE, name, args, opts);
  }
}
