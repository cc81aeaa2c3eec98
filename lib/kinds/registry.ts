import * as z from "zod";
import { customResourceDefinition, type KindDefinition } from "../api/crd.js";
import {
  REFERENCE_GRANT_KIND,
  type ReferenceGrantSpec as ReferenceGrantSpecType,
  referenceGrantDefinition,
  referenceGrantSpec,
  referrerKinds,
} from "../api/reference-grant.js";
import { storedResource } from "../api/stored-resource.js";
import { refuseReferenceCycles } from "../engine/dependencies.js";
import type { KindModule } from "../engine/kind-module.js";
import type { SingletonModule } from "../engine/singleton-module.js";
import { CHAT_UI_MODULE } from "./chat-ui/module.js";
import { CLICKHOUSE_CLUSTER_MODULE } from "./clickhouse-cluster/module.js";
import { GATEWAY_MODULE } from "./gateway/module.js";
import { LICENSE_MODULE } from "./license/module.js";
import { MANAGEMENT_PLANE_DEFINITION, MANAGEMENT_PLANE_NAME, managementPlaneName } from "./management-plane/schema.js";
import { MEILISEARCH_INSTANCE_MODULE } from "./meilisearch-instance/module.js";
import { MONGO_CLUSTER_MODULE } from "./mongo-cluster/module.js";
import { OBSERVABILITY_MODULE } from "./observability/module.js";
import { ORGANIZATION_MODULE } from "./organization/module.js";
import { POSTGRES_CLUSTER_MODULE } from "./postgres-cluster/module.js";
import { REDIS_INSTANCE_MODULE } from "./redis-instance/module.js";
import { SECRETS_MANAGEMENT_MODULE } from "./secrets-management/module.js";
import { STACK_MODULE } from "./stack/module.js";
import { TEAM_MODULE } from "./team/module.js";
import { USER_MODULE } from "./user/module.js";

/**
 * The registry: every kind of the core.navique.com API, each declared once in its own module. The
 * engine, the operator, the Pulumi runtime, `navique plan` and the previews loop over it; nothing else
 * names a kind.
 */
export interface Registry {
  /** The kinds the engine reconciles. */
  readonly kinds: readonly KindModule[];
  /**
   * The licence singleton: reconciled by its own module; its entitlements gate every kind.
   * @internal the engine's: left out of the package's declarations, which then need no Kubernetes client types.
   */
  readonly singleton: SingletonModule;
  /**
   * The console's settings, a cluster-scoped singleton the engine does not plan for: the console reads it
   * at each request, the operator's leader writes its status (lib/console/).
   */
  // Not a Pick of SingletonModule: that type names the Kubernetes client (its reconcile), which the
  // package's declarations must not need (see `singleton`).
  readonly managementPlane: {
    readonly definition: KindDefinition;
    /** The one name it may have. */
    readonly name: string;
    /** The rule of metadata.name: `name`, refused otherwise with what was received and what to do. */
    readonly nameRule: z.ZodType<string>;
  };
  /** The grants kind: nobody reconciles it; a change re-judges the resources whose references point into its namespace. */
  readonly grants: KindDefinition;
  /** A grant as written, parsed and judged: what a file's grants are read with (`navique plan -f`). */
  readonly grantSchema: z.ZodType<{
    readonly metadata: { readonly namespace: string };
    readonly spec: ReferenceGrantSpecType;
  }>;
}

const KINDS: readonly KindModule[] = [
  POSTGRES_CLUSTER_MODULE,
  STACK_MODULE,
  REDIS_INSTANCE_MODULE,
  MEILISEARCH_INSTANCE_MODULE,
  GATEWAY_MODULE,
  CLICKHOUSE_CLUSTER_MODULE,
  MONGO_CLUSTER_MODULE,
  SECRETS_MANAGEMENT_MODULE,
  OBSERVABILITY_MODULE,
  CHAT_UI_MODULE,
  ORGANIZATION_MODULE,
  TEAM_MODULE,
  USER_MODULE,
];

/**
 * A ReferenceGrant's spec as one is written (a construct's, a file's, the CRD's): each `from` entry names
 * a kind of the registry whose resources hold references, no entry is written twice
 * (lib/api/reference-grant.ts).
 */
export const ReferenceGrantSpec = referenceGrantSpec(referrerKinds(KINDS.map((module) => module.definition)));
export type ReferenceGrantSpec = ReferenceGrantSpecType;

/** A ReferenceGrant as written, judged by ReferenceGrantSpec. */
export const ReferenceGrant = storedResource(REFERENCE_GRANT_KIND, ReferenceGrantSpec, z.never());

/** The ReferenceGrant's CRD definition, generated like every kind's. */
export const REFERENCE_GRANT_DEFINITION = referenceGrantDefinition(ReferenceGrantSpec);

export const REGISTRY: Registry = {
  kinds: KINDS,
  singleton: LICENSE_MODULE,
  managementPlane: {
    definition: MANAGEMENT_PLANE_DEFINITION,
    name: MANAGEMENT_PLANE_NAME,
    nameRule: managementPlaneName,
  },
  grants: REFERENCE_GRANT_DEFINITION,
  grantSchema: ReferenceGrant,
};
// Refused when the registry loads, before anything is reconciled: no resource can wait on itself.
refuseReferenceCycles(REGISTRY.kinds);

/**
 * The Pulumi runtime modules of the first release, one per kind, by file name: a stack recorded then
 * keeps the URL of its kind's file in its state, and its resources' inputs name no kind. The runtime
 * behind each of these files serves that kind.
 */
export const LEGACY_PULUMI_RUNTIMES: Readonly<Record<string, string>> = {
  runtime: POSTGRES_CLUSTER_MODULE.definition.kind,
  "stack-runtime": STACK_MODULE.definition.kind,
};

/** Every CRD definition, in a stable order: the singleton, the kinds, the grants, the console's settings. */
export function allDefinitions(registry: Registry = REGISTRY): KindDefinition[] {
  return [
    registry.singleton.definition,
    ...registry.kinds.map((k) => k.definition),
    registry.grants,
    registry.managementPlane.definition,
  ];
}

/** The CRDs of every kind, in a stable order. */
export function allCustomResourceDefinitions(registry: Registry = REGISTRY) {
  return allDefinitions(registry).map(customResourceDefinition);
}
