import type { Reporter } from "../../lib/reporter.js";
import type { BindAddress } from "./bind-address.js";
import { type Endpoint, type EndpointServer, serveEndpoints } from "./endpoint-server.js";
import type { OperatorMetrics } from "./operator-metrics.js";
import type { Readiness } from "./watch-readiness.js";

/** What the health endpoints are answered from. */
export interface OperatorHealth {
  /** Whether the process has begun to stop (a signal received): live no more, nor ready. */
  readonly stopping: () => boolean;
  /** Whether every watch has listed and watches (NaviqueOperator.readiness). */
  readonly readiness: () => Readiness;
}

/** The process answers while it runs: not while it stops, so that the kubelet sees it go. */
function healthz(health: OperatorHealth): Endpoint {
  return () => (health.stopping() ? { status: 503, body: "shutting down" } : { status: 200, body: "ok" });
}

/** Ready once its caches are complete, a standby's too (WatchReadiness); 503 with the reason otherwise. */
function readyz(health: OperatorHealth): Endpoint {
  return () => {
    if (health.stopping()) return { status: 503, body: "shutting down" };
    const readiness = health.readiness();
    return readiness.ready ? { status: 200, body: "ok" } : { status: 503, body: readiness.reason };
  };
}

/**
 * Serves the operator's endpoints (docs/operator.md): GET /metrics on `metrics.address`, GET /healthz and
 * GET /readyz on `health.address`, each server left out when its address is undefined (`0`). Each is bound
 * before anything else starts, and a port that cannot be bound fails the start naming its flag; the first
 * server is closed again when the second cannot listen. Says where each listens.
 */
export async function serveOperatorEndpoints(options: {
  readonly metrics: { readonly address: BindAddress | undefined; readonly metrics: OperatorMetrics };
  readonly health: { readonly address: BindAddress | undefined; readonly health: OperatorHealth };
  readonly report: Reporter;
}): Promise<{ close(): Promise<void> }> {
  const servers: EndpointServer[] = [];
  const close = async () => {
    await Promise.all(servers.map((server) => server.close()));
  };
  try {
    const { metrics, health } = options;
    if (metrics.address) {
      const server = await serveEndpoints(metrics.address, {
        "/metrics": async () => ({
          status: 200,
          body: await metrics.metrics.text(),
          contentType: metrics.metrics.contentType,
        }),
      });
      servers.push(server);
      options.report(`[operator] serving metrics on ${server.url}/metrics`);
    }
    if (health.address) {
      const server = await serveEndpoints(health.address, {
        "/healthz": healthz(health.health),
        "/readyz": readyz(health.health),
      });
      servers.push(server);
      options.report(`[operator] serving health probes on ${server.url}/healthz and ${server.url}/readyz`);
    }
  } catch (error) {
    await close();
    throw error;
  }
  return { close };
}
