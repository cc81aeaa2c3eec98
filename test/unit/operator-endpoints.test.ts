import { parseBindAddress } from "../../providers/operator/bind-address.js";
import { serveOperatorEndpoints } from "../../providers/operator/operator-endpoints.js";
import { OperatorMetrics } from "../../providers/operator/operator-metrics.js";
import type { Readiness } from "../../providers/operator/watch-readiness.js";

const anyPort = (flag: string, serves: string) => parseBindAddress(flag, "127.0.0.1:0", serves);

/** The status and body of a GET. */
async function get(url: string): Promise<[number, string]> {
  const response = await fetch(url);
  return [response.status, await response.text()];
}

describe("serveOperatorEndpoints", () => {
  // GIVEN an operator's endpoints, its watches not listed yet
  // WHEN they list, then the process is told to stop
  // THEN /readyz goes 503 with the reason → 200, /healthz 200, and both 503 once it stops; /metrics serves the text
  it("answers /healthz, /readyz and /metrics from the process's state", async () => {
    let readiness: Readiness = { ready: false, reason: "3 of 40 watches have not listed yet (/api/v1/secrets, …)" };
    let stopping = false;
    const said: string[] = [];
    const metrics = new OperatorMetrics({ kinds: ["Stack"], capabilities: [] });
    metrics.reconciled("Stack", "success", 0.1);
    const endpoints = await serveOperatorEndpoints({
      metrics: { address: anyPort("--metrics-bind-address", "metrics"), metrics },
      health: {
        address: anyPort("--health-probe-bind-address", "the health probes"),
        health: { stopping: () => stopping, readiness: () => readiness },
      },
      report: (line) => said.push(line),
    });
    try {
      const metricsUrl = /serving metrics on (\S+)/.exec(said.join("\n"))?.[1] ?? "";
      const healthz = /serving health probes on (\S+) and/.exec(said.join("\n"))?.[1] ?? "";
      const readyz = healthz.replace(/healthz$/, "readyz");
      expect(metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
      expect(healthz).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/healthz$/);

      expect(await get(healthz)).toEqual([200, "ok"]);
      expect(await get(readyz)).toEqual([503, "3 of 40 watches have not listed yet (/api/v1/secrets, …)"]);
      readiness = { ready: true };
      expect(await get(readyz)).toEqual([200, "ok"]);
      const scraped = await fetch(metricsUrl);
      expect(scraped.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
      expect(await scraped.text()).toContain('navique_reconcile_total{kind="Stack",result="success"} 1');

      stopping = true;
      expect(await get(healthz)).toEqual([503, "shutting down"]);
      expect(await get(readyz)).toEqual([503, "shutting down"]);
    } finally {
      await endpoints.close();
    }
  });

  // GIVEN --metrics-bind-address 0
  // THEN only the health probes are served, and said
  it("serves nothing for an address turned off", async () => {
    const said: string[] = [];
    const endpoints = await serveOperatorEndpoints({
      metrics: { address: undefined, metrics: new OperatorMetrics({ kinds: [], capabilities: [] }) },
      health: {
        address: anyPort("--health-probe-bind-address", "the health probes"),
        health: { stopping: () => false, readiness: () => ({ ready: true }) },
      },
      report: (line) => said.push(line),
    });
    await endpoints.close();
    expect(said).toEqual([
      expect.stringMatching(/^\[operator\] serving health probes on http:\/\/127\.0\.0\.1:\d+\/healthz and/),
    ]);
  });
});
