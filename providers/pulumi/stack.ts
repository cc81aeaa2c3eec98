import type * as pulumi from "@pulumi/pulumi";
import { STACK_MODULE } from "../../lib/kinds/stack/module.js";
import type { StackSpecInput } from "../../lib/kinds/stack/schema.js";
import type { ClusterArgs, DeepInput } from "./component-inputs.js";
import { KindComponent } from "./kind-component.js";

export interface StackArgs extends ClusterArgs {
  /** The desired state; parsed by the same schema as the custom resource. @default the curated bundle */
  readonly spec?: DeepInput<StackSpecInput>;
}

/** Where consumers connect to a Stack's PostgreSQL member: no secret, the Secret's name only. */
export interface StackPostgresOutput {
  readonly host: string;
  readonly port: number;
  readonly credentialsSecret: { readonly name: string; readonly namespace: string };
}

/**
 * A curated bundle of the platform's parts (licensed feature `stack`): the Stack custom resource and
 * the members it owns, reconciled by the same core as the operator. `pulumi preview` prints the
 * licence's word first — a Stack the licence does not cover is reported, with how to get it, before
 * anything is created — then each member's decisions.
 */
export class Stack extends KindComponent {
  static readonly TYPE = "navique:index:Stack";

  /** The resources the Stack created and keeps in step, e.g. its PostgresCluster `<name>-postgres`. */
  declare readonly members: pulumi.Output<readonly { kind: string; namespace: string; name: string }[]>;
  /** Where consumers connect to the Stack's PostgreSQL: host, port and the Secret holding the credentials. */
  declare readonly postgres: pulumi.Output<StackPostgresOutput>;

  constructor(name: string, args: StackArgs, opts: pulumi.ComponentResourceOptions = {}) {
    super(Stack.TYPE, STACK_MODULE, name, args, opts);
  }
}
