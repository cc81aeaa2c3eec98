import type { CapabilityEntry } from "./capability.js";
import { CERT_MANAGER } from "./cert-manager.js";
import { CLICKHOUSE_OPERATOR } from "./clickhouse-operator.js";
import { CLOUDNATIVE_PG } from "./cloudnative-pg.js";
import { EXTERNAL_SECRETS } from "./external-secrets.js";
import { LANGFUSE } from "./langfuse.js";
import { LIBRECHAT } from "./librechat.js";
import { LITELLM_OPERATOR } from "./litellm-operator.js";
import { MEILISEARCH } from "./meilisearch.js";
import { MONGODB_KUBERNETES } from "./mongodb-kubernetes.js";
import { REDIS_OPERATOR } from "./redis-operator.js";
import { SEALED_SECRETS } from "./sealed-secrets.js";
import type { WorkloadEntry } from "./workload.js";

/** Every capability the product knows, by name. */
export const CATALOG: ReadonlyMap<string, CapabilityEntry> = new Map(
  [
    CERT_MANAGER,
    CLOUDNATIVE_PG,
    REDIS_OPERATOR,
    LITELLM_OPERATOR,
    CLICKHOUSE_OPERATOR,
    MONGODB_KUBERNETES,
    EXTERNAL_SECRETS,
    SEALED_SECRETS,
  ].map((entry) => [entry.name, entry]),
);

/** Every workload chart the product installs per resource, by name. */
export const WORKLOADS: ReadonlyMap<string, WorkloadEntry> = new Map(
  [MEILISEARCH, LANGFUSE, LIBRECHAT].map((entry) => [entry.name, entry]),
);

/** The workload named `name`; a missing one is a programming error in the catalog. */
export function workload(name: string, workloads: ReadonlyMap<string, WorkloadEntry> = WORKLOADS): WorkloadEntry {
  const entry = workloads.get(name);
  if (!entry) throw new Error(`workload "${name}" is not in the catalog (known: ${[...workloads.keys()].join(", ")})`);
  return entry;
}

/** The entry named `name`; a missing one is a programming error in the catalog, not user input. */
export function capability(name: string, catalog: ReadonlyMap<string, CapabilityEntry> = CATALOG): CapabilityEntry {
  const entry = catalog.get(name);
  if (!entry) throw new Error(`capability "${name}" is not in the catalog (known: ${[...catalog.keys()].join(", ")})`);
  return entry;
}

/** `name` and its prerequisites, prerequisites first, each once; refuses cycles. */
export function withPrerequisites(name: string, catalog: ReadonlyMap<string, CapabilityEntry> = CATALOG): string[] {
  const ordered: string[] = [];
  const visit = (current: string, trail: readonly string[]) => {
    if (trail.includes(current))
      throw new Error(`capability prerequisites form a cycle: ${[...trail, current].join(" -> ")}`);
    if (ordered.includes(current)) return;
    for (const prerequisite of capability(current, catalog).prerequisites) visit(prerequisite, [...trail, current]);
    ordered.push(current);
  };
  visit(name, []);
  return ordered;
}

/** The API groups a capability's CRDs are served under: a CRD is named `<plural>.<group>`. */
export function servedGroups(name: string, catalog: ReadonlyMap<string, CapabilityEntry> = CATALOG): string[] {
  const groups = capability(name, catalog).crds.names.map((crd) => crd.slice(crd.indexOf(".") + 1));
  return [...new Set(groups)];
}
