import * as pulumi from "@pulumi/pulumi";
import type { KindModule } from "../../lib/engine/kind-module.js";
import { MEILISEARCH_INSTANCE_MODULE } from "../../lib/kinds/meilisearch-instance/module.js";
import type { MeilisearchInstanceSpecInput } from "../../lib/kinds/meilisearch-instance/schema.js";
import { type ClusterArgs, type DeepInput, dynamicInputs } from "./component-inputs.js";
import { KindResource } from "./kind-resource.js";
import { tellPulumiTheUsersPosition } from "./source-position.js";

export interface MeilisearchInstanceArgs extends ClusterArgs {
  /** The desired state; parsed by the same schema as the custom resource. @default a managed Meilisearch */
  readonly spec?: DeepInput<MeilisearchInstanceSpecInput>;
}

/** A Meilisearch (managed or external) for the platform's search; `pulumi preview` prints every decision first. */
export class MeilisearchInstance extends pulumi.ComponentResource {
  static readonly TYPE = "navique:index:MeilisearchInstance";

  /** Where consumers connect: `http://<host>:<port>`. */
  readonly url: pulumi.Output<string>;
  readonly host: pulumi.Output<string>;
  readonly port: pulumi.Output<number>;
  /** The Secret, in the MeilisearchInstance's namespace, that holds the master key (key `password`). */
  readonly credentialsSecret: pulumi.Output<{ name: string; namespace: string }>;
  /** The master key, a secret in the Pulumi state. */
  readonly masterKey: pulumi.Output<string>;
  /** owned or external. */
  readonly provenance: pulumi.Output<string>;

  constructor(name: string, args: MeilisearchInstanceArgs, opts: pulumi.ComponentResourceOptions = {}) {
    const restore = tellPulumiTheUsersPosition();
    try {
      super(MeilisearchInstance.TYPE, name, {}, opts);
    } finally {
      restore();
    }
    const module = MEILISEARCH_INSTANCE_MODULE as unknown as KindModule;
    const inputs = dynamicInputs(this, module, name, args, args.spec ?? {}, opts);
    const resource = new KindResource(module, name, inputs, { parent: this });
    this.url = resource.output("url");
    this.host = resource.output("host");
    this.port = resource.output("port");
    this.credentialsSecret = resource.output("credentialsSecret");
    this.masterKey = resource.output("masterKey");
    this.provenance = resource.output("provenance");
    this.registerOutputs({
      url: this.url,
      host: this.host,
      port: this.port,
      credentialsSecret: this.credentialsSecret,
      masterKey: this.masterKey,
      provenance: this.provenance,
    });
  }
}
