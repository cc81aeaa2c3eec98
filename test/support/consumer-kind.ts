import { z } from "zod";
import { API_GROUP } from "../../lib/api/group.js";
import type { Dependency } from "../../lib/engine/dependencies.js";
import type { EngineResource, KindModule } from "../../lib/engine/kind-module.js";
import type { EngineView } from "../../lib/engine/view.js";

/**
 * A consumer kind written for the tests of dependencies — the shape the platform's kinds (a Gateway on a
 * PostgresCluster) take: `spec.databaseRef` names a PostgresCluster whose connection it needs, and its
 * desired state is a ConfigMap `<name>-wiring` holding the host it read from it. Named Gateway, a kind the
 * licence caps; no CRD of it is served: it is planned and observed, never stored.
 */
const databaseRef = (resource: EngineResource) =>
  (resource.spec as { databaseRef: { name: string; namespace?: string } }).databaseRef;

export const CONSUMER = {
  definition: { kind: "Gateway", plural: "gateways" },
  schema: z.any(),
  name: z.string(),
  licence: {},
  phase: "WiringReady",
  needs: () => [],
  emits: [{ apiVersion: "v1", kind: "ConfigMap", plural: "configmaps" }],
  observes: () => [],
  references: () => [],
  referencesKinds: ["PostgresCluster"],
  dependsOn: (resource: EngineResource): Dependency[] => [
    {
      field: "spec.databaseRef",
      group: API_GROUP,
      kind: "PostgresCluster",
      name: databaseRef(resource).name,
      namespace: databaseRef(resource).namespace ?? resource.metadata.namespace,
      needs: "connection",
    },
  ],
  desired: (resource: EngineResource, view: EngineView) => {
    const target = view.dependencies?.["spec.databaseRef"] as { status?: { connection?: { host: string } } };
    return {
      steps: [
        {
          kind: "apply" as const,
          object: {
            apiVersion: "v1",
            kind: "ConfigMap",
            metadata: { name: `${resource.metadata.name}-wiring`, namespace: resource.metadata.namespace },
            data: { host: target?.status?.connection?.host ?? "" },
          },
          description: "apply ConfigMap",
        },
      ],
      verdict: { ok: true, reason: "Wired", message: "wired" },
    };
  },
  outputs: { names: {}, project: () => ({}) },
} as unknown as KindModule;
