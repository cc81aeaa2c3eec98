import type { IConstruct } from "constructs";
import type { Instance } from "../lib/licence/enforce.js";

/** A construct that will make PostgresClusters exist in the cluster: its own, or a Stack's member. */
export interface DeclaresPostgresClusters {
  declaredPostgresClusters(): readonly { readonly namespace: string; readonly name: string }[];
}

function declares(construct: IConstruct): construct is IConstruct & DeclaresPostgresClusters {
  return typeof (construct as Partial<DeclaresPostgresClusters>).declaredPostgresClusters === "function";
}

/**
 * Every PostgresCluster an app declares, directly or as a Stack's member, as instances for the synth-time
 * cap check. Declaration order stands in for creation order: the first declared is the first admitted.
 */
export function declaredPostgresClusterInstances(scope: IConstruct): Instance[] {
  const declared = scope.node.root.node
    .findAll()
    .filter(declares)
    .flatMap((construct) => construct.declaredPostgresClusters());
  return declared.map((d, index) => ({
    namespace: d.namespace,
    name: d.name,
    creationTimestamp: String(index).padStart(6, "0"),
    admitted: false,
  }));
}
