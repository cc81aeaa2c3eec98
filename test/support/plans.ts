import { API_GROUP_VERSION } from "../../lib/api/group.js";
import type { CapabilityDecision } from "../../lib/capabilities/provenance.js";
import type { EngineResource, KindModule } from "../../lib/engine/kind-module.js";
import { type Credentials, type KubeObject, keyOf } from "../../lib/engine/objects.js";
import { type PlanContext, planResource } from "../../lib/engine/plan.js";
import type { Plan } from "../../lib/engine/steps.js";
import type { EngineView } from "../../lib/engine/view.js";
import { POSTGRES_CLUSTER_MODULE } from "../../lib/kinds/postgres-cluster/module.js";
import { PostgresCluster, type PostgresClusterStatus } from "../../lib/kinds/postgres-cluster/schema.js";
import { STACK_MODULE } from "../../lib/kinds/stack/module.js";
import type { Stack, StackStatus } from "../../lib/kinds/stack/schema.js";
import { communityEntitlements } from "../../lib/licence/entitlements.js";

export { DELETION_POLICY_ANNOTATION } from "../../lib/engine/garbage.js";
export type { KubeObject } from "../../lib/engine/objects.js";
export type { PlanContext } from "../../lib/engine/plan.js";

/**
 * A capability as the engine decides it once its release carries our marks and is Ready: kept, nothing to
 * do. `overrides` make it anything else (adopted, pending …).
 */
export function ownedCapability(capability: string, overrides: Partial<CapabilityDecision> = {}): CapabilityDecision {
  return {
    capability,
    state: "Owned",
    evidence: `release ${capability} carries the ownership marks`,
    action: "none",
    summary: `keep ${capability}`,
    ready: true,
    waitingFor: [],
    unavailable: [],
    ...overrides,
  };
}

/** The catalog a PostgresCluster's plans are made in: cert-manager before cloudnative-pg, in cnpg-system. */
export const POSTGRES_PLAN_CONTEXT: PlanContext = {
  withPrerequisites: (name) => (name === "cloudnative-pg" ? ["cert-manager", "cloudnative-pg"] : [name]),
  releaseOf: (name) => ({ name, namespace: name === "cloudnative-pg" ? "cnpg-system" : name }),
};

/** The PostgresCluster team-a/main every PostgresCluster plan test plans, being deleted when `deleting`. */
export function postgresCluster(spec: unknown, status?: unknown, deleting = false): PostgresCluster {
  return PostgresCluster.parse({
    apiVersion: API_GROUP_VERSION,
    kind: "PostgresCluster",
    metadata: {
      name: "main",
      namespace: "team-a",
      uid: "u-1",
      generation: 2,
      ...(deleting ? { deletionTimestamp: "2027-02-01T00:00:00Z" } : {}),
    },
    spec,
    ...(status ? { status } : {}),
  });
}

/**
 * The fixtures of a plan test of a datastore kind on an upstream operator: its resource `at` a name and
 * namespace (parsed by the kind's schema, generation 1), the operator's capability Owned and Ready, a
 * view in which the Community licence counts the resource (not yet admitted), and the engine's plan.
 */
export function operatorKindPlans<R extends EngineResource, Status>(
  kindModule: KindModule<R, Status>,
  at: { readonly name: string; readonly namespace: string },
  operator: {
    readonly capability: string;
    /** Where its release is. */
    readonly namespace: string;
    /** Its release's name, when not the capability's. */
    readonly release?: string;
  },
) {
  const module = kindModule as unknown as KindModule;
  const context: PlanContext = {
    withPrerequisites: (name) => [name],
    releaseOf: (name) => ({ name, namespace: operator.namespace }),
  };
  const operatorReady = ownedCapability(operator.capability, {
    evidence: `release ${operator.release ?? operator.capability} carries the ownership marks`,
  });
  const resource = (spec: unknown, status?: unknown): EngineResource =>
    module.schema.parse({
      apiVersion: API_GROUP_VERSION,
      kind: module.definition.kind,
      metadata: { ...at, uid: `u-${at.name}`, generation: 1 },
      spec,
      ...(status ? { status } : {}),
    }) as EngineResource;
  const view = (overrides: Partial<EngineView> = {}): EngineView => ({
    capabilities: [operatorReady],
    consumers: [],
    objects: new Map(),
    licence: {
      entitlements: communityEntitlements(),
      instances: [{ ...at, creationTimestamp: "2027-01-01T00:00:00Z", admitted: false }],
    },
    ...overrides,
  });
  const plan = (planned: EngineResource, seen: EngineView): Plan<Status> =>
    planResource<Status>(module, planned, seen, context);
  return { context, operatorReady, resource, view, plan };
}

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
    readonly members: readonly { kind?: string; metadata: { name: string; namespace: string } }[];
  },
): Plan<StackStatus> {
  const objects = new Map<string, KubeObject>(
    observation.members.map((m) => [
      keyOf({ ...(m as KubeObject), kind: m.kind ?? "PostgresCluster" }),
      m as KubeObject,
    ]),
  );
  return planResource<StackStatus>(
    STACK_MODULE as unknown as KindModule,
    stack as EngineResource,
    { capabilities: [], consumers: [], objects, licence: observation.licence },
    NO_CAPABILITIES,
  );
}
