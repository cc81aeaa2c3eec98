import type { EngineResource, KindModule } from "../../lib/engine/kind-module.js";
import { type Credentials, type KubeObject, keyOf } from "../../lib/engine/objects.js";
import { type PlanContext, planResource } from "../../lib/engine/plan.js";
import type { Plan } from "../../lib/engine/steps.js";
import type { EngineView } from "../../lib/engine/view.js";
import { POSTGRES_CLUSTER_MODULE } from "../../lib/kinds/postgres-cluster/module.js";
import type { PostgresCluster, PostgresClusterStatus } from "../../lib/kinds/postgres-cluster/schema.js";
import { STACK_MODULE } from "../../lib/kinds/stack/module.js";
import type { Stack, StackStatus } from "../../lib/kinds/stack/schema.js";

export { DELETION_POLICY_ANNOTATION } from "../../lib/engine/garbage.js";
export type { KubeObject } from "../../lib/engine/objects.js";
export type { PlanContext } from "../../lib/engine/plan.js";

/** A PostgresCluster's view as a test writes it: the engine's, with the kind's reads by name. */
export interface PostgresObservation extends Omit<EngineView, "reads"> {
  readonly adoptTarget?: KubeObject;
  readonly adoptCredentials?: Credentials;
  readonly externalCredentials?: Credentials;
}

/** The engine's plan of a PostgresCluster, from a view written as the test writes it. */
export function planPostgresCluster(
  resource: PostgresCluster,
  observation: PostgresObservation,
  context: PlanContext,
): Plan<PostgresClusterStatus> {
  const { adoptTarget, adoptCredentials, externalCredentials, ...view } = observation;
  const reads = {
    ...(adoptTarget ? { adoptTarget } : {}),
    ...(adoptCredentials ? { adoptCredentials } : {}),
    ...(externalCredentials ? { externalCredentials } : {}),
  };
  return planResource<PostgresClusterStatus>(
    POSTGRES_CLUSTER_MODULE as unknown as KindModule,
    resource as EngineResource,
    { ...view, reads },
    context,
  );
}

/** The catalog a plan of a kind needing no capability is made in. */
const NO_CAPABILITIES: PlanContext = {
  withPrerequisites: (name) => [name],
  releaseOf: (name) => ({ name, namespace: name }),
};

/** The engine's plan of a Stack, its live members given as the resources they are. */
export function planStack(
  stack: Stack,
  observation: {
    readonly licence: EngineView["licence"];
    readonly members: readonly { metadata: { name: string; namespace: string } }[];
  },
): Plan<StackStatus> {
  const objects = new Map<string, KubeObject>(
    observation.members.map((m) => [keyOf({ ...(m as KubeObject), kind: "PostgresCluster" }), m as KubeObject]),
  );
  return planResource<StackStatus>(
    STACK_MODULE as unknown as KindModule,
    stack as EngineResource,
    { capabilities: [], consumers: [], objects, licence: observation.licence },
    NO_CAPABILITIES,
  );
}
