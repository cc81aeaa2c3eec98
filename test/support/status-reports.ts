import type { ServedSnapshot } from "../../lib/console/console-snapshot.js";
import { DEFAULT_SETTINGS } from "../../lib/console/management-plane.js";
import type { ResourceState, StatusReport } from "../../lib/reports/status-report.js";

// Reports of a cluster written here, for what reads them (the console's pages and server, `navique doctor`'s
// diagnosis): one Ready resource of a kind, and a reading holding given resources beside one Owned capability.

/** A resource as `navique status` reports it: Ready, current, depending on nothing, unless `more` says. */
export function resource(
  kind: string,
  namespace: string,
  name: string,
  more: Partial<ResourceState> = {},
): ResourceState {
  return {
    kind,
    namespace,
    name,
    ready: "True",
    reason: "Ready",
    message: `${kind} ${namespace}/${name} is Ready`,
    stalled: false,
    current: true,
    deleting: false,
    conditions: [{ type: "Ready", status: "True", reason: "Ready", message: "ready" }],
    dependsOn: [],
    needs: [],
    capabilities: [],
    ...more,
  };
}

/** A reading of the console: the given resources, one Owned capability, the default settings, no Event. */
export function snapshot(resources: ResourceState[]): ServedSnapshot {
  const status: StatusReport = {
    version: 1,
    observedAt: "2026-12-06T20:00:00.000Z",
    namespace: null,
    ready: false,
    cluster: { server: "https://127.0.0.1:6443", nodes: { ready: 1, total: 1 }, crds: { expected: [], missing: [] } },
    operator: { deployments: [], lease: { namespace: "navique-system", name: "leader", exists: false, live: false } },
    licence: { stored: false, edition: "Community", features: [], caps: [] },
    capabilities: [
      {
        name: "cloudnative-pg",
        state: "Owned",
        evidence: "release found with our marks",
        ready: true,
        waitingFor: [],
        unavailable: [],
        release: { namespace: "cnpg-system", name: "cnpg" },
        pinnedVersion: "0.1.0",
        usedBy: [],
      },
    ],
    resources,
  };
  return {
    served: true,
    settings: DEFAULT_SETTINGS,
    status,
    doctor: { version: 1, observedAt: status.observedAt, namespace: null, findings: [] },
    events: [],
  };
}
