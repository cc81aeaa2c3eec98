import * as z from "zod";
import { API_GROUP } from "../../lib/api/group.js";
import { type Dependency, wiringOf } from "../../lib/engine/dependencies.js";
import type { EngineResource, KindModule } from "../../lib/engine/kind-module.js";
import type { EngineView } from "../../lib/engine/view.js";

/**
 * A consumer kind written for the tests of dependencies, in the shape the platform's kinds (a Gateway on
 * a PostgresCluster) take: `spec.databaseRef` names a PostgresCluster whose connection it needs —
 * auto-wired under a licence with `auto-wiring`, otherwise through `spec.databaseUrlSecretRef`, a Secret
 * the user fills —, and its desired state is a ConfigMap `<name>-wiring` saying where it was wired from:
 * the host it read from the target, or the user's Secret. Named ManagementPlane, a kind the licence caps
 * that this release does not serve yet (the Gateway and the ChatUI are real now): it is planned and
 * observed, never stored.
 */
interface ConsumerSpec {
  readonly databaseRef: { readonly name: string; readonly namespace?: string };
  readonly databaseUrlSecretRef?: { readonly name: string; readonly key: string };
}
const specOf = (resource: EngineResource) => resource.spec as ConsumerSpec;

function databaseDependency(resource: EngineResource): Dependency {
  const { databaseRef, databaseUrlSecretRef } = specOf(resource);
  return {
    field: "spec.databaseRef",
    group: API_GROUP,
    kind: "PostgresCluster",
    name: databaseRef.name,
    namespace: databaseRef.namespace ?? resource.metadata.namespace,
    needs: "connection",
    manual: { field: "spec.databaseUrlSecretRef", provided: databaseUrlSecretRef !== undefined },
  };
}

export const CONSUMER = {
  definition: { kind: "ManagementPlane", plural: "managementplanes" },
  schema: z.any(),
  name: z.string(),
  licence: {},
  phase: "WiringReady",
  needs: () => [],
  emits: [{ apiVersion: "v1", kind: "ConfigMap", plural: "configmaps" }],
  observes: () => [],
  references: () => [],
  referencesKinds: ["PostgresCluster"],
  dependsOn: (resource: EngineResource): Dependency[] => [databaseDependency(resource)],
  desired: (resource: EngineResource, view: EngineView) => {
    const target = view.dependencies?.["spec.databaseRef"] as { status?: { connection?: { host: string } } };
    // The one decision of the core, as every kind makes it.
    const wiring = wiringOf(databaseDependency(resource), view.licence.entitlements);
    const data =
      wiring.mode === "manual"
        ? { urlSecret: specOf(resource).databaseUrlSecretRef?.name ?? "" }
        : { host: target?.status?.connection?.host ?? "" };
    return {
      steps: [
        {
          kind: "apply" as const,
          object: {
            apiVersion: "v1",
            kind: "ConfigMap",
            metadata: { name: `${resource.metadata.name}-wiring`, namespace: resource.metadata.namespace },
            data,
          },
          description: "apply ConfigMap",
        },
      ],
      verdict: { ok: true, reason: "Wired", message: "wired" },
    };
  },
  outputs: { names: {}, project: () => ({}) },
} as unknown as KindModule;
